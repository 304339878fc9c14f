"""Fault attribution from the counters alone (model/telemetry/diagnosis.py).

Attribution is checked against an oracle built from the scenario's fail and flaky lists
(which attribution never reads): drop what another failure hides, merge what the counters
cannot split (all cables of a link, all GPUs of a compute tray, all chips of a switch tray with
its controller), and show a cable behind a silent controller as its link, failed or degrading.
"""

import json
from collections import defaultdict
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import telemetry as T
from model.ids import Component, format_id, parse_id, plane_of
from model.query import parse_query
from model.scenario import Scenario
from tests.model.telemetry.helpers import FABRIC_QUERIES, READ_AT, ids_by_kind, sc

IDS = {fab: ids_by_kind(fab) for fab in FABRIC_QUERIES}


# --- the oracle ------------------------------------------------------------------------------
def _hides(a: Component, b: Component, gpus_per_tray: int) -> bool:
    """a's failure takes b's links down with it (or b is part of a)."""
    if a == b:
        return False
    if a.kind == "compute-tray":
        return b.kind in ("gpu", "link", "cable") and b.nums[0] // gpus_per_tray + 1 == a.nums[0]
    if a.kind == "gpu":
        return b.kind in ("link", "cable") and b.nums[0] == a.nums[0]
    if a.kind == "switch-tray":
        if b.kind in ("switch-chip", "controller"):
            return b.nums[0] == a.nums[0]
        return b.kind in ("link", "cable") and b.nums[1] == a.nums[0]
    if a.kind == "switch-chip":
        return b.kind in ("link", "cable") and b.nums[1:3] == a.nums
    if a.kind == "link":
        return b.kind == "cable" and b.nums[:3] == a.nums
    return False


def _merge_cables(comps: set[Component], cables_per_link: int) -> set[Component]:
    by_link = defaultdict(set)
    for x in comps:
        if x.kind == "cable":
            by_link[x.nums[:3]].add(x)
    for link, cables in by_link.items():
        if len(cables) == cables_per_link:
            comps = (comps - cables) | {Component("link", link)}
    return comps


def expected(s: Scenario) -> list[str]:
    """The smallest explanation the counters allow, from the scenario's own lists."""
    f = s.spec()
    gpt, k, cpl = f.gpus_per_tray, f.chips_per_tray, f.cables_per_link
    fail = {parse_id(x, f) for x in s.fail}
    seen = {b for b in fail if not any(_hides(a, b, gpt) for a in fail)}
    seen = _merge_cables(seen, cpl)
    for t in range(1, f.compute_trays + 1):
        gpus = {Component("gpu", (g,)) for g in range((t - 1) * gpt, t * gpt)}
        if gpus <= seen:
            seen = (seen - gpus) | {Component("compute-tray", (t,))}
    for t in range(1, f.switch_trays + 1):
        tray = {Component("switch-chip", (t, c)) for c in range(k)} | {
            Component("controller", (t,))
        }
        if tray <= seen:
            seen = (seen - tray) | {Component("switch-tray", (t,))}
    silent = {x.nums[0] for x in seen if x.kind == "controller"}
    seen = {
        Component("link", x.nums[:3]) if x.kind == "cable" and x.nums[1] in silent else x
        for x in seen
    }
    degrading = set()
    for x in (parse_id(y, f) for y in s.flaky):
        link = Component("link", x.nums[:3])
        link_down = any(
            a == link or _hides(a, link, gpt) or (a.kind == "cable" and a.nums[:3] == link.nums)
            for a in fail
        )
        if not link_down:
            degrading.add(x)
    degrading = {
        x
        for x in degrading
        if not (x.kind == "cable" and Component("link", x.nums[:3]) in degrading)
    }
    degrading = _merge_cables(degrading, cpl)
    # A degrading cable shows in its GPU's counters as its link's; only the switch tray's lane
    # readings could narrow it, and behind a silent controller they are stale.
    degrading = {
        Component("link", x.nums[:3]) if x.kind == "cable" and x.nums[1] in silent else x
        for x in degrading
    }
    return [format_id(x) for x in sorted(seen | degrading, key=Component.sort_key)]


def attributed(s: Scenario, t: float = READ_AT) -> list[str]:
    return T.attribute(T.counters(s, t))


# --- every single fault ----------------------------------------------------------------------
def _sample_links(fabric: str) -> tuple[list[str], list[str]]:
    """Links and cables that cover every GPU, every plane and every cable index."""
    f = sc(FABRIC_QUERIES[fabric]).spec()
    p, c = f.planes, f.cables_per_link
    links, cables = set(), set()
    for g in range(f.gpus):
        for pl in (g % p, (7 * g + 3) % p):
            t, ch = divmod(pl, f.chips_per_tray)
            links.add(f"gpu{g:02d}-st{t + 1}.sw{ch}")
        for ci in range(c):
            t, ch = divmod((5 * g + 11 * ci) % p, f.chips_per_tray)
            cables.add(f"gpu{g:02d}-st{t + 1}.sw{ch}.c{ci}")
    return sorted(links), sorted(cables)


@pytest.mark.slow
@pytest.mark.parametrize("fabric", sorted(FABRIC_QUERIES))
@pytest.mark.parametrize(
    "kind", ["compute-tray", "gpu", "switch-tray", "switch-chip", "controller", "link", "cable"]
)
def test_every_single_fault_is_named(fabric, kind):
    """Every compute tray, GPU, switch tray, chip, controller, link and cable of the rack."""
    wrong = []
    for cid in IDS[fabric][kind]:
        got = attributed(sc(f"{FABRIC_QUERIES[fabric]}&fail={cid}"))
        if got != [cid]:
            wrong.append((cid, got))
    assert len(IDS[fabric][kind]) > 0
    assert wrong == []


@pytest.mark.parametrize("fabric", sorted(FABRIC_QUERIES))
def test_single_degrading_link_or_cable_is_named(fabric):
    links, cables = _sample_links(fabric)
    wrong = []
    for cid in links + cables:
        got = attributed(sc(f"{FABRIC_QUERIES[fabric]}&flaky={cid}"))
        if got != [cid]:
            wrong.append((cid, got))
    assert wrong == []


def test_attribution_reads_the_counters_not_the_scenario():
    s = sc("fail=st3.sw2,gpu07-st1.sw0.c1,st5.mc&flaky=gpu40-st2.sw3")
    snap = T.counters(s, READ_AT)
    blind = replace(snap, scenario_key="")
    assert T.attribute(blind) == T.attribute(snap) == expected(s)


# --- pairs -----------------------------------------------------------------------------------
PAIRS = [
    # a chip, and a cable on another chip
    ("vr-nvl72", "fail=st3.sw2,gpu07-st5.sw1.c0", ["st3.sw2", "gpu07-st5.sw1.c0"]),
    # two GPUs of one compute tray are two GPUs; all four are the tray
    ("vr-nvl72", "fail=gpu04,gpu05", ["gpu04", "gpu05"]),
    ("vr-nvl72", "fail=gpu04,gpu05,gpu06,gpu07", ["ct02"]),
    # a cable on a failed chip is masked: the chip's links are down anyway
    ("vr-nvl72", "fail=st3.sw2,gpu07-st3.sw2.c0", ["st3.sw2"]),
    # a cable behind a silent controller shows as its link
    ("vr-nvl72", "fail=st3.mc,gpu07-st3.sw2.c0", ["st3.mc", "gpu07-st3.sw2"]),
    ("vr-nvl72", "fail=st3.mc,st3.sw1", ["st3.sw1", "st3.mc"]),
    ("vr-nvl72", "fail=st3,st3.sw1", ["st3"]),
    (
        "vr-nvl72",
        "fail=st3.sw0,st3.sw1,st3.sw2,st3.sw3",
        ["st3.sw0", "st3.sw1", "st3.sw2", "st3.sw3"],
    ),
    ("vr-nvl72", "fail=st3.sw0,st3.sw1,st3.sw2,st3.sw3,st3.mc", ["st3"]),
    ("vr-nvl72", "fail=gpu07,gpu07-st3.sw2", ["gpu07"]),
    ("vr-nvl72", "fail=gpu07,st3.sw2", ["gpu07", "st3.sw2"]),
    # both cables of an NVLink 6 link look exactly like the port
    ("vr-nvl72", "fail=gpu07-st3.sw2.c0,gpu07-st3.sw2.c1", ["gpu07-st3.sw2"]),
    (
        "gb200-nvl72",
        "fail=gpu07-st3.sw1.c0,gpu07-st3.sw1.c2",
        ["gpu07-st3.sw1.c0", "gpu07-st3.sw1.c2"],
    ),
    ("gb200-nvl72", "fail=st3.sw0,st3.sw1", ["st3.sw0", "st3.sw1"]),
    ("gb200-nvl72", "fail=st3.sw0,st3.mc", ["st3.sw0", "st3.mc"]),
    ("gb200-nvl72", "fail=st3.sw0,st3.sw1,st3.mc", ["st3"]),
    # a degrading link next to failures
    ("vr-nvl72", "fail=st3.sw2&flaky=gpu07-st4.sw0", ["st3.sw2", "gpu07-st4.sw0"]),
    ("vr-nvl72", "fail=gpu07&flaky=gpu07-st4.sw0", ["gpu07"]),
    ("vr-nvl72", "fail=gpu07-st3.sw2.c1&flaky=gpu07-st3.sw2.c0", ["gpu07-st3.sw2.c1"]),
    # The GPU's own counters show the degrading link; which cable needs the lanes' BER, which
    # only the switch tray reports, and its controller is silent: the link is named.
    ("vr-nvl72", "fail=st4.mc&flaky=gpu07-st4.sw0.c1", ["st4.mc", "gpu07-st4.sw0"]),
    ("vr-nvl72", "flaky=gpu07-st4.sw0.c1", ["gpu07-st4.sw0.c1"]),
    ("vr-nvl72", "flaky=gpu07-st4.sw0.c0,gpu07-st4.sw0.c1", ["gpu07-st4.sw0"]),
    (
        "gb200-nvl72",
        "flaky=gpu07-st4.sw0.c0,gpu07-st4.sw0.c3",
        ["gpu07-st4.sw0.c0", "gpu07-st4.sw0.c3"],
    ),
]


@pytest.mark.parametrize("fabric,query,names", PAIRS)
def test_pairs_of_faults(fabric, query, names):
    s = sc(f"{FABRIC_QUERIES[fabric]}&{query}")
    assert attributed(s) == names
    assert expected(s) == names


def test_a_masked_fault_is_said_to_be_masked():
    a = T.attribution(T.counters(sc("fail=st3.sw2,gpu07-st3.sw2.c0"), READ_AT))
    assert a.components == ("st3.sw2",)
    assert any("st3.sw2" in m and "cannot be seen" in m for m in a.masked)
    a = T.attribution(T.counters(sc("fail=st3.mc,gpu07-st3.sw2.c0"), READ_AT))
    assert any("st3:" in m and "cannot be narrowed to a cable" in m for m in a.masked)


def _pair_queries(fabric: str) -> st.SearchStrategy[str]:
    everything = [x for ids in IDS[fabric].values() for x in ids]
    links = IDS[fabric]["link"] + IDS[fabric]["cable"]
    fail_fail = st.tuples(st.sampled_from(everything), st.sampled_from(everything)).map(
        lambda p: f"fail={p[0]},{p[1]}"
    )
    fail_flaky = st.tuples(st.sampled_from(everything), st.sampled_from(links)).map(
        lambda p: f"fail={p[0]}&flaky={p[1]}"
    )
    flaky_flaky = st.tuples(st.sampled_from(links), st.sampled_from(links)).map(
        lambda p: f"flaky={p[0]},{p[1]}"
    )
    return st.one_of(fail_fail, fail_flaky, flaky_flaky)


@pytest.mark.parametrize("fabric", sorted(FABRIC_QUERIES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_pairs_match_the_oracle(fabric, data):
    q = data.draw(_pair_queries(fabric))
    s = parse_query(f"{FABRIC_QUERIES[fabric]}&{q}", strict=False).scenario
    assert attributed(s) == expected(s)


# --- telemetry off ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query", ["fabric=gb200-nvl72&fail=st3.sw1", "fail=gpu07-st3.sw2.c0&off=telemetry"]
)
def test_telemetry_off_keeps_the_counters_and_acts_only_on_up_down(query):
    """Issue 29: the counters exist whatever the features (DCGM reads them on GB200); the
    feature off means the fabric attributes nothing and runs no rule on them."""
    s = sc(query + "&flaky=gpu09-st4.sw0")
    snap = T.counters(s, READ_AT)
    assert not snap.telemetry
    for name in T.METRICS:  # every counter is there, as with the feature on
        assert snap.link[name].shape == snap.state.shape, name
    assert snap.port is not None and snap.cable is not None and snap.stale is not None
    g, p = 9, plane_of(snap.fabric, 4, 0)
    assert (
        snap.link[T.REPLAY][g, p] > snap.link[T.REPLAY].sum() / 2
        and snap.heatmap(T.CRC_FLIT).shape == snap.state.shape
    )
    assert (snap.state == T.INACTIVE).sum() > 0
    a = T.attribution(snap)
    assert T.attribute(snap) == []
    assert a.possible is False and a.components == () and "only on link up/down" in a.reason
    assert a.updown["links_down"] == int((snap.state == T.INACTIVE).sum())
    series = T.link_series(s, "gpu09-st4.sw0", 0, 7200, 600)
    assert series["telemetry_feature"] is False and series[T.REPLAY][-1] > 0
    rule = T.health_rule(s, READ_AT)
    assert rule["available"] is False and rule["flagged"] == []
    doc = snap.to_json()
    assert doc["telemetry"] is False and doc["link"] is not None and doc["port"] is not None
    json.dumps(doc, allow_nan=False)


def test_telemetry_off_still_shows_a_whole_plane_down():
    a = T.attribution(T.counters(sc("fabric=gb200-nvl72&fail=st3.sw1"), READ_AT))
    assert a.components == ()
    assert a.updown["planes_with_every_link_down"] == ["st3.sw1"]


# --- evaluate's reading: the attribution-only snapshot ----------------------------------------
def _many_queries(fabric: str):
    """Up to a dozen parts failed or degrading, with controllers, updates and features off."""
    ids = IDS[fabric]
    parts = ids["gpu"] + ids["switch-chip"] + ids["switch-tray"] + ids["controller"]
    parts += ids["compute-tray"] + ids["link"] + ids["cable"]
    links = ids["link"] + ids["cable"]
    fails = st.lists(st.sampled_from(parts), min_size=0, max_size=12, unique=True)
    flakies = st.lists(st.sampled_from(links), min_size=0, max_size=4, unique=True)
    extra = st.sampled_from(["", "&update=st2", "&off=reroute", "&off=telemetry", "&update=all"])
    return st.tuples(fails, flakies, extra).map(
        lambda x: (
            "&".join(
                y
                for y in (
                    f"fail={','.join(x[0])}" if x[0] else "",
                    f"flaky={','.join(x[1])}" if x[1] else "",
                )
                if y
            )
            + x[2]
        )
    )


@pytest.mark.parametrize("fabric", sorted(FABRIC_QUERIES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), t=st.sampled_from([0.0, READ_AT, 86400.0 * 3.5, 86400.0 * 6]))
def test_the_attribution_only_snapshot_attributes_as_the_whole_one(fabric, data, t):
    """evaluate() reads attribution_reads(), the telemetry endpoint and /metrics counters():
    the arrays the first holds equal the second's and the attribution is the same."""
    q = data.draw(_many_queries(fabric))
    s = parse_query(f"{FABRIC_QUERIES[fabric]}&{q}", strict=False).scenario
    whole, part = T.counters(s, t), T.attribution_reads(s, t)
    assert T.attribution(part) == T.attribution(whole)
    assert (part.state == whole.state).all() and (part.planned == whole.planned).all()
    if whole.telemetry:
        for k in part.link:
            np.testing.assert_array_equal(part.link[k], whole.link[k])
        np.testing.assert_array_equal(part.cable[T.BER], whole.cable[T.BER])
        np.testing.assert_array_equal(part.cable_state, whole.cable_state)
        np.testing.assert_array_equal(part.last_seen_s, whole.last_seen_s)
        assert set(part.link) == {T.RECOVERY, T.BER} and part.port is None
