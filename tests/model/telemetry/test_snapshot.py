"""Per-link counters over the simulated clock, one link's series and the health rule
(model/telemetry/snapshot.py and lanes.py): seeded, monotone, as DCGM names them."""

import hashlib
import itertools
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from model import telemetry as T
from model.errors import ScenarioError
from model.ids import parse_id, plane_of
from model.params import OFFERED_LOAD
from model.scenario import Scenario
from model.telemetry.fields import (
    FLAKY_RECOVERY_PER_S,
    GB200_CASE_RECOVERIES,
    PORT_RECOVERY,
    PORT_TX,
    flaky_recoveries_by,
)
from tests.model.telemetry.helpers import READ_AT, ROOT, sc


# --- counters --------------------------------------------------------------------------------
def test_flaky_recoveries_follow_the_public_gb200_case():
    """40 degrading links: ~505 recoveries over the five-day life (the public case's lifetime
    count) and ~3 per 21 minutes at its end, within 4-5 sigma; healthy links have none."""
    links = [f"gpu{g:02d}-st{g % 9 + 1}.sw{g % 4}" for g in range(40)]
    s = sc("flaky=" + ",".join(links))
    t = T.FLAKY_TTF_S - 1.0
    rec = T.counters(s, t).link[T.RECOVERY]
    per_link = np.array([rec[parse_id(x, s.spec()).nums[0], _plane(s, x)] for x in links])
    mu = flaky_recoveries_by(t)
    assert mu == pytest.approx(GB200_CASE_RECOVERIES, rel=1e-3)
    assert np.all(np.abs(per_link - mu) < 5 * math.sqrt(mu))
    assert abs(per_link.sum() - mu * len(links)) < 4 * math.sqrt(mu * len(links))
    assert rec.sum() == per_link.sum()  # healthy links: no recoveries at all
    # The rate at the end of life: 3 per 21 minutes (the ramp's derivative at TTF).
    dt = 60.0
    end_rate = (flaky_recoveries_by(T.FLAKY_TTF_S) - flaky_recoveries_by(T.FLAKY_TTF_S - dt)) / dt
    assert end_rate * 21 * 60 == pytest.approx(3.0, rel=0.01)
    assert FLAKY_RECOVERY_PER_S == pytest.approx(3 / 1260)


def test_flaky_recoveries_are_a_poisson_process():
    """Counts per 21-minute window over the last two days: the ramp's expectation each
    window, with Poisson scatter (index of dispersion ~1)."""
    s = sc("flaky=gpu07-st3.sw2")
    t0 = T.FLAKY_TTF_S - 2 * 86400
    ser = T.link_series(s, "gpu07-st3.sw2", t0, T.FLAKY_TTF_S - 60, 21 * 60)
    ts = np.array(ser["t_s"])
    got = np.diff(ser[T.RECOVERY])
    want = np.diff([flaky_recoveries_by(x) for x in ts])
    n = got.size  # 137 windows
    assert 2.2 < want.mean() < 3.0 and abs(got.mean() - want.mean()) < 4 * math.sqrt(3.0 / n)
    assert 0.7 < ((got - want) ** 2 / want).mean() < 1.4


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


def test_counters_are_deterministic_and_differ_only_where_the_faults_do():
    """The lanes' own noise (static BER, reading jitter, background CRC errors) is seeded by
    the fabric: two scenarios read the same on every lane their faults leave alone, and
    differ where they do not (a degrading lane's events are the scenario's own)."""
    s = sc("fail=st3.sw2&flaky=gpu07-st4.sw0")
    a, b = T.counters(s, 2 * 86400.0), T.counters(s, 2 * 86400.0)
    for name in T.METRICS:
        assert np.array_equal(a.cable[name], b.cable[name], equal_nan=True)
    other = T.counters(sc("fail=st3.sw1&flaky=gpu07-st4.sw1"), 2 * 86400.0)
    both = (a.cable_state == T.ACTIVE) & (other.cable_state == T.ACTIVE)
    assert both.sum() > 4000
    # untouched lanes: every counter and reading the same in both scenarios
    plain = both.copy()
    for link in ("gpu07-st4.sw0", "gpu07-st4.sw1"):
        g, tray, chip = parse_id(link, a.fabric).nums
        plain[g, plane_of(a.fabric, tray, chip), :] = False
    assert plain.sum() == both.sum() - 4
    for name in (T.BER, T.CRC_FLIT, T.CRC_DATA, T.BANDWIDTH):
        assert np.array_equal(a.cable[name][plain], other.cable[name][plain])
    # where the faults differ, so do the counters: sw2's plane is down in one, sw1's in the other
    k = a.fabric.chips_per_tray
    assert (a.cable_state[:, 2 * k + 2] != T.ACTIVE).all()
    assert (other.cable_state[:, 2 * k + 2] == T.ACTIVE).all()
    assert not np.array_equal(a.link[T.RECOVERY], other.link[T.RECOVERY])
    # a different fabric draws its own noise
    gb200 = T.counters(sc("fabric=gb200-nvl72&on=telemetry"), 2 * 86400.0)
    n = min(gb200.cable[T.BER].size, a.cable[T.BER].size)
    assert not np.array_equal(gb200.cable[T.BER].ravel()[:n], a.cable[T.BER].ravel()[:n])


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
    "import hashlib, numpy as np; from model.query import parse_query; "
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
    """The switch side (ports, lanes) of the tray stops at its last report; the GPU side, read
    from the GPU driver, keeps counting on every plane."""
    s = sc("fail=st3.mc")
    onset = 600.0
    a = T.counters(s, 86400.0, onset_s=onset)
    b = T.counters(s, 2 * 86400.0, onset_s=onset)
    stale = a.stale
    assert [int(p) for p in np.flatnonzero(stale)] == [8, 9, 10, 11]
    assert (a.last_seen_s[stale] == onset).all() and (a.last_seen_s[~stale] == 86400.0).all()
    assert (a.state == T.ACTIVE).all()  # the data plane is untouched
    for name in T.COUNTERS:
        assert np.array_equal(a.cable[name][:, stale], b.cable[name][:, stale])
    for name in (PORT_RECOVERY, PORT_TX):
        assert np.array_equal(a.port[name][:, stale], b.port[name][:, stale])
    assert (b.port[PORT_TX][:, ~stale] > a.port[PORT_TX][:, ~stale]).all()
    assert (b.link[T.BANDWIDTH] > a.link[T.BANDWIDTH]).all()  # every plane, stale or not
    assert (a.link[T.BANDWIDTH_GBS] > 0).all()
    assert T.attribute(a) == ["st3.mc"]


def test_gpu_side_counters_stay_fresh_under_a_silent_controller():
    """The issue's case: st3's controller down, a degrading cable on st3. The link's GPU-side
    replays rise over the two hours (they used to stay at 0), the per-GPU total is the sum of
    the GPU's links, and attribution names the link, not a cable from a frozen reading."""
    s = sc("fail=st3.mc&flaky=gpu07-st3.sw2.c1")
    ser = T.link_series(s, "gpu07-st3.sw2", 0, 7200, 600)
    assert ser[T.REPLAY][-1] > 50 and not any(ser["stale"])
    assert np.all(np.diff(ser[T.REPLAY]) >= 0) and ser[T.REPLAY][-1] > ser[T.REPLAY][6]
    cab = T.link_series(s, "gpu07-st3.sw2.c1", 0, 7200, 600)
    assert all(cab["stale"]) and cab[T.REPLAY][-1] == 0  # the lane view: as last reported
    snap = T.counters(s, 7200)
    for k, name in T.GPU_TOTALS.items():
        assert np.array_equal(snap.gpu[name], snap.link[k].sum(axis=1))
    a = T.attribution(snap)
    assert a.components == ("st3.mc", "gpu07-st3.sw2")
    assert any("cannot be told" in m for m in a.masked)


def test_fabric_health_mask():
    """NVML's mask: 0xAA healthy (every condition FALSE); DEGRADED_BW TRUE on a GPU with a
    link down (Limited Capacity); ROUTE_UNHEALTHY too when rerouting is off (Unhealthy); a
    GPU that is gone reports nothing."""
    h = T.counters(sc(""), READ_AT).health
    assert (h.mask == 0xAA).all() and (h.summary == 1).all() and (h.state == 3).all()
    h = T.counters(sc("fail=gpu07-st3.sw2.c0,gpu09"), READ_AT).health
    assert h.mask[7] == 0xA9 and h.summary[7] == 3 and h.condition("DEGRADED_BW")[7] == 1
    assert h.mask[8] == 0xAA and h.mask[9] == 0 and h.summary[9] == 0 and h.state[9] == 1
    h = T.counters(sc("fail=gpu07-st3.sw2&off=reroute"), READ_AT).health
    assert h.condition("ROUTE_UNHEALTHY")[7] == 1 and h.summary[7] == 2
    assert h.mask[7] == 0x99  # DEGRADED_BW and ROUTE_UNHEALTHY TRUE, the others FALSE


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
    assert len(doc["lane"][T.LANE_BER][0][0]) == 2
    lane_names = {T.LANE_BER, T.LANE_STATE, *(T.lane_crc_name(c) for c in range(2))}
    assert set(doc["lane"]) == lane_names
    assert (
        set(doc["gpu"]) == set(T.GPU_TOTALS.values())
        and len(doc["gpu"][T.GPU_TOTALS[T.REPLAY]]) == 72
    )
    assert doc["stale"] == ["st3.sw0", "st3.sw1", "st3.sw2", "st3.sw3"]
    assert doc["projected_fail_s"] == {"gpu09-st4.sw2": T.FLAKY_TTF_S}
    assert doc["state"][7][_plane(s, "gpu07-st2.sw1")] == "INACTIVE"
    assert snap.heatmap(T.BER).shape == (72, 36) and snap.heatmap("state").sum() == 72 * 36 - 1
    light = snap.to_json(cables=False)
    assert light["lane"] is None and light["link"] == doc["link"]


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
