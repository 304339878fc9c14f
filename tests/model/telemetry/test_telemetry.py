"""Per-link telemetry counters and fault attribution (model/telemetry.py).

Attribution is checked against an oracle built from the scenario's fail and flaky lists
(which attribution never reads): drop what another failure hides, merge what the counters
cannot split (all cables of a link, all GPUs of a compute tray, all chips of a switch tray with
its controller), and show a cable behind a silent controller as its link.
"""

import hashlib
import itertools
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import telemetry as T
from model.errors import ScenarioError
from model.fabric.topology import topology
from model.ids import Component, format_id, parse_id, plane_of
from model.params import OFFERED_LOAD
from model.scenario import Scenario, parse_query
from model.telemetry.fields import FLAKY_RECOVERY_PER_S

READ_AT = 3600.0  # an hour in: after the faults strike (onset 0), days before a flaky failure
FABRIC_QUERIES = {  # telemetry is off by default on gb200-nvl72: turn it on to attribute
    "vr-nvl72": "fabric=vr-nvl72",
    "gb200-nvl72": "fabric=gb200-nvl72&on=telemetry",
}
ROOT = Path(__file__).resolve().parents[3]


def sc(query: str) -> Scenario:
    return parse_query(query).scenario


def ids_by_kind(fabric: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for c in topology(sc(f"fabric={fabric}").spec())["components"]:
        out[c["kind"]].append(c["id"])
    return out


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
    ("vr-nvl72", "fail=st4.mc&flaky=gpu07-st4.sw0.c1", ["st4.mc", "gpu07-st4.sw0.c1"]),
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
def test_telemetry_off_shows_only_up_down(query):
    s = sc(query + "&flaky=gpu09-st4.sw0")
    snap = T.counters(s, READ_AT)
    assert not snap.telemetry
    assert snap.link is None and snap.cable is None and snap.cable_state is None
    assert snap.stale is None and snap.projected_fail_s is None
    assert (snap.state == T.INACTIVE).sum() > 0
    a = T.attribution(snap)
    assert T.attribute(snap) == []
    assert a.possible is False and a.components == () and "only link up/down" in a.reason
    assert a.updown["links_down"] == int((snap.state == T.INACTIVE).sum())
    series = T.link_series(s, "gpu09-st4.sw0", 0, 7200, 600)
    assert set(series) == {"id", "t_s", "state", "visible"}
    rule = T.health_rule(s, READ_AT)
    assert rule["available"] is False and rule["flagged"] == []
    with pytest.raises(ValueError):
        snap.heatmap(T.CRC_FLIT)
    json.dumps(snap.to_json(), allow_nan=False)


def test_telemetry_off_still_shows_a_whole_plane_down():
    a = T.attribution(T.counters(sc("fabric=gb200-nvl72&fail=st3.sw1"), READ_AT))
    assert a.components == ()
    assert a.updown["planes_with_every_link_down"] == ["st3.sw1"]


# --- counters --------------------------------------------------------------------------------
def test_flaky_recoveries_rise_at_three_per_21_minutes():
    """40 degrading links over 4.9 simulated days: the public GB200 rate, within 4 sigma."""
    links = [f"gpu{g:02d}-st{g % 9 + 1}.sw{g % 4}" for g in range(40)]
    s = sc("flaky=" + ",".join(links))
    t = T.FLAKY_TTF_S - 0.1 * 86400
    rec = T.counters(s, t).link[T.RECOVERY]
    per_link = np.array([rec[parse_id(x, s.spec()).nums[0], _plane(s, x)] for x in links])
    mu = FLAKY_RECOVERY_PER_S * t  # ~1,008 per link
    assert mu == pytest.approx(3 / 1260 * t)
    assert np.all(np.abs(per_link - mu) < 5 * math.sqrt(mu))
    assert abs(per_link.sum() - mu * len(links)) < 4 * math.sqrt(mu * len(links))
    assert rec.sum() == per_link.sum()  # healthy links: no recoveries at all


def test_flaky_recoveries_are_a_poisson_process():
    """Counts per 21-minute window: mean ~3 and variance ~3 (index of dispersion ~1)."""
    s = sc("flaky=gpu07-st3.sw2")
    ser = T.link_series(s, "gpu07-st3.sw2", 0, 4 * 86400, 21 * 60)
    per_window = np.diff(ser[T.RECOVERY])
    n = per_window.size  # 274 windows
    assert abs(per_window.mean() - 3.0) < 4 * math.sqrt(3.0 / n)
    assert 0.7 < per_window.var() / per_window.mean() < 1.4


def _plane(s: Scenario, lid: str) -> int:
    c = parse_id(lid, s.spec())
    return plane_of(s.spec(), c.nums[1], c.nums[2])


def test_a_flaky_link_fails_after_five_days_and_freezes():
    s = sc("flaky=gpu07-st3.sw2")
    g, p = 7, _plane(s, "gpu07-st3.sw2")
    before = T.counters(s, T.FLAKY_TTF_S - 60)
    after = T.counters(s, T.FLAKY_TTF_S + 3600)
    later = T.counters(s, T.FLAKY_TTF_S + 2 * 86400)
    assert before.state[g, p] == T.ACTIVE and after.state[g, p] == T.INACTIVE
    assert before.projected_fail_s[g, p] == T.FLAKY_TTF_S
    assert np.isnan(before.projected_fail_s).sum() == before.state.size - 1
    for name in T.COUNTERS:
        assert after.link[name][g, p] == later.link[name][g, p]
    assert after.link[T.BANDWIDTH_GBS][g, p] == 0 and np.isnan(after.link[T.BER][g, p])
    a = T.attribution(after)
    assert a.failed == ("gpu07-st3.sw2",) and a.degrading == ()
    assert any("recovery events before going down" in m for m in a.masked)


def test_a_flaky_cable_fails_alone():
    s = sc("flaky=gpu07-st3.sw2.c1")
    g, p = 7, _plane(s, "gpu07-st3.sw2")
    snap = T.counters(s, T.FLAKY_TTF_S + 60)
    assert list(snap.cable_state[g, p]) == [T.IDLE, T.INACTIVE]
    assert T.attribute(snap) == ["gpu07-st3.sw2.c1"]


def test_the_health_rule_flags_a_degrading_link_days_ahead():
    s = sc("flaky=gpu07-st3.sw2,gpu20-st1.sw0.c0")
    r = T.health_rule(s, 86400.0)
    assert r["available"] and r["rule"]["windows"] == 30 and r["rule"]["threshold"] == 15
    assert r["flagged"] == ["gpu07-st3.sw2", "gpu20-st1.sw0"]
    first = r["first_flagged_s"]
    assert set(first) == {"gpu07-st3.sw2", "gpu20-st1.sw0"}
    assert all(16 * 60 <= x <= 3600 for x in first.values())  # 16 windows at the earliest
    assert T.FLAKY_TTF_S - max(first.values()) > 4.9 * 86400
    # after the link-down the counters stop, and the rule lets go of it
    gone = T.health_rule(s, T.FLAKY_TTF_S + 3600)
    assert gone["flagged"] == [] and gone["first_flagged_s"] == first


def test_the_health_rule_leaves_healthy_links_alone():
    r = T.health_rule(sc("fail=st3.sw2,gpu07"), 2 * 86400.0)
    assert r["flagged"] == [] and r["first_flagged_s"] == {}


def test_counters_are_deterministic_and_seeded_by_the_scenario():
    s = sc("fail=st3.sw2&flaky=gpu07-st4.sw0")
    a, b = T.counters(s, 2 * 86400.0), T.counters(s, 2 * 86400.0)
    for name in T.METRICS:
        assert np.array_equal(a.cable[name], b.cable[name], equal_nan=True)
    other = T.counters(sc("fail=st3.sw1&flaky=gpu07-st4.sw0"), 2 * 86400.0)
    healthy = (a.cable_state == T.ACTIVE) & (other.cable_state == T.ACTIVE)
    assert not np.array_equal(a.cable[T.BER][healthy], other.cable[T.BER][healthy])
    assert not np.array_equal(a.link[T.CRC_FLIT], other.link[T.CRC_FLIT])


def test_counters_read_the_assessed_state():
    """Telemetry never builds a state of its own: its link states are the assessment's."""
    from model.assess import assess

    for q in (
        "fail=st3.sw2&flaky=gpu07-st4.sw0",
        "fail=st1.mc&update=st2",
        "fail=gpu07-st3.sw2.c1,ct05",
    ):
        s = sc(q)
        snap = T.counters(s, 2 * 86400.0)
        a = assess(s)
        assert np.array_equal(snap.state == T.INACTIVE, ~a.state.up)


_DIGEST = (
    "import hashlib, numpy as np; from model.scenario import parse_query; "
    "from model import telemetry as T; "
    "c = T.counters(parse_query('fail=st3.sw2&flaky=gpu07-st4.sw0').scenario, 90000.0); "
    "h = hashlib.sha256(); "
    "[h.update(np.ascontiguousarray(c.cable[k]).tobytes()) for k in T.METRICS]; "
    "print(h.hexdigest())"
)


def test_noise_does_not_depend_on_the_process_hash_seed():
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", _DIGEST],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        digests.add(out.stdout.strip())
    c = T.counters(sc("fail=st3.sw2&flaky=gpu07-st4.sw0"), 90000.0)
    h = hashlib.sha256()
    for k in T.METRICS:
        h.update(np.ascontiguousarray(c.cable[k]).tobytes())
    assert digests == {h.hexdigest()}


def test_counters_never_go_down():
    """Across onset, a flaky failure, a silent controller and day buckets."""
    s = sc("fail=st3.mc,gpu07-st2.sw1.c0,st5.sw2,gpu30&flaky=gpu09-st4.sw2,gpu10-st3.sw1.c1")
    times = [0, 30, 3599, 3600, 3601, 7200, 86399, 86400, 200000, T.FLAKY_TTF_S, 6 * 86400]
    snaps = [T.counters(s, t, onset_s=3600.0) for t in times]
    for name in T.COUNTERS:
        for a, b in itertools.pairwise(snaps):
            assert (b.cable[name] >= a.cable[name]).all(), name
            assert (b.link[name] >= a.link[name]).all(), name
    assert snaps[-1].link[T.CRC_FLIT].sum() > 0 and snaps[-1].link[T.RECOVERY].sum() > 0


def test_failed_components_are_inactive_and_frozen():
    s = sc("fail=gpu07-st3.sw2.c0,gpu08-st3.sw3,st5.sw1,gpu30")
    f = s.spec()
    onset = 3600.0
    early = T.counters(s, onset - 1, onset_s=onset)
    late = T.counters(s, 3 * 86400.0, onset_s=onset)
    later = T.counters(s, 4 * 86400.0, onset_s=onset)
    assert (early.state == T.ACTIVE).all()  # before onset the rack runs whole
    p_cable, p_link, p_chip = _plane(s, "gpu07-st3.sw2"), _plane(s, "gpu08-st3.sw3"), 17
    assert T.counters(s, 0).state[7, p_cable] == T.INACTIVE
    assert list(late.cable_state[7, p_cable]) == [T.INACTIVE, T.IDLE]
    assert (late.cable_state[8, p_link] == T.INACTIVE).all()
    assert plane_of(f, 5, 1) == p_chip
    assert (late.state[:, p_chip] == T.INACTIVE).all() and (late.state[30] == T.INACTIVE).all()
    down = late.state == T.INACTIVE
    assert down.sum() == 72 + 36 - 1 + 2
    assert (late.link[T.BANDWIDTH_GBS][down] == 0).all() and np.isnan(late.link[T.BER][down]).all()
    for name in T.COUNTERS:
        assert np.array_equal(late.link[name][down], later.link[name][down])
    up = ~down
    assert (later.link[T.BANDWIDTH][up] > late.link[T.BANDWIDTH][up]).all()
    # bandwidth: the offered load on every healthy link, bytes = rate x time
    rate = f.link_gbs_bidir * OFFERED_LOAD
    assert np.allclose(late.link[T.BANDWIDTH_GBS][up], rate)
    assert late.link[T.BANDWIDTH][8, 0] == pytest.approx(rate * 1e9 * 3 * 86400, rel=1e-12)
    assert late.link[T.BANDWIDTH][7, p_cable] == pytest.approx(rate * 1e9 * onset, rel=1e-12)
    assert T.attribute(early) == []
    assert T.attribute(late) == ["gpu30", "st5.sw1", "gpu08-st3.sw3", "gpu07-st3.sw2.c0"]


def test_a_silent_controller_makes_its_tray_stale_not_down():
    s = sc("fail=st3.mc")
    onset = 600.0
    a = T.counters(s, 86400.0, onset_s=onset)
    b = T.counters(s, 2 * 86400.0, onset_s=onset)
    stale = a.stale
    assert [int(p) for p in np.flatnonzero(stale)] == [8, 9, 10, 11]
    assert (a.last_seen_s[stale] == onset).all() and (a.last_seen_s[~stale] == 86400.0).all()
    assert (a.state == T.ACTIVE).all()  # the data plane is untouched
    for name in T.COUNTERS:
        assert np.array_equal(a.link[name][:, stale], b.link[name][:, stale])
    assert (b.link[T.BANDWIDTH][:, ~stale] > a.link[T.BANDWIDTH][:, ~stale]).all()
    assert (a.link[T.BANDWIDTH_GBS] > 0).all()
    assert T.attribute(a) == ["st3.mc"]


def test_planned_updates_are_not_faults():
    a = T.attribution(T.counters(sc("update=st2"), READ_AT))
    assert a.components == () and a.planned == ("st2.sw0", "st2.sw1", "st2.sw2", "st2.sw3")
    a = T.attribution(T.counters(sc("update=st2&fail=gpu07-st5.sw0.c1"), READ_AT))
    assert a.components == ("gpu07-st5.sw0.c1",)
    a = T.attribution(T.counters(sc("update=st2&off=issu&fail=gpu07"), READ_AT))
    assert a.components == () and len(a.planned) == 36
    assert "maintenance" in a.reason


def test_a_series_matches_the_snapshots():
    s = sc("fail=st3.mc,gpu07-st2.sw1.c0&flaky=gpu09-st4.sw2,gpu10-st3.sw1.c1")
    f = s.spec()
    onset = 7200.0
    for lid in ("gpu09-st4.sw2", "gpu10-st3.sw1", "gpu10-st3.sw1.c1", "gpu07-st2.sw1.c1"):
        ser = T.link_series(s, lid, 0, 6 * 86400, 12 * 3600, onset_s=onset)
        comp = parse_id(lid, f)
        g, p = comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])
        assert ser["id"] == lid and len(ser["t_s"]) == 13
        for i, t in enumerate(ser["t_s"]):
            snap = T.counters(s, t, onset_s=onset)
            if comp.kind == "link":
                src, state = snap.link, snap.state[g, p]
                idx = (g, p)
            else:
                src, state = snap.cable, snap.cable_state[g, p, comp.nums[3]]
                idx = (g, p, comp.nums[3])
            assert ser["state"][i] == T.STATE_NAMES[state]
            for name in T.METRICS:
                want = src[name][idx]
                got = ser[name][i]
                assert (got is None and np.isnan(want)) or got == want, (lid, t, name)


def test_snapshot_json_and_heatmap():
    s = sc("fail=st3.mc,gpu07-st2.sw1.c0&flaky=gpu09-st4.sw2")
    snap = T.counters(s, READ_AT)
    doc = snap.to_json()
    json.dumps(doc, allow_nan=False)
    assert doc["shape"] == {"gpus": 72, "planes": 36, "cables_per_link": 2}
    assert set(doc["link"]) == set(T.METRICS) == set(doc["units"])
    assert len(doc["link"][T.CRC_FLIT]) == 72 and len(doc["link"][T.CRC_FLIT][0]) == 36
    assert len(doc["cable"][T.BER][0][0]) == 2
    assert doc["stale"] == ["st3.sw0", "st3.sw1", "st3.sw2", "st3.sw3"]
    assert doc["projected_fail_s"] == {"gpu09-st4.sw2": T.FLAKY_TTF_S}
    assert doc["state"][7][_plane(s, "gpu07-st2.sw1")] == "INACTIVE"
    assert snap.heatmap(T.BER).shape == (72, 36) and snap.heatmap("state").sum() == 72 * 36 - 1
    light = snap.to_json(cables=False)
    assert light["cable"] is None and light["link"] == doc["link"]


def test_bad_clock_and_ids_are_refused():
    s = sc("fail=st3")
    with pytest.raises(ValueError):
        T.counters(s, -1.0)
    with pytest.raises(ValueError):
        T.counters(s, T.MAX_T_S + 1)
    with pytest.raises(ScenarioError):
        T.link_series(s, "st3.sw1", 0, 60, 60)
    with pytest.raises(ValueError):
        T.link_series(s, "gpu07-st3.sw1", 0, 86400, 1)
