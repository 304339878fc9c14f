"""MoE decode and training: the calibration's must-shows, the fault-costs-what-is-exposed
identity, the like-for-like comparisons, continuity of the NVLink-vs-Ethernet ratio."""

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from model import doc_workloads as T
from model import evaluate, parse_query
from model.assess import assess
from model.fabric.presets import FABRICS, GB200_NVL72
from model.workloads import calibrate as C
from model.workloads import checks as K
from model.workloads import decode as Dm
from model.workloads import decode_params as D
from model.workloads.collectives import deepseek_decode_bound
from model.workloads.hardware import (
    B200_ROCE,
    island_hardware,
    island_view,
    preset_hardware,
    scenario_hardware,
)
from model.workloads.models import B200, DEEPSEEK_R1, H800, MOE_MODELS, RUBIN
from model.workloads.step import profile_layer_us
from model.workloads.throughput import frontiers
from model.workloads.versus import ratio_along
from tests.strategies import scenarios

ROOT = Path(__file__).resolve().parents[3]


def _fr(q: str, workload: str = "deepseek-r1"):
    s = parse_query(q + ("&" if q else "") + f"workload={workload}").scenario
    return frontiers(assess(s))


# --- calibration -------------------------------------------------------------------------------


def test_the_one_fitted_term_is_the_fit():
    assert C.fit() == Dm.FITTED
    assert D.RESIDUAL_US == Dm.FITTED.residual_us
    assert set(Dm.TERM_NAMES) == {"residual_us"}  # one named residual, nothing else fitted


def test_every_point_within_25_percent_of_its_tpot():
    """One residual fitted, every other part measured: the five fitted rows are no longer
    matched by construction, so they and the checks are held to the same 25%."""
    rows = K.table()
    fitted = [r for r in rows if r["fitted"]]
    assert len(fitted) == len(C.FITTED_ROWS) == 5
    assert all(abs(r["error_pct"]) <= 25 for r in fitted), fitted
    tpot_checks = [r for r in rows if not r["fitted"] and r["unit"] == "ms TPOT"]
    assert len(tpot_checks) == len(C.CHECK_ROWS)
    assert all(abs(r["error_pct"]) <= 25 for r in tpot_checks), tpot_checks


def test_the_residual_is_at_most_a_quarter_of_the_step_at_50():
    shares = {r["tokens_per_s_per_user"]: r for r in K.term_shares()}
    assert K.answer()["step_shares"] == K.term_shares()  # /api/v1/calibration carries them
    assert set(shares) == set(K.SHARE_POINTS)
    assert shares[50.0]["residual"] <= 0.25
    for r in shares.values():  # each part's share of the step sums to the whole
        assert sum(r["parts"].values()) == pytest.approx(1.0, abs=1e-3)
        assert r["residual"] == pytest.approx(abs(r["parts"]["residual"]), abs=1e-4)


def test_the_measured_parts_come_from_deepseeks_profile():
    k = Dm.measured()
    # the core at 64 requests x 2 tokens x 4K context in 255 us: 58% of H800's BF16 peak,
    # below FlashMLA's best (66.7%); the routed experts' GEMMs at 36% of FP8 peak
    assert k.eta_attn == pytest.approx(0.579, abs=2e-3) and k.eta_attn < D.ETA_ATTN
    assert k.eta_gemm == pytest.approx(0.356, abs=2e-3) and k.eta_gemm < D.ETA_GEMM
    # the model's layer at the profile's point, times the measured gap, is the measured layer
    layer = profile_layer_us(DEEPSEEK_R1, H800, k)
    assert layer == pytest.approx(D.PROFILE_LAYERS_US / DEEPSEEK_R1.layers, rel=1e-9)
    assert 1.2 < k.layer_gap < 2.0 and k.outside_us_per_token > 0


def test_no_fitted_term_sits_on_a_cliff():
    sens = C.sensitivity()
    assert set(sens) == set(Dm.TERM_NAMES)
    assert all(0 < v <= 30 for v in sens.values()), sens


def test_efficiencies_are_the_best_published_kernels():
    # FlashMLA 3,000 of 3,350 GB/s; DeepGEMM 1,550 of 1,979 TFLOPS; FlashMLA 660 of 989
    assert D.ETA_HBM == pytest.approx(0.8955, abs=1e-3)
    assert D.ETA_GEMM == pytest.approx(0.7832, abs=1e-3)
    assert D.ETA_ATTN == pytest.approx(0.6673, abs=1e-3)


def test_gb200_over_b200_roce_at_125_within_25_percent_of_measured():
    iso = C.iso_model()
    assert iso["ratio"] == pytest.approx(4.39, rel=0.25)
    # both frontiers, not one: the B200 side at 125 tok/s/user runs EP inside its island,
    # or across islands only with two micro-batches hiding most of RoCE's all-to-all
    fr = Dm.frontier(
        DEEPSEEK_R1, island_hardware(B200_ROCE), Dm.Workload(DEEPSEEK_R1), np.array([125.0])
    )
    dep, bd = fr.deployment_at(0), fr.breakdown_at(0)
    if dep.ep > B200_ROCE.gpus_per_island:
        assert dep.overlap and bd["exposed"] < 0.5 * (bd["dispatch"] + bd["combine"])


def test_inferencex_curve_is_its_runs_joined_by_a_monotone_cubic():
    """The reading the runs-curve checks rest on: InferenceX's published runs, Pareto-kept and
    joined by a monotone cubic Hermite, give its published curve at every interactivity of its
    table within 7% on both systems (a wrong reading, e.g. a straight line in log space, misses
    GB200 at 125 tok/s/user by 18%)."""
    xs = np.array([float(x) for x, _, _ in C.ISO_CHECKS])
    for i, system in enumerate(("gb200-nvl72", "b200-roce")):
        got = C.runs_curve(system, xs)
        pub = np.array([row[1 + i] for row in C.ISO_CHECKS], dtype=float)
        assert np.all(np.abs(got / pub - 1) < 0.07), (system, got.round(), pub)


def test_the_monotone_cubic_keeps_its_runs_order_and_passes_through_them():
    from model.workloads import curve

    x, y = [17.8, 43.3, 91.0, 164.4, 207.3], [14659.4, 12659.7, 7698.0, 1149.1, 363.3]
    assert curve.monotone_cubic(x, y, x) == pytest.approx(y)
    fine = curve.monotone_cubic(x, y, np.linspace(x[0], x[-1], 400))
    assert np.all(np.diff(fine) <= 1e-9)  # falling data, falling curve: no overshoot
    assert np.isnan(curve.monotone_cubic(x, y, [10.0, 300.0])).all()  # never read beyond
    # a run beaten on both axes by another is not on the curve
    assert curve.pareto([(100, 5), (120, 6), (90, 9)]) == [(90, 9), (120, 6)]


def test_the_high_end_is_within_40_percent_of_inferencex():
    """Issue 29's must-show: at 150-200 tok/s/user each system's frontier (the best of every
    deployment the model tries) is within 40% of InferenceX's curve, and so is the model read
    InferenceX's way (its TPOT at each of InferenceX's runs, the runs joined as InferenceX
    joins them: runs_curve). Those points are checks, never fitted. The frontier over only the
    deployments InferenceX's recipes serve is reported beside them (docs/CALIBRATION.md); at
    175 it misses by more (-55% on GB200), where InferenceX's curve joins runs at 164 and 207
    tok/s/user with nothing run between, where the model's DEP32 reaches only ~169."""
    xs = np.array([float(x) for x, _, _ in C.ISO_CHECKS if 150 <= x <= 200])
    assert xs.tolist() == [150.0, 175.0, 200.0]
    at_runs = {s: C.runs_curve(s, xs, Dm.FITTED) for s in ("gb200-nvl72", "b200-roce")}
    for i, (x, gb, b2) in enumerate(r for r in C.ISO_CHECKS if 150 <= r[0] <= 200):
        every = C.iso_model(x=x)
        for system, pub in (("gb200-nvl72", gb), ("b200-roce", b2)):
            assert every[system] == pytest.approx(pub, rel=0.40), (x, system, every[system])
            assert at_runs[system][i] == pytest.approx(pub, rel=0.40), (x, system)


def test_the_recipes_are_what_inferencex_ran():
    """The recipe frontier tries exactly the shapes of RAN: GB200's TEP8, DEP4/16/32 with one
    or three drafts, in one batch."""
    labels = {d.label() for d in C.recipes("gb200-nvl72", 72)}
    assert "TEP8, MTP 3, FP8 KV" in labels and "EP32, MTP 1, FP8 KV" in labels
    assert all(not d.overlap for d in C.recipes("gb200-nvl72", 72))
    assert not any(d.ep in (64, 72) or d.mtp in (0, 2) for d in C.recipes("gb200-nvl72", 72))


def test_three_mtp_drafts_speed_one_request_up_as_tensorrt_llm_measured():
    """A check of the drafts' chain and the step's fixed part: TensorRT-LLM measures 2.16x
    for three drafts at one request; the model is within 25%, and one draft gains less."""
    row = K._mtp_point(Dm.FITTED)
    assert row["model"] == pytest.approx(2.16, rel=0.25)
    assert D.mtp_tokens(1) == pytest.approx(1.85)
    assert D.mtp_tokens(7) == pytest.approx(3.20, abs=0.01)  # the Nebius card's length


def test_every_inferencex_row_says_what_it_ran():
    """Each row's note names the model's deployment and the one InferenceX ran (its config):
    the rows that ran three MTP drafts or tensor-parallel attention say so."""
    rows = [r for r in K.table() if r["unit"] == "ms TPOT"]
    assert len(rows) == len(C.FITTED_ROWS) + len(C.CHECK_ROWS)
    assert all("; ran " in r["note"] for r in rows)
    conc180 = next(r for r in rows if "conc 180, 4P/32D" in r["point"])
    assert "DEP32, MTP 3, batch cap 4" in conc180["note"]


def test_deepseek_published_bound():
    # ~67 tok/s per user over 400 Gb/s InfiniBand, ~1,200 over GB200 NVL72 (900 GB/s one way)
    assert deepseek_decode_bound(50e9) == pytest.approx(67, rel=0.03)
    assert deepseek_decode_bound(900e9) == pytest.approx(1200, rel=0.03)


# --- a fault costs what the breakdown says is exposed ------------------------------------------


def test_a_fault_costs_exactly_the_exposed_communication_over_the_whole_sweep():
    m, w = DEEPSEEK_R1, Dm.Workload(DEEPSEEK_R1)
    healthy = preset_hardware(FABRICS["vr-nvl72"])
    faulted = scenario_hardware(assess(parse_query("fail=st3").scenario))
    checked = hidden = 0
    for dep in Dm.deployments(72):
        vh = healthy.groups_for(dep.ep)[0][0]
        full = [v for v, _ in faulted.groups_for(dep.ep) if v.ep == dep.ep]
        assert len(full) == 1  # one tray lost: every group alike
        vf = full[0]
        b = np.geomspace(1.0 / dep.ep, max(Dm.max_batch(m, RUBIN, w, dep), 1.0), 40)
        h = Dm.step(m, RUBIN, w, dep, vh, b)
        f = Dm.step(m, RUBIN, w, dep, vf, b)
        predicted = h["total"] - h["exposed"] + f["exposed"]
        np.testing.assert_allclose(f["total"], predicted, rtol=0.01)
        lost = 1 - f["tokens_per_s_per_gpu"] / h["tokens_per_s_per_gpu"]
        np.testing.assert_allclose(lost, 1 - h["total"] / predicted, atol=0.01)
        none = f["exposed"] == 0
        assert (lost[none] == 0).all()  # fully hidden communication: the fault costs nothing
        checked += len(b)
        hidden += int(none.sum())
    assert checked >= 900 and 0 < hidden < checked


def test_the_page_numbers_carry_the_exposed_share():
    d = evaluate(parse_query("fail=st3").scenario)["decode"]
    bd = d["breakdown"]
    assert d["exposed_share"] == bd["exposed_share"]
    assert sum(bd["parts_us"].values()) == pytest.approx(bd["step_us"], rel=1e-3)
    assert set(bd["parts_us"]) == set(Dm.BREAKDOWN_KEYS)


def test_decode_reacts_to_half_the_planes_where_communication_is_exposed():
    h, f = _fr(""), _fr("fail=st1,st2,st3,st4")
    ratio = f["scenario"].tokens_per_s_per_gpu / h["scenario"].tokens_per_s_per_gpu
    ok = np.isfinite(ratio)
    assert ratio[ok].min() < 0.8  # somewhere on the curve, losing 4 of 9 trays costs > 20%
    assert (ratio[ok] <= 1 + 1e-9).all()


# --- like for like, and the ratio's continuity -------------------------------------------------


@pytest.mark.parametrize("workload", sorted(MOE_MODELS))
def test_nvlink6_against_ethernet_is_continuous_and_never_behind(workload):
    fs = _fr("", workload)
    assert fs["baseline_key"] == "eth-x72"
    r = ratio_along(fs["scenario"], fs["baseline"], 20, 200)
    assert r["max_step"] is not None and r["max_step"] <= 1.5
    assert r["range"]["min"] >= 1 - 1e-9
    assert r["both_reach_to"] >= 198  # both reach the whole 20-200 window


def test_every_fabric_is_compared_with_the_same_gpu():
    for key in ("vr-nvl72", "gb200-nvl72", "eth-x72"):
        fs = _fr(f"fabric={key}")
        base = fs["baseline_key"]
        gpu = B200_ROCE.gpu if base == "b200-roce" else FABRICS[base].gpu
        assert gpu == FABRICS[key].gpu


def test_no_constant_2_3_in_the_model():
    pattern = re.compile(r"(?<![\d.])2\.3(?![\d])")
    for path in (ROOT / "model").rglob("*.py"):
        for line in path.read_text().splitlines():
            code = line.split("#", 1)[0]
            assert not pattern.search(code), f"{path}: {line}"


def test_b200_roce_crosses_the_nic_only_beyond_an_island():
    inside, across = island_view(B200_ROCE, 8), island_view(B200_ROCE, 16)
    assert inside.peers_far == 0 and inside.cross is None
    assert across.peers_near == 7 and across.peers_far == 8
    a = C.row_tpot(C.CHECK_ROWS[4])[0]  # a B200 row at EP8
    assert a > 0
    t8 = Dm.step(
        DEEPSEEK_R1,
        B200,
        Dm.Workload(DEEPSEEK_R1),
        Dm.Deployment(8, 0, "fp8", False),
        inside,
        np.array([128.0]),
    )
    t16 = Dm.step(
        DEEPSEEK_R1,
        B200,
        Dm.Workload(DEEPSEEK_R1),
        Dm.Deployment(16, 0, "fp8", False),
        across,
        np.array([128.0]),
    )
    assert t16["dispatch"][0] > 3 * t8["dispatch"][0]


def test_gb200_frontier_uses_wide_ep_where_the_network_matters():
    fr = _fr("fabric=gb200-nvl72")["scenario"]
    i = int(np.argmin(np.abs(fr.x - 125)))
    assert fr.deployment_at(i).ep > 8


def test_small_messages_are_packet_rate_bound_on_ethernet():
    # the flags and per-token metadata are one packet each: a tenth the packet rate costs 10x
    vr = preset_hardware(FABRICS["vr-nvl72"]).groups_for(8)[0][0]
    eth = preset_hardware(FABRICS["eth-x72"]).groups_for(8)[0][0]
    from model.workloads.moe_a2a import parts_us

    a, b = (parts_us("dispatch", 1, DEEPSEEK_R1, "nvfp4", v)["messages"] for v in (vr, eth))
    assert b / a == pytest.approx(10, rel=1e-9)
    big = [parts_us("combine", 2048, DEEPSEEK_R1, "bf16", v)["data"] for v in (vr, eth)]
    assert big[1] / big[0] == pytest.approx(1, rel=0.01)  # bulk: the same bandwidth


def test_one_switch_tray_costs_at_most_its_share():
    fs = _fr("fail=st3")
    ratio = fs["scenario"].tokens_per_s_per_gpu / fs["healthy"].tokens_per_s_per_gpu
    ok = np.isfinite(ratio)
    assert (ratio[ok] >= 1 - 4 / 36 - 1e-9).all()
    assert (ratio[ok] <= 1 + 1e-9).all()


def test_gb200_healthy_frontier_is_its_own_preset():
    assert _fr("fabric=gb200-nvl72")["healthy"] is Dm.cached_frontier(
        DEEPSEEK_R1, preset_hardware(GB200_NVL72), Dm.Workload(DEEPSEEK_R1)
    )


def test_lost_gpus_cost_their_share_at_the_reference():
    """Four GPUs lost cost their share: the 68 left serve as one elastic EP68 group, whose
    GPUs each decode a little more than EP72's (a smaller group's all-to-all and load
    scatter), never more than 0.5% more; beyond their share only where the deployment
    changed, which the answer names."""
    r = evaluate(parse_query("fail=ct02").scenario)["decode"]
    assert r["deployment"]["label"].startswith("EP68")
    assert r["vs_healthy"] <= 68 / 72 * 1.005
    if r["vs_healthy"] < 68 / 72 * 0.98:
        assert r["deployment"] != r["healthy_breakdown"]["deployment"]
        assert r["deployment"]["ep"] < r["healthy_breakdown"]["deployment"]["ep"]


def test_aborted_job_delivers_nothing_until_repair():
    r = evaluate(parse_query("fail=st3&off=reroute").scenario)
    assert r["decode"]["tokens_per_s_per_gpu"] == 0
    assert r["training"]["vs_healthy"] == 0


def test_lost_chip_takes_its_share_of_in_network_reduction():
    h = evaluate(parse_query("workload=train").scenario)["training"]
    c = evaluate(parse_query("workload=train&fail=st3.sw1").scenario)["training"]
    assert h["all_reduce_algorithm"] == "nvls"
    assert c["nvls_all_reduce_s"] > h["nvls_all_reduce_s"]
    assert c["nvls_all_reduce_s"] / h["nvls_all_reduce_s"] == pytest.approx(36 / 35, rel=0.01)
    eth = evaluate(parse_query("fabric=eth-x72&workload=train").scenario)["training"]
    assert eth["all_reduce_algorithm"] == "ring" and eth["nvls_all_reduce_s"] is None
    assert c["vs_healthy"] < 1


@settings(max_examples=60, deadline=None)
@given(scenarios(fabric="vr-nvl72", max_faults=6), scenarios(fabric="vr-nvl72", max_faults=3))
def test_more_faults_never_raise_throughput(a, b):
    more = parse_query(
        f"fabric=vr-nvl72&fail={','.join(a.fail + b.fail)}&workload={a.workload}"
        + (f"&off={','.join(a.off)}" if a.off else "")
    ).scenario
    fewer = parse_query(
        f"fabric=vr-nvl72&fail={','.join(a.fail)}&workload={a.workload}"
        + (f"&off={','.join(a.off)}" if a.off else "")
    ).scenario
    r1, r2 = evaluate(fewer), evaluate(more)
    assert r2["decode"]["tokens_per_s_per_gpu"] <= r1["decode"]["tokens_per_s_per_gpu"] + 1e-6
    assert r2["training"]["vs_healthy"] <= r1["training"]["vs_healthy"] + 1e-9
    assert r2["bandwidth"]["aggregate_tbs"] <= r1["bandwidth"]["aggregate_tbs"] + 1e-9
    assert r2["goodput"]["fraction"] <= r1["goodput"]["fraction"] + 1e-12


def test_calibration_doc_carries_the_decode_tables_the_model_prints():
    doc = (ROOT / "docs" / "CALIBRATION.md").read_text()
    assert T.decode_markdown() in doc


@pytest.mark.parametrize("fabric", ["vr-nvl72", "gb200-nvl72"])
def test_a_bf16_kv_cache_never_beats_fp8_so_the_frontier_leaves_it_out(fabric):
    m, w = DEEPSEEK_R1, Dm.Workload(DEEPSEEK_R1)
    hw = preset_hardware(FABRICS[fabric])
    every = Dm.frontier(m, hw, w, only=Dm.deployments(72, dominated=True))
    pruned = Dm.frontier(m, hw, w)
    assert all(d.kv == "fp8" for d in pruned.deployments)
    assert any(d.kv == "bf16" for d in every.deployments)
    # at every batch both hold, a BF16 step is no faster than the FP8 one, and holds fewer
    gpu = hw.gpu
    for dep in Dm.deployments(72):
        bf = replace(dep, kv="bf16")
        top = Dm.max_batch(m, gpu, w, bf)
        assert top <= Dm.max_batch(m, gpu, w, dep)
        if top < 1.0 / dep.ep:
            continue
        v = hw.groups_for(dep.ep)[0][0]
        b = np.geomspace(1.0 / dep.ep, top, 24)
        t8, t16 = Dm.step(m, gpu, w, dep, v, b)["total"], Dm.step(m, gpu, w, bf, v, b)["total"]
        assert (t16 >= t8 * (1 - 1e-12)).all()
    # on the frontier only the log-log interpolation differs: BF16's sweep spans half the
    # batches with as many points, so it is drawn a little tighter to the true curve
    np.testing.assert_allclose(
        every.tokens_per_s_per_gpu, pruned.tokens_per_s_per_gpu, rtol=1.5e-2, equal_nan=True
    )


@pytest.mark.parametrize("q", ["", "fail=st1,st2,st3,st4", "fabric=gb200-nvl72&fail=ct03"])
def test_one_pass_interpolation_equals_the_per_sweep_one(q):
    """frontier() reads the breakdown with _at_keys and the groups with _at_many: both must
    equal _at, key by key and row by row, including below and above a sweep's range."""
    fs = _fr(q)
    hw = fs["hardware"]
    log_x = np.log(np.concatenate([[0.5], Dm.GRID, [5000.0]]))
    checked = 0
    for ep, groups in hw.groups:
        for dep in Dm.deployments(hw.max_ep):
            if dep.ep != ep:
                continue
            knobs = ((dep.mtp, dep.kv, dep.overlap, dep.tp),)
            views = tuple(v for v, _ in groups if v.ep == ep)
            sweeps = [
                Dm._sweeps(DEEPSEEK_R1, hw.gpu, Dm.Workload(DEEPSEEK_R1), ep, knobs, v, Dm.FITTED)[
                    0
                ]
                for v in views
            ]
            sweeps = [c for c in sweeps if c is not None]
            if not sweeps:
                continue
            many = Dm._at_many(sweeps, log_x, "tokens_per_s_per_gpu")
            for row, c in zip(many, sweeps, strict=True):
                np.testing.assert_allclose(
                    row, Dm._at(c, log_x, "tokens_per_s_per_gpu"), rtol=1e-12
                )
                keyed = Dm._at_keys(c, log_x)
                for k, got in zip(Dm.SWEEP_KEYS, keyed, strict=True):
                    np.testing.assert_allclose(got, Dm._at(c, log_x, k), rtol=1e-12)
                checked += 1
    assert checked > 10


@pytest.mark.parametrize(
    "q", ["", "fail=st1,st2,st3,st4", "fabric=gb200-nvl72", "fail=st3&fabric=eth-x72"]
)
def test_breakdown_at_one_point_equals_the_whole_breakdown(q):
    """evaluate() reads the breakdown at one point (Frontier.breakdown_at), the decode curves
    read it whole (Frontier.breakdown): the two must agree to the last bit at every point,
    NaN where no deployment reaches it."""
    fr = _fr(q)["scenario"]
    whole = fr.breakdown
    assert set(whole) == set(Dm.SWEEP_KEYS)
    reached = 0
    for i in range(len(fr.x)):
        one = fr.breakdown_at(i)
        for k in Dm.SWEEP_KEYS:
            assert one[k] == whole[k][i] or (np.isnan(one[k]) and np.isnan(whole[k][i])), (i, k)
        reached += fr.choice[i] >= 0
    assert reached > 50
    assert not whole["total"].flags.writeable
