"""MoE decode and training: the published checks, the NVLink-vs-Ethernet gap, monotonicity."""

import numpy as np
import pytest
from hypothesis import given, settings

from model import evaluate, parse_query
from model.assess import assess
from model.fabric.presets import FABRICS
from model.workloads.calibrate import POINTS, fit, table
from model.workloads.collectives import all_to_all, deepseek_decode_bound
from model.workloads.decode import ETA_HBM, MFU_DECODE, throughput_at
from model.workloads.throughput import curves
from tests.strategies import scenarios

# NVIDIA's claim, FACTS.md §4: "up to 2.3x decode throughput" against off-the-shelf Ethernet.
# It lives here, in the test that checks it, and never in the model.
VENDOR_DECODE_RATIO = 2.3
GRID = np.geomspace(20, 200, 400)


def _curves(q: str, workload: str = "deepseek-r1"):
    s = parse_query(q + ("&" if q else "") + f"workload={workload}").scenario
    return curves(assess(s))


@pytest.mark.parametrize("workload", ["deepseek-r1", "qwen3-235b", "moe-2t"])
def test_nvlink_never_behind_ethernet(workload):
    cs = _curves("", workload)
    ratio = throughput_at(cs["scenario"], GRID) / throughput_at(cs["eth-x72"], GRID)
    both = np.isfinite(ratio)
    assert both.sum() > 50
    assert (ratio[both] >= 1 - 1e-9).all()
    # NVLink reaches interactivity Ethernet cannot
    assert (
        cs["scenario"]["tokens_per_s_per_user"].max() > cs["eth-x72"]["tokens_per_s_per_user"].max()
    )


def test_vendor_ratio_lies_inside_the_modelled_range():
    cs = _curves("", "deepseek-r1")
    ratio = throughput_at(cs["scenario"], GRID) / throughput_at(cs["eth-x72"], GRID)
    ratio = ratio[np.isfinite(ratio)]
    assert ratio.min() <= VENDOR_DECODE_RATIO <= ratio.max()


def test_deepseek_published_bound():
    # ~67 tok/s per user over 400 Gb/s InfiniBand, ~1,200 over GB200 NVL72 (900 GB/s one way)
    assert deepseek_decode_bound(50e9) == pytest.approx(67, rel=0.03)
    assert deepseek_decode_bound(900e9) == pytest.approx(1200, rel=0.03)


def test_calibrated_constants_are_the_fit():
    assert fit() == pytest.approx((MFU_DECODE, ETA_HBM), abs=1e-9)
    rows = {r["point"]: r for r in table()}
    for p in POINTS:
        if p.fitted:
            assert abs(rows[p.name]["error_pct"]) < 35


def test_small_messages_are_packet_rate_bound_on_ethernet():
    vr, eth = FABRICS["vr-nvl72"], FABRICS["eth-x72"]

    def t(f, per_peer):
        bw = f.gpu_tbs_bidir / 2 * 1e12
        pps = f.packet_rate_gpps_per_gpu * 1e9
        payload = 4096 if f.technology == "Ethernet" else 128
        return all_to_all(per_peer * 72, 72, bw, 0.0, pps, payload, 0.75)

    assert t(eth, 64) / t(vr, 64) == pytest.approx(10, rel=0.01)
    assert t(eth, 1 << 20) / t(vr, 1 << 20) == pytest.approx(1, rel=0.01)


def test_one_switch_tray_costs_at_most_its_share():
    cs = _curves("fail=st3")
    ratio = throughput_at(cs["scenario"], GRID) / throughput_at(cs["healthy"], GRID)
    ok = np.isfinite(ratio)
    assert (ratio[ok] >= 1 - 4 / 36 - 1e-9).all()
    assert (ratio[ok] <= 1 + 1e-9).all()


def test_lost_gpus_cost_their_share_at_the_reference():
    r = evaluate(parse_query("fail=ct02").scenario)["decode"]
    assert r["vs_healthy"] == pytest.approx(68 / 72, rel=0.02)


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
