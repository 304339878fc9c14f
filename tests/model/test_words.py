"""Issue 28: the one formatter for numbers (units, significant figures, plurals) and every
fabric's words, written in the model (model/words.py, the presets) and read by the view."""

from __future__ import annotations

import pytest

from model import evaluate, parse_query
from model import words as W


@pytest.mark.parametrize(
    ("n", "noun", "said"),
    [
        (1, "GPU", "1 GPU"),
        (4, "GPU", "4 GPUs"),
        (1, "recovery", "1 recovery"),
        (505, "recovery", "505 recoveries"),
        (0, "recovery", "0 recoveries"),
        (2, "switch chip", "2 switch chips"),
        (2, "switch", "2 switches"),
        (3, "day", "3 days"),
        (5184, "cable", "5,184 cables"),
    ],
)
def test_a_count_and_its_noun_agree(n, noun, said):
    assert W.plural(n, noun) == said


@pytest.mark.parametrize(
    ("x", "said"),
    [
        (0.75, "0.750"),
        (2, "2.00"),
        (0.394, "0.394"),
        (1.86, "1.86"),
        (0.35, "0.350"),
        (12.0, "12.0"),
        (237.1, "237"),
        (1234.5, "1,234"),
        (0, "0"),
    ],
)
def test_three_significant_figures_keep_their_zeros(x, said):
    """'0.75 / 2 us' beside '0.394 / 1.86 us' read as if of different precision."""
    assert W.sig(x) == said


@pytest.mark.parametrize(
    ("x", "said"),
    [(3, "3.0"), (3.2, "3.2"), (3.59, "3.59"), (237.1, "237.1"), (237, "237.0"), (0, "0")],
)
def test_bandwidth_keeps_one_decimal_so_it_never_reads_as_a_change(x, said):
    """'237 TB/s (was 237.1)' and '3 TB/s' beside '3.59 TB/s': one decimal at least."""
    assert W.decimal(x) == said


def test_latency_is_in_microseconds_written_mu_s():
    assert W.pair(0.75, 2, W.MICRO) == "0.750 / 2.00 µs"
    assert W.quantity(0.394, W.MICRO) == "0.394 µs"


def _r(q: str) -> dict:
    return evaluate(parse_query(q).scenario)


def test_no_sentence_says_a_count_with_an_s_in_brackets():
    for q in (
        "fail=st3,st5&off=reroute",
        "fail=gpu07",
        "fail=gpu07,gpu08&off=partial-rack",
        "fail=st3.mc&off=cp-resilience",
        "fail=gpu07-st3.sw2",
        "fabric=gb200-nvl72&fail=st3",
        "fabric=vr-nvl576&fail=r02,l2.p05.s1&off=reroute",
    ):
        r = _r(q)
        said = " ".join(
            [r["partition"]["note"], r["control_plane"]["explanation"], r["job"]["cause"]]
            + r.get("events", [])
        )
        assert "(s)" not in said, (q, said)


def test_one_gpu_lost_is_one_gpu_and_its_rank():
    assert _r("fail=gpu07")["job"]["cause"] == "1 GPU lost: its rank is gone"


def test_full_bandwidth_mode_is_said_once():
    """'full-bandwidth mode: 4 switch chip(s) out in full-bandwidth mode: ...'"""
    note = _r("fabric=gb200-nvl72&fail=st3")["partition"]["note"]
    assert note.count("full-bandwidth mode") == 1
    assert note.startswith("full-bandwidth mode; 2 switch chips out: NMX calls")


def test_one_rack_does_not_explain_a_trunk_state_it_cannot_be_in():
    """NMX's BANDWIDTH state is for missing trunk links between racks; one rack has none."""
    note = _r("fail=gpu07-st3.sw2")["partition"]["note"]
    assert "BANDWIDTH" not in note.replace("DEGRADED_BW", "") and "trunk" not in note
    assert note == (
        "adaptive-bandwidth mode; links missing on 1 GPU: every GPU still reaches every "
        "other, those at reduced bandwidth (each reports DEGRADED_BW in its fabric health)"
    )
    # a domain has trunks, and says so
    domain = _r("fabric=vr-nvl576&fail=l2.p05.s1,l2.p05.s0")["partition"]["explanation"]
    assert "BANDWIDTH" in domain


class TestEthernetInItsOwnWords:
    """eth-x72 spoke NVLink 6: NMX modes, DEGRADED_BW, a fabric-manager leader, SHARP."""

    r = staticmethod(lambda q="": _r("fabric=eth-x72" + (q and "&" + q)))

    def test_no_nmx_partition(self):
        part = self.r("fail=st3")["partition"]
        assert part["mode"] == "ECMP"
        assert part["note"] == (
            "ECMP: no NMX partition on Ethernet; ports down on 72 GPUs: ECMP spreads their "
            "traffic over the ports left, at reduced bandwidth"
        )
        for nvlink in ("adaptive-bandwidth", "DEGRADED_BW", "NMX calls", "NO_NVLINK"):
            assert nvlink not in part["note"]

    def test_static_routes_keep_the_dead_ports_until_repair(self):
        r = self.r("fail=st3&off=reroute")
        assert r["partition"]["state"] == "UNHEALTHY" and "NMX calls" not in r["partition"]["note"]
        assert r["job"]["restart_kind"] == "after-repair"

    def test_no_leader_to_lose(self):
        for q in ("", "fail=st1.mc", "fail=st1.mc&off=cp-resilience,sdr-fallback"):
            cp = self.r(q)["control_plane"]
            assert cp["state"] == "distributed" and cp["leader"] is None, q
            assert len(cp["routing_authority"]) == 9
            assert "no central controller" in cp["explanation"]
        assert not any("leader" in e for e in self.r("fail=st3")["events"])
        assert self.r("fail=st1.mc")["job"]["state"] == "running"

    def test_its_switches_and_counters_named_as_they_are(self):
        f = self.r()["fabric"]
        assert f["fabric_manager"] is False
        assert "NMX" not in f["controller_runs"] and "NVOS" not in f["controller_runs"]
        assert "no in-network reduction" in f["in_network"] and "SHARP" not in f["in_network"]
        assert "DCGM" not in f["link_counters"]

    def test_nvlink_keeps_nmx(self):
        for q in ("", "fabric=gb200-nvl72"):
            f = _r(q)["fabric"]
            assert f["fabric_manager"] is True and "NMX-Controller" in f["controller_runs"]
            assert "SHARP" in f["in_network"]
        assert "NVLink 5" in _r("fabric=gb200-nvl72")["fabric"]["link_counters"]


def test_the_features_table_says_where_this_fabric_stands():
    """On GB200 the table said 'seven NVLink 6 features ... against vr-nvl72' and no more."""
    from model.fabric.features import fabric_row

    gb = fabric_row("gb200-nvl72")
    assert gb.startswith("this page's fabric is the row 'gb200-nvl72, defaults': it ships 2")
    assert "control-plane resilience" in gb and "dynamic traffic rerouting" not in gb
    assert "none of NVLink's features" in fabric_row("eth-x72")
    assert "all seven" in fabric_row("vr-nvl72")


def test_a_feature_ethernet_lacks_is_said_to_mean_nothing_there():
    """All seven NVLink feature switches stayed on Ethernet with no word of what they mean
    there; the two about a central controller mean nothing on a fabric without one."""
    p = parse_query("fabric=eth-x72&fail=st1.mc&off=cp-resilience,sdr-fallback,reroute")
    cp = (
        "off: 'cp-resilience' means nothing on eth-x72: no central controller to hand over: "
        "every switch routes for itself [A]"
    )
    sdr = (
        "off: 'sdr-fallback' means nothing on eth-x72: no central controller to fall back "
        "from: every switch routes for itself (BGP/ECMP) [A]"
    )
    assert p.notices == [cp, sdr]
    feats = evaluate(p.scenario)["features"]
    assert feats["cp-resilience"]["lacks"] == feats["cp-resilience"]["effect"]
    assert feats["reroute"]["lacks"] is None  # ECMP reconvergence is Ethernet's own
    assert all(v["lacks"] is None for v in _r("fabric=gb200-nvl72")["features"].values())
    # and the model never reads them there: the same answer with them on or off
    on = evaluate(parse_query("fabric=eth-x72&fail=st1.mc,st3").scenario)
    off = evaluate(parse_query("fabric=eth-x72&fail=st1.mc,st3&off=cp-resilience").scenario)
    assert on["job"] == off["job"] and on["control_plane"] == off["control_plane"]
    assert on["goodput"]["fraction"] == off["goodput"]["fraction"]


def test_each_switch_says_what_it_means_on_this_fabric():
    from model.fabric.features import meaning
    from model.kinds import Feature as F

    assert meaning("vr-nvl72", F.REROUTE) is None  # the features' own fabric
    assert meaning("eth-x72", F.SDR_FALLBACK).startswith("eth-x72 has none: no central")
    assert meaning("eth-x72", F.REROUTE) == (
        "eth-x72 has it: ECMP reconvergence, in seconds rather than milliseconds [A]"
    )
    assert meaning("gb200-nvl72", F.HOT_SWAP).startswith("off on gb200-nvl72 by default: loss")
    here = {k: v["here"] for k, v in _r("fabric=gb200-nvl72")["features"].items()}
    assert all(here.values()) and not any(_r("")["features"][k]["here"] for k in here)


@pytest.mark.parametrize(
    "x, says",
    [
        (576_773_420, "$577 M"),
        (6_463_220, "$6.46 M"),
        (123_333, "$123 k"),
        (10_120, "$10.1 k"),
        (1_090, "$1,090"),
        (708, "$708"),
        (0, "$0"),
        (999_999, "$1.00 M"),  # rounded first: never '$1,000 k'
        (1.2e9, "$1.20 bn"),
        (-6_463_220, "-$6.46 M"),
    ],
)
def test_money_is_for_people(x, says):
    """Issue 28 (6): '$576,773,420 a year' read as a number to count, not an amount."""
    assert W.money(x) == says


def test_a_kept_goodput_says_how_often_how_long_and_the_overlap():
    s = W.goodput_kept(0.2976, "a job over 2,000 racks", 92.34, 63.1, 16.83, 6.83, 10.0, 0.66)
    assert s.startswith("a job over 2,000 racks keeps 29.8%: it is stopped 92.3 times a day")
    assert "once every 16 min" in s and "(63.1 unplanned, 29.2 planned)" in s
    assert "each holding it 17 min (6.8 to detect, 10 to restart or wait)" in s
    assert "stops overlap, so it is down 66.0% of the time" in s and "take 4.2% more" in s
    rare = W.goodput_kept(0.99, "a job over 1 rack", 0.07, 0.03, 64.0, 4.5, 59.5, 0.003)
    assert "25.6 times a year, once every 14 days" in rare and "overlap" not in rare
