"""The domain assessment (model/multirack/assess.py): the seven features across racks,
partition and job fate, repairs, flaky links and updates, SHARP and latency following the
L2 tier, and evaluate's every block on a domain."""

import numpy as np
import pytest

from model import evaluate, parse_query, to_query
from model.assess import assess, assess_rack
from model.errors import ScenarioError
from model.evaluate import RESULT_KEYS
from model.kinds import ControlState, JobState, Meanwhile, RepairAction, RepairMode, Restart
from model.kinds import PartitionState as PS
from model.multirack.domains import VR_NVL576, VR_NVL1152, l2_tray_chips, l2_trays
from model.multirack.fate import unreachable_across
from model.multirack.state import rack_scenario
from model.multirack.tiers import latency, sharp_tflops


def _s(q: str):
    return parse_query(q).scenario


def _a(q: str):
    return assess(_s(q))


def _whole_plane(d, p: int) -> str:
    return ",".join(f"l2.p{p:02d}.s{k}" for k in range(d.l2_per_plane))


@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152])
def test_sharp_across_racks_needs_the_l2_chips_of_its_plane(d):
    healthy = sharp_tflops(_a(f"fabric={d.key}").state)
    assert healthy == pytest.approx(d.l1_chips * 3.6)
    # every L2 chip of plane 5 dead: no rack's plane-5 partial can reach the others
    dead = sharp_tflops(_a(f"fabric={d.key}&fail={_whole_plane(d, 5)}").state)
    assert dead == pytest.approx(healthy - d.racks * 3.6)
    # one of them left is enough: the L2 tier's reduction work is (R-1)/(71 S) of the L1's
    left = ",".join(f"l2.p05.s{k}" for k in range(1, d.l2_per_plane))
    assert sharp_tflops(_a(f"fabric={d.key}&fail={left}").state) == pytest.approx(healthy)
    # a rack's plane-5 trunk bundles all down: that rack's plane-5 L1 chip is out of it
    bundles = ",".join(f"r02.st2.sw1-l2.s{k}" for k in range(d.l2_per_plane))
    assert sharp_tflops(_a(f"fabric={d.key}&fail={bundles}").state) == pytest.approx(healthy - 3.6)
    # and evaluate reports the same number
    r = evaluate(_s(f"fabric={d.key}&fail={_whole_plane(d, 5)}"))
    assert r["sharp_tflops"] == pytest.approx(dead) and r["sharp_healthy_tflops"] == healthy


@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152])
def test_latency_waits_on_a_degraded_l2_group(d):
    base = latency(_a(f"fabric={d.key}").state)
    assert base["p50"] == pytest.approx(0.75, abs=1e-3)
    prev = base["p99"]
    for lost in range(1, d.l2_per_plane + 1):
        fail = ",".join(f"l2.p05.s{k}" for k in range(lost))
        lat = latency(_a(f"fabric={d.key}&fail={fail}").state)
        assert lat["p99"] >= prev - 1e-9  # losing more of the group never speeds a pair up
        prev = lat["p99"]
    assert prev > base["p99"] + 0.01  # the whole group gone: pairs across racks wait
    # a rack-local fault loads its own GPUs' ports, in-rack and across racks alike
    assert latency(_a(f"fabric={d.key}&fail=r03.st3").state)["p99"] > base["p99"]


def test_latency_matches_one_rack_for_pairs_in_a_rack():
    # with a single rack's worth of GPUs left, every pair is in one rack: one rack's figure
    d = VR_NVL576
    fail = ",".join(f"r{r:02d}" for r in range(2, d.racks + 1))
    lat = latency(_a(f"fabric={d.key}&fail={fail}").state)
    one = evaluate(_s(""))["latency_us"]
    assert lat["p50"] == pytest.approx(one["p50"], abs=2e-3)
    assert lat["p99"] == pytest.approx(one["p99"], abs=2e-3)


def test_healthy_racks_share_one_assessment_and_arrays_are_read_only():
    a = _a("fabric=vr-nvl1152&fail=r03.st2")
    assert a.racks[0] is a.racks[15] and a.racks[2] is not a.racks[0]
    assert a.racks[2] is assess_rack(rack_scenario(a.scenario, ("st2",)))
    st = a.state
    for arr in (st.up, st.efficiency, st.gpu_alive, st.l2_in_service, st.trunk_share, a.usable):
        assert not arr.flags.writeable
    assert assess(a.scenario) is a  # memoised on the frozen scenario


FATE = [
    # query, partition, job, restart
    ("fail=l2.p05.s1", PS.BANDWIDTH, JobState.DEGRADED, Restart.NONE),
    ("fail=l2.p05.s1&off=reroute", PS.UNHEALTHY, JobState.ABORTED, Restart.AFTER_REPAIR),
    ("fail=r03.st2.sw1-l2.s0", PS.BANDWIDTH, JobState.DEGRADED, Restart.NONE),
    ("fail=r03", PS.DEGRADED, JobState.ABORTED, Restart.AT_ONCE),
    ("fail=r03&off=partial-rack", PS.UNHEALTHY, JobState.ABORTED, Restart.AFTER_REPAIR),
    ("fail=r03.ct02", PS.DEGRADED, JobState.ABORTED, Restart.AT_ONCE),
    ("fail=r03.st3", PS.HEALTHY, JobState.DEGRADED, Restart.NONE),
    ("fail=r03.st3&off=reroute", PS.UNHEALTHY, JobState.ABORTED, Restart.AFTER_REPAIR),
    ("fail=r03.gpu05-st1.sw0&off=reroute", PS.DEGRADED, JobState.ABORTED, Restart.AT_ONCE),
    ("fail=r01.st1.mc", PS.HEALTHY, JobState.RUNNING, Restart.NONE),
    # the global fabric manager gone with r01, no peer, no fallback: an L2 fault waits
    (
        "fail=r01,l2.p00.s0&off=cp-resilience,sdr-fallback",
        PS.DEGRADED,
        JobState.ABORTED,
        Restart.AFTER_CONTROLLER,
    ),
    ("update=l2.t03", PS.BANDWIDTH, JobState.DEGRADED, Restart.NONE),
    ("update=r02.st4", PS.HEALTHY, JobState.DEGRADED, Restart.NONE),
    ("update=l2.t03&off=issu", PS.UNHEALTHY, JobState.STOPPED, Restart.AFTER_WINDOW),
    ("update=all&off=issu", PS.UNHEALTHY, JobState.STOPPED, Restart.AFTER_WINDOW),
    ("flaky=r02.gpu01-st1.sw0", PS.HEALTHY, JobState.DEGRADED, Restart.NONE),
    # a flaky trunk bundle replays, but its L1 chip's trunks have headroom (72 x 0.975 > 63)
    ("flaky=r03.st2.sw1-l2.s3", PS.HEALTHY, JobState.RUNNING, Restart.NONE),
    (
        "flaky=r03.st2.sw1-l2.s3&fail=r03.st2.sw1-l2.s0",
        PS.BANDWIDTH,
        JobState.DEGRADED,
        Restart.NONE,
    ),
]


@pytest.mark.parametrize("q,part,job,restart", FATE)
def test_partition_and_job_fate_on_a_domain(q, part, job, restart):
    a = _a(f"fabric=vr-nvl576&{q}")
    assert (a.partition.state, a.job.state, a.job.restart) == (part, job, restart)
    if job is JobState.DEGRADED:
        assert a.worst_gpu_tbs < 3.6


def test_a_rack_fault_on_a_domain_is_that_rack_s_own_fault():
    """The same rack-local fault gives its rack the single-rack answer, prefixed."""
    for local in ("st3", "gpu05-st1.sw0", "ct02", "st3.mc"):
        for off in ("", "reroute", "partial-rack,hot-swap"):
            q = f"fabric=vr-nvl576&fail=r04.{local}" + (f"&off={off}" if off else "")
            one = assess(_s(f"fail={local}" + (f"&off={off}" if off else "")))
            a = _a(q)
            assert a.racks[3].partition.state is one.partition.state
            reps = {r.id: r for r in a.repairs}
            for r in one.repairs:
                mine = reps[f"r04.{r.id}"]
                assert (mine.action, mine.mode, mine.repair_h, mine.rack_down_h) == (
                    r.action,
                    r.mode,
                    r.repair_h,
                    r.rack_down_h,
                )
                assert mine.to_json()["action"].endswith(
                    f"r04.{r.subject}" if r.subject else r.to_json()["action"]
                )


def test_control_plane_across_racks():
    a = _a("fabric=vr-nvl576&fail=r01")
    c = a.state.control
    assert c.global_state is ControlState.FAILED_OVER and c.leader == "r02.st1.mc"
    assert c.l2_authority and a.job.restart is Restart.AT_ONCE
    off = _a("fabric=vr-nvl576&fail=r01&off=cp-resilience").state.control
    assert off.global_state is ControlState.LOCAL_FALLBACK and off.leader is None
    assert off.l2_authority  # each L2 tray's controller routes its own chips
    frozen = _a("fabric=vr-nvl576&fail=r01&off=cp-resilience,sdr-fallback").state.control
    assert frozen.global_state is ControlState.FROZEN and not frozen.l2_authority
    # a rack's own control plane is that rack's (its leader on its st1.mc)
    r3 = _a("fabric=vr-nvl576&fail=r03.st1.mc&off=cp-resilience").state.control
    assert r3.global_state is ControlState.HEALTHY and r3.rack_states[2] is not None
    assert r3.state is ControlState.LOCAL_FALLBACK  # the worst of the racks' and the global
    assert "r03.st1.mc" in r3.controllers_down


def test_repairs_of_domain_parts():
    a = _a("fabric=vr-nvl576&fail=r03,l2.p05.s1,r02.st2.sw1-l2.s0")
    reps = {r.id: r for r in a.repairs}
    assert reps["r03"].action is RepairAction.RESTORE_RACK
    assert reps["r03"].meanwhile is Meanwhile.SMALLER and reps["r03"].rack_down_h == 0.0
    assert reps["l2.p05.s1"].action is RepairAction.SWAP_SWITCH_TRAY
    assert reps["l2.p05.s1"].mode is RepairMode.HOT_SWAP
    assert reps["l2.p05.s1"].to_json()["action"] == "swap switch tray l2.t06"  # planes 4-7, s1
    assert reps["r02.st2.sw1-l2.s0"].action is RepairAction.REPLACE_TRUNK
    cold = _a("fabric=vr-nvl576&fail=l2.p05.s1&off=hot-swap").repair_of("l2.p05.s1")
    assert cold.mode is RepairMode.RACK_DOWN and cold.rack_down_h > 0
    down = _a("fabric=vr-nvl576&fail=r03&off=partial-rack").repair_of("r03")
    assert down.meanwhile is Meanwhile.DOWN and down.rack_down_h == 24.0


def test_updates_drain_l1_and_l2_trays():
    d = VR_NVL576
    a = _a("fabric=vr-nvl576&update=l2.t06")
    st = a.state
    chips = l2_tray_chips(d, 6)
    assert chips == ((4, 1), (5, 1), (6, 1), (7, 1))
    assert all(not st.l2_in_service[c] for c in chips) and st.l2_in_service.sum() == 140
    assert st.updating == ("l2.t06",) and not st.l2_failed.any()
    assert a.repairs[-1].action is RepairAction.IN_SERVICE_UPDATE
    # drained on purpose: no reroute needed, so rerouting off still runs (degraded)
    assert _a("fabric=vr-nvl576&update=l2.t06&off=reroute").job.state is not JobState.ABORTED
    roll = _a("fabric=vr-nvl576&update=all")
    assert roll.state.updating == ("r01.st1",) and roll.state.rolling
    assert roll.repairs[-1].subject == str(8 * 9 + l2_trays(d))
    assert _a("fabric=vr-nvl576&update=all&fail=r01").state.updating == ("r02.st1",)
    # an L2 tray update with no routing authority for the L2 tier is deferred
    q = "fabric=vr-nvl576&fail=r01&off=cp-resilience,sdr-fallback&update=l2.t06"
    assert _a(q).state.update_blocked == ("l2.t06",)


def test_flaky_trunks_and_links_cost_bandwidth_not_health():
    a = _a("fabric=vr-nvl576&flaky=r03.st2.sw1-l2.s3")
    assert a.state.trunk_share[2, 5] == pytest.approx((3 + 0.9) / 4)
    assert a.partition.state is PS.HEALTHY
    r = evaluate(a.scenario)
    assert r["counts"]["trunk_bundles_flaky"] == 1
    assert "r03.st2.sw1-l2.s3" in r["telemetry"]["degrading"]
    unseen = evaluate(_s("fabric=vr-nvl576&flaky=r03.st2.sw1-l2.s3&off=telemetry"))
    assert unseen["telemetry"]["degrading_unseen"] == 1


def test_unreachable_across_racks_matches_brute_force():
    """The compressed check against every pair of live GPUs in two racks, densely."""
    rng = np.random.default_rng(16)
    d = VR_NVL576
    seen = set()
    for _ in range(16):
        k = int(rng.integers(1, 4))
        planes = [int(p) for p in rng.choice(36, size=k, replace=False)]
        fail = [f"l2.p{p:02d}.s{s}" for p in range(36) if p not in planes for s in range(4)]
        fail.append(f"r01.gpu00-st{planes[0] // 4 + 1}.sw{planes[0] % 4}")
        if rng.random() < 0.5:
            fail += [f"r02.gpu03-st{p // 4 + 1}.sw{p % 4}" for p in planes[1:]]
        st = _a(f"fabric={d.key}&fail={','.join(fail)}").state
        alive = st.gpu_alive
        cross = (st.up & st.cross_ok[st.rack_of])[alive].astype(int)
        rack = st.rack_of[alive]
        meet = cross @ cross.T
        brute = bool(((meet == 0) & (rack[:, None] != rack[None, :])).any())
        assert unreachable_across(st) == brute, fail
        seen.add(brute)
    assert seen == {True, False}  # both outcomes were tried


def test_every_block_on_both_domains():
    for q in (
        "fabric=vr-nvl576",
        "fabric=vr-nvl1152&fail=r15.st9,l2.p00.s0,r02&flaky=r03.gpu01-st1.sw0",
        "fabric=vr-nvl576&update=all&workload=qwen3-235b",
        "fabric=vr-nvl1152&fail=r03,l2.t05&workload=train",
    ):
        r = evaluate(_s(q))
        assert set(r) == set(RESULT_KEYS)
        assert r["not_modelled_yet"] == []  # nothing left refused on a domain
        for k in RESULT_KEYS:
            if k != "not_modelled_yet":
                assert r[k] is not None, (q, k)
        assert r["partition"]["state"] in tuple(PS) and r["job"]["state"] in tuple(JobState)
        assert r["control_plane"]["leader"] and len(r["features"]) == 7
        assert r["events"][-1].startswith("now:")


def test_the_job_down_delivers_nothing():
    r = evaluate(_s("fabric=vr-nvl576&fail=r03&off=partial-rack"))
    assert r["delivered_fraction"] == 0.0 and not r["decode"]["running"]
    assert r["decode"]["tokens_per_s_per_gpu"] == 0.0
    smaller = evaluate(_s("fabric=vr-nvl576&fail=r03"))
    assert 0.8 < smaller["delivered_fraction"] < 1.0  # 7 of 8 racks' GPUs, per installed GPU


@pytest.mark.parametrize(
    "q",
    [
        "fabric=vr-nvl576&fail=r03.st2.sw1-l2.s3,l2.t05,r02.gpu01&flaky=r01.gpu00-st1.sw0.c1",
        "fabric=vr-nvl1152&update=l2.t70,r16.st9&off=issu,telemetry&repair=window-7",
        "fabric=vr-nvl1152&flaky=r16.st9.sw3-l2.s7&workload=train",
    ],
)
def test_domain_queries_are_canonical(q):
    s = _s(q)
    assert parse_query(to_query(s)).scenario == s


@pytest.mark.parametrize(
    "q,token",
    [
        ("fabric=vr-nvl576&update=l2.p00.s1", "l2.p00.s1"),
        ("fabric=vr-nvl576&update=r01.gpu02", "r01.gpu02"),
        ("fabric=vr-nvl576&flaky=l2.t01", "l2.t01"),
        ("fabric=vr-nvl576&off=warp-drive", "warp-drive"),
    ],
)
def test_domain_keys_take_only_their_kinds(q, token):
    with pytest.raises(ScenarioError) as e:
        parse_query(q)
    assert e.value.token == token


def _random_domain_query(rng, d) -> str:
    """A seeded mix of every kind of domain part, flaky links and trunks, updates, switches."""
    r = lambda: f"r{int(rng.integers(1, d.racks + 1)):02d}"
    t = lambda: int(rng.integers(1, 10))
    makers = [
        lambda: f"{r()}.st{t()}",
        lambda: f"{r()}.st{t()}.sw{int(rng.integers(0, 4))}",
        lambda: f"{r()}.st{t()}.mc",
        lambda: f"{r()}.gpu{int(rng.integers(0, 72)):02d}",
        lambda: f"{r()}.ct{int(rng.integers(1, 19)):02d}",
        lambda: f"{r()}.gpu{int(rng.integers(0, 72)):02d}-st{t()}.sw{int(rng.integers(0, 4))}",
        lambda: r(),
        lambda: f"l2.p{int(rng.integers(0, 36)):02d}.s{int(rng.integers(0, d.l2_per_plane))}",
        lambda: f"l2.t{int(rng.integers(1, l2_trays(d) + 1)):02d}",
        lambda: (
            f"{r()}.st{t()}.sw{int(rng.integers(0, 4))}-l2.s{int(rng.integers(0, d.l2_per_plane))}"
        ),
    ]
    fail = {makers[int(rng.integers(0, len(makers)))]() for _ in range(int(rng.integers(1, 5)))}
    q = f"fabric={d.key}&fail={','.join(sorted(fail))}"
    if rng.random() < 0.3:
        q += f"&flaky={r()}.gpu{int(rng.integers(0, 72)):02d}-st{t()}.sw0"
    if rng.random() < 0.2:
        q += "&update=" + ("all" if rng.random() < 0.5 else f"l2.t{int(rng.integers(1, 10)):02d}")
    feats = ["cp-resilience", "partial-rack", "hot-swap", "sdr-fallback", "reroute", "issu"]
    off = [f for f in feats if rng.random() < 0.2]
    return q + (f"&off={','.join(off)}" if off else "")


@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152])
def test_random_domain_scenarios_answer_every_block_and_every_fault_s_story(d):
    from model.reliability.timeline import timeline

    rng = np.random.default_rng(1152 + d.racks)
    for _ in range(25):
        s = _s(_random_domain_query(rng, d))
        r = evaluate(s)
        a = assess(s)
        assert r["gpus_in_service"] == a.gpus_in_service <= r["counts"]["gpus_active"]
        assert r["job"]["state"] == a.job.state
        assert 0.0 <= r["delivered_fraction"] <= 1.0 + 1e-9
        assert r["sharp_tflops"] <= r["sharp_healthy_tflops"] + 1e-9
        if not a.job_runs:
            assert r["delivered_fraction"] == 0.0
        for fid in s.fail:
            t = timeline(s, fid)
            assert t["fault"] == fid
            assert t["series"][-1]["delivered"] == pytest.approx(t["before"], abs=1e-6)
            assert t["repair"]["repair_h"] > 0


def test_telemetry_on_a_domain_attributes_as_one_rack_does():
    on = evaluate(_s("fabric=vr-nvl576&fail=r02.st3,l2.p00.s0"))["telemetry"]
    one = evaluate(_s("fail=st3"))["telemetry"]
    assert on["attribution_possible"] and on["reason"] == one["reason"]
    assert on["attribution"] == ["r02." + x for x in one["attribution"]] + ["l2.p00.s0"]
    off = evaluate(_s("fabric=vr-nvl576&fail=r02.st3,l2.p00.s0&off=telemetry"))["telemetry"]
    one_off = evaluate(_s("fail=st3&off=telemetry"))["telemetry"]
    assert not off["attribution_possible"] and off["attribution"] == [] == off["failed"]
    assert off["reason"] == one_off["reason"] and off["visible"] == one_off["visible"]
    assert off["per_link_counters"] and "telemetry off" in off["feature"]  # issue 29
    healthy_off = evaluate(_s("fabric=vr-nvl576&off=telemetry"))["telemetry"]
    assert not healthy_off["attribution_possible"]
