"""NCCL collectives: the FACTS.md §4 calibration, nccl-tests' bus factors, and what faults do."""

import numpy as np
import pytest
from hypothesis import given, settings

from model import parse_query
from model.assess import assess
from model.errors import ScenarioError
from model.fabric.presets import ETH_X72, GB200_NVL72, VR_NVL72
from model.workloads import comm_params as P
from model.workloads import nccl
from tests.strategies import scenarios

GIB = 1 << 30


def _job(q: str, ranks: int | None = None) -> nccl.JobFabric:
    a = assess(parse_query(q).scenario)
    return nccl.job_fabric(a, ranks or a.gpus_in_service)


def _busbw(q: str, nbytes: int, op: str = "all_reduce", algo: str = "auto", ranks=None):
    return nccl.collective(op, algo, nbytes, _job(q, ranks))


# Must show (issue 12): within 5% of CoreWeave's full-rack all_reduce busbw (FACTS.md §4).
@pytest.mark.parametrize(
    "nbytes,lo,hi",
    [
        (GIB // 2, 586.0, 586.0),
        (2 * GIB, 758.0, 758.0),
        (4 * GIB, 835.0, 847.0),
        (8 * GIB, 835.0, 847.0),
    ],
)
def test_full_gb200_rack_all_reduce_within_5_percent(nbytes, lo, hi):
    r = _busbw("fabric=gb200-nvl72", nbytes)
    assert r["ranks"] == 72 and r["algo"] == "nvls"
    assert lo * 0.95 <= r["busbw_gbs"] <= hi * 1.05, r


# Must show: NVLS over ring between 1.15x and 1.35x on an 8-GPU NVSwitch job.
@pytest.mark.parametrize("nbytes", [2 * GIB, 8 * GIB, 16 * GIB])
def test_nvls_gain_on_8_gpus(nbytes):
    ring = _busbw("fabric=gb200-nvl72", nbytes, algo="ring", ranks=8)
    nvls = _busbw("fabric=gb200-nvl72", nbytes, algo="nvls", ranks=8)
    gain = nvls["busbw_gbs"] / ring["busbw_gbs"]
    assert 1.15 <= gain <= 1.35, gain
    assert ring["algo"] == "ring" and nvls["algo"] == "nvls"


def test_eta_nvls_is_the_fit():
    """The constants are what the fit gives (a drift fails here); at 72 ranks the share sits
    below NCCL's own 0.74 (the measured rack does not reach NCCL's tuner), at 8 above it."""
    eta, k = nccl.fit_nvls(GB200_NVL72)
    assert eta == pytest.approx(P.ETA_NVLS, abs=0.0015)
    assert k == pytest.approx(P.NVLS_GROUP_K, abs=0.0003)
    assert nccl.eta_nvls(72) < 0.74 < nccl.eta_nvls(8)


def test_ring_reaches_nccl_effective_bandwidth():
    """Ring at large sizes: busbw tends to 18 x 40.1 GB/s (NCCL topo.h), never above."""
    r = _busbw("fabric=gb200-nvl72", 64 * GIB - 1, algo="ring", ranks=8)
    assert r["protocol"] == "Simple"
    assert 0.98 * 18 * 40.1 < r["busbw_gbs"] < 18 * 40.1
    # and the nccl-tests factor is the ratio of the two bandwidths reported
    assert r["busbw_gbs"] / r["algbw_gbs"] == pytest.approx(2 * 7 / 8, rel=1e-4)


@pytest.mark.parametrize(
    "op,factor",
    [
        ("all_reduce", 2 * 71 / 72),
        ("all_gather", 71 / 72),
        ("reduce_scatter", 71 / 72),
        ("all_to_all", 71 / 72),
    ],
)
def test_bus_factors_are_nccl_tests(op, factor):
    r = _busbw("fabric=gb200-nvl72", GIB, op=op)
    assert r["bus_factor"] == pytest.approx(factor)
    assert r["busbw_gbs"] == pytest.approx(r["algbw_gbs"] * factor, rel=1e-4)
    assert r["algbw_gbs"] == pytest.approx(GIB / (r["time_us"] * 1e3), rel=1e-4)


def test_small_messages_take_a_low_latency_protocol():
    small = _busbw("fabric=gb200-nvl72", 8, ranks=8)
    big = _busbw("fabric=gb200-nvl72", 8 * GIB, ranks=8)
    assert small["algo"] == "ring" and small["protocol"] == "LL"
    assert big["algo"] == "nvls"
    assert small["time_us"] < big["time_us"]


def test_time_grows_with_size_and_busbw_ramps():
    sizes = [1 << k for k in range(3, 36)]
    jf = _job("fabric=gb200-nvl72")
    rs = [nccl.collective("all_reduce", "auto", s, jf) for s in sizes]
    t = np.array([r["time_us"] for r in rs])
    bw = np.array([r["busbw_gbs"] for r in rs])
    assert (np.diff(t) >= 0).all() and t[-1] > 1000 * t[0]
    assert bw[-1] > 10 * bw[10]


def test_a_lost_switch_tray_costs_its_planes():
    """vr-nvl72 with st3 down: 32 of 36 planes, so ring and NVLS lose 4/36 at large sizes."""
    healthy = _busbw("", 8 * GIB)
    st3 = _busbw("fail=st3", 8 * GIB)
    assert st3["link_gbs"]["nvls_planes"] == 32
    assert st3["busbw_gbs"] / healthy["busbw_gbs"] == pytest.approx(32 / 36, rel=0.02)


def test_one_dead_link_takes_its_plane_out_of_nvls_for_every_rank():
    """A rank's dead link: the ring's weakest hop loses one link; NVLS loses that plane for the
    whole job; a job on the first 7 GPUs (gpu07 not among them) keeps every plane."""
    jf = _job("fail=gpu07-st1.sw0")
    assert jf.nvls_planes == 35 and jf.ring_gbs == pytest.approx(35 * 40.1)
    small = _job("fail=gpu07-st1.sw0", ranks=7)
    assert small.nvls_planes == 36 and small.ring_gbs == pytest.approx(36 * 40.1)


def test_ethernet_has_no_nvls_and_pays_latency_on_the_wire_only():
    eth = _job("fabric=eth-x72")
    assert eth.nvls_gbs == 0
    with pytest.raises(ScenarioError) as e:
        nccl.collective("all_reduce", "nvls", GIB, eth)
    assert e.value.token == "algo"
    vr = _job("")
    # same per-GPU bandwidth by default; an 8-byte all-reduce pays 3x on one hop a step only
    t_vr, proto_vr = nccl.ring_time_us("all_reduce", 8, vr)
    t_eth, proto_eth = nccl.ring_time_us("all_reduce", 8, eth)
    steps = 2 * 71
    wire = 2 * 0.35  # (3 - 1) x NVLink's one-way latency, per step
    assert proto_vr == proto_eth == "LL"
    assert t_eth - t_vr == pytest.approx(steps * wire, rel=1e-6)
    assert ETH_X72.latency_one_way_us == pytest.approx(3 * VR_NVL72.latency_one_way_us)


def test_ranks_beyond_those_in_service_are_refused():
    a = assess(parse_query("fabric=gb200-nvl72&fail=gpu07-st1.sw0").scenario)
    assert a.gpus_in_service == 71  # full-bandwidth mode parks gpu07
    with pytest.raises(ScenarioError) as e:
        nccl.job_fabric(a, 72)
    assert e.value.token == "ranks"


@settings(max_examples=40, deadline=None)
@given(scenarios())
def test_any_scenario_no_faster_than_its_healthy_rack(s):
    a = assess(s)
    if not a.job_runs or a.gpus_in_service < 2:
        return
    n = a.gpus_in_service
    jf = nccl.job_fabric(a, n)
    healthy = nccl.healthy_job(a.fabric, n)
    for op in nccl.OPS:
        got = nccl.collective(op, "auto", GIB, jf)
        best = nccl.collective(op, "auto", GIB, healthy)
        assert got["time_us"] >= best["time_us"] * (1 - 1e-9)
        assert got["busbw_gbs"] > 0 or jf.ring_gbs == 0


def test_calibration_doc_carries_the_tables_the_model_prints():
    from pathlib import Path

    from model.workloads.comm import calibration_tables

    doc = (Path(__file__).parents[3] / "docs" / "CALIBRATION.md").read_text()
    assert calibration_tables() in doc


def test_the_one_shot_all_reduce_is_its_fitted_point_and_checks():
    """ONE_SHOT_US is what its one fitted point gives (vLLM's B300 benchmark at 16 KiB); the
    same table's other sizes are checks within 10%; and decode pays it only where the group
    has peer memory: on NVLink, not on Ethernet nor across RoCE islands."""
    from model.fabric.presets import FABRICS, NVLINK_LATENCY_US
    from model.workloads import comm_params as P
    from model.workloads import moe_a2a, step
    from model.workloads.hardware import B200_ROCE, island_view
    from model.workloads.models import DEEPSEEK_R1

    assert nccl.fit_one_shot(GB200_NVL72) == P.ONE_SHOT_US
    gbs = nccl.healthy_job(GB200_NVL72, 8).ring_gbs
    for nbytes, ranks, ms in P.ONE_SHOT_POINTS:
        got = float(nccl.one_shot_all_reduce_us(nbytes, ranks, gbs, NVLINK_LATENCY_US))
        assert got == pytest.approx(1e3 * ms, rel=0.10), nbytes
    b, q = np.array([1.0]), 4  # one request a GPU, three MTP drafts: TEP8's high end
    nv = moe_a2a.healthy_ep(GB200_NVL72, 8)
    eth = moe_a2a.healthy_ep(FABRICS["eth-x72"], 8)
    across = island_view(B200_ROCE, 16)
    assert nv.peer_memory and not eth.peer_memory and not across.peer_memory
    assert island_view(B200_ROCE, 8).peer_memory  # TEP8 inside one HGX node: NVLink
    one_shot = step.all_reduce_us(DEEPSEEK_R1, nv, b, q, 8)[0]
    ring = step.all_reduce_us(DEEPSEEK_R1, eth, b, q, 8)[0]
    assert one_shot < 0.7 * ring  # the frameworks' kernel where NVLink allows it
