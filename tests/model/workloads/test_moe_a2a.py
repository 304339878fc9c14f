"""MoE dispatch and combine: TensorRT-LLM's EP8 points, the floor's parts, fabric and faults."""

import pytest
from hypothesis import given, settings

from model import parse_query
from model.assess import assess
from model.errors import ScenarioError
from model.fabric.presets import ETH_X72, GB200_NVL72, VR_NVL72
from model.workloads import comm_params as P
from model.workloads import moe_a2a as M
from model.workloads.models import DEEPSEEK_R1, MOE_MODELS, QWEN3_235B
from tests.strategies import scenarios


def _op(q: str, op: str, tokens: int, ep: int = 8, precision: str = "bf16", m=DEEPSEEK_R1):
    a = assess(parse_query(q).scenario)
    return M.moe_op(op, tokens, m, precision, M.ep_fabric(a, ep))


# Must show (issue 12): within 10% of the four EP8 TensorRT-LLM points, GB200 NVL72, BF16.
@pytest.mark.parametrize("p", M.FITTED, ids=lambda p: f"{p.kind}-{p.tokens}")
def test_within_10_percent_of_tensorrt_llm_ep8(p):
    r = _op("fabric=gb200-nvl72", f"moe_{p.kind}", p.tokens, p.ep, p.precision)
    assert r["time_us"] == pytest.approx(p.published_us, rel=0.10)


def test_nvfp4_dispatch_is_a_check_the_fit_never_saw():
    """101.7 us at 2,048 tokens (NVFP4): the bytes model alone predicts it."""
    (p,) = M.NAMED_CHECK
    assert not p.fitted
    r = _op("fabric=gb200-nvl72", "moe_dispatch", p.tokens, p.ep, p.precision)
    assert r["time_us"] == pytest.approx(p.published_us, rel=0.10)
    assert r["bytes_per_token"] == 4032  # blog18's NVFP4 bytes per token at h = 7,168


def test_constants_are_the_fit():
    fit = M.fit(DEEPSEEK_R1, GB200_NVL72)
    for kind, (gpu, eta) in fit.items():
        assert P.A2A_GPU_US[kind] == pytest.approx(gpu, abs=0.006)
        assert P.A2A_ETA[kind] == pytest.approx(eta, abs=0.0006)
        assert 0.6 < eta < 0.9  # blog18: "~80% of the peak NVLink bandwidth" at EP8


def test_the_floor_is_gpu_side_and_the_wire_is_what_ethernet_triples():
    """At one token per rank the fabric-dependent parts are small; eth-x72 pays 3x on them,
    not on the GPU-side floor."""
    for op in M.OPS:
        nv = _op("", op, 1)
        eth = _op("fabric=eth-x72", op, 1)
        assert nv["parts_us"]["gpu"] == eth["parts_us"]["gpu"] == P.A2A_GPU_US[M.OPS[op]]
        assert eth["parts_us"]["wire"] == pytest.approx(3 * nv["parts_us"]["wire"])
        assert eth["parts_us"]["messages"] == pytest.approx(
            10 * nv["parts_us"]["messages"], rel=0.02
        )
        assert nv["parts_us"]["gpu"] > 10 * (nv["parts_us"]["wire"] + nv["parts_us"]["messages"])
        assert eth["time_us"] > nv["time_us"]
        assert eth["time_us"] < 1.2 * nv["time_us"]  # not 3x the whole floor
    assert ETH_X72.packet_rate_gpps_per_gpu == pytest.approx(
        0.1 * VR_NVL72.packet_rate_gpps_per_gpu
    )


def test_precision_scales_the_bulk():
    bf16 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048)
    fp8 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048, precision="fp8")
    fp4 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048, precision="nvfp4")
    assert bf16["time_us"] > fp8["time_us"] > fp4["time_us"]
    ratio = bf16["parts_us"]["data"] / fp4["parts_us"]["data"]
    # NVLink's 128 B packets: 112 for a BF16 token, 32 (31.5 rounded up) for an NVFP4 one
    assert ratio == pytest.approx(112 / 32, rel=1e-4)
    assert 14336 / 4032 > ratio
    with pytest.raises(ScenarioError) as e:
        _op("", "moe_combine", 8, precision="nvfp4")
    assert e.value.token == "precision"
    with pytest.raises(ScenarioError) as e:
        _op("", "moe_dispatch", 8, precision="int4")
    assert e.value.token == "precision"


def test_hidden_size_and_top_k_come_from_the_workload():
    ds = _op("", "moe_dispatch", 512)
    qw = _op("", "moe_dispatch", 512, m=QWEN3_235B)
    assert qw["hidden"] == 4096 and ds["hidden"] == 7168
    assert qw["parts_us"]["data"] / ds["parts_us"]["data"] == pytest.approx(4096 / 7168)


def test_ep_changes_the_remote_share_and_must_divide_the_experts():
    e8 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048, ep=8)
    e64 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048, ep=64)
    assert e64["remote_bytes"] / e8["remote_bytes"] == pytest.approx((63 / 64) / (7 / 8))
    assert e64["time_us"] > e8["time_us"]
    e2 = _op("fabric=gb200-nvl72", "moe_dispatch", 2048, ep=2)  # top-8 on 2 ranks: 2 targets
    assert e2["remote_bytes"] == pytest.approx(2048 * 2 * 0.5 * 14336)
    for m in MOE_MODELS.values():
        with pytest.raises(ScenarioError) as e:
            _op("", "moe_dispatch", 8, ep=72 if m.experts % 72 else 71, m=m)
        assert e.value.token == "ep"


def test_a_slow_rank_gates_everyone():
    """vr-nvl72 with a dead link on gpu03: an EP8 group including it moves its bulk at 35/36."""
    healthy = _op("", "moe_combine", 2048)
    slow = _op("fail=gpu03-st1.sw0", "moe_combine", 2048)
    assert slow["parts_us"]["data"] / healthy["parts_us"]["data"] == pytest.approx(36 / 35)
    spare = _op("fail=gpu09-st1.sw0", "moe_combine", 2048)  # gpu09 is not among the first 8
    assert spare["time_us"] == healthy["time_us"]


def test_ep_beyond_the_gpus_in_service_is_refused():
    a = assess(parse_query("fabric=gb200-nvl72&fail=gpu07-st1.sw0").scenario)
    M.ep_fabric(a, 64)
    with pytest.raises(ScenarioError) as e:
        M.ep_fabric(a, 72)
    assert e.value.token == "ep"


@settings(max_examples=40, deadline=None)
@given(scenarios())
def test_any_scenario_no_faster_than_its_healthy_rack(s):
    a = assess(s)
    if not a.job_runs or a.gpus_in_service < 8:
        return
    v, healthy = M.ep_fabric(a, 8), M.healthy_ep(a.fabric, 8)
    for op in M.OPS:
        got = M.moe_op(op, 512, DEEPSEEK_R1, "bf16", v)
        best = M.moe_op(op, 512, DEEPSEEK_R1, "bf16", healthy)
        assert got["time_us"] >= best["time_us"]
        assert got["parts_us"]["gpu"] == best["parts_us"]["gpu"]
