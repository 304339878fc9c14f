"""FACTS.md §2's fault table, reproduced exactly on vr-nvl72 and on gb200-nvl72.

Each row: the scenario, the bandwidth of the GPU it hits, the worst GPU, the rack aggregate
and the in-network compute left. Figures are FACTS.md's (vr) and the same arithmetic with
NVLink 5's 18 planes (gb200).
"""

import pytest

from model import evaluate, parse_query

ROWS = {
    # fabric: [(fail, gpu hit, its TB/s, worst TB/s, aggregate TB/s, SHARP TFLOPS, GPUs)]
    "vr-nvl72": [
        ("gpu07-st3.sw2.c0", 7, 3.5, 3.5, 259.1, 129.6, 72),
        ("gpu07-st3.sw2", 7, 3.5, 3.5, 259.1, 129.6, 72),
        ("st3.sw2", 0, 3.5, 3.5, 252.0, 126.0, 72),
        ("st3", 0, 3.2, 3.2, 230.4, 115.2, 72),
        ("gpu07", 8, 3.6, 3.6, 255.6, 129.6, 71),
        ("ct02", 8, 3.6, 3.6, 244.8, 129.6, 68),
    ],
    "gb200-nvl72": [
        ("gpu07-st3.sw1.c3", 7, 1.7, 1.7, 129.5, 64.8, 72),
        ("gpu07-st3.sw1", 7, 1.7, 1.7, 129.5, 64.8, 72),
        ("st3.sw1", 0, 1.7, 1.7, 122.4, 61.2, 72),
        ("st3", 0, 1.6, 1.6, 115.2, 57.6, 72),
        ("gpu07", 8, 1.8, 1.8, 127.8, 64.8, 71),
        ("ct02", 8, 1.8, 1.8, 122.4, 64.8, 68),
    ],
}
CASES = [(fab, *row) for fab, rows in ROWS.items() for row in rows]


@pytest.mark.parametrize("fabric,fail,gpu,gpu_tbs,worst,agg,sharp,active", CASES)
def test_fault_row(fabric, fail, gpu, gpu_tbs, worst, agg, sharp, active):
    r = evaluate(parse_query(f"fabric={fabric}&fail={fail}").scenario)
    bw = r["bandwidth"]
    assert bw["per_gpu_tbs"]["values"][gpu] == pytest.approx(gpu_tbs, abs=1e-9)
    assert bw["per_gpu_tbs"]["min"] == pytest.approx(worst, abs=1e-9)
    assert bw["aggregate_tbs"] == pytest.approx(agg, abs=1e-9)
    assert r["sharp_tflops"] == pytest.approx(sharp, abs=1e-9)
    assert r["counts"]["gpus_active"] == active
    # the barrier: all-to-all runs every GPU in service at the slowest one's pace; in
    # full-bandwidth mode a GPU short of a link is parked, out of the job and its all-to-all
    out = set(r["partition"]["parked_gpus"]) | set(r["partition"]["lost_gpus"])
    serving = [v for i, v in enumerate(bw["per_gpu_tbs"]["values"]) if f"gpu{i:02d}" not in out]
    assert r["gpus_in_service"] == len(serving) == active - len(r["partition"]["parked_gpus"])
    worst_serving = min(serving) if serving else 0.0  # an UNHEALTHY full-bandwidth rack: none
    assert bw["all_to_all_tbs"] == pytest.approx(len(serving) * worst_serving, abs=1e-9)


def test_one_cable_leaves_the_other_gpus_whole():
    r = evaluate(parse_query("fail=gpu07-st3.sw2.c0").scenario)
    vals = r["bandwidth"]["per_gpu_tbs"]["values"]
    assert sorted(set(vals)) == [3.5, 3.6]
    assert vals.count(3.5) == 1
    c = r["counts"]
    assert (c["links_up"], c["cables_up"], c["cables_failed"]) == (2591, 5182, 1)


def test_switch_tray_counts():
    r = evaluate(parse_query("fail=st3").scenario)
    c = r["counts"]
    assert (c["switch_chips_up"], c["links_up"], c["controllers_up"]) == (32, 72 * 32, 8)
    assert r["bandwidth"]["per_switch_tray_tbs"][2] == 0.0
    assert r["bandwidth"]["per_switch_tray_tbs"][0] == pytest.approx(28.8)


def test_healthy_rack():
    r = evaluate(parse_query("").scenario)
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == 3.6
    assert r["bandwidth"]["aggregate_tbs"] == pytest.approx(259.2)
    assert r["sharp_tflops"] == pytest.approx(129.6)
    assert r["partition"]["state"] == "HEALTHY" and r["job"]["state"] == "running"
    assert r["latency_us"]["p50"] == pytest.approx(0.35)
    assert r["counts"]["cables_up"] == 5184


def test_flaky_link_stays_up_at_reduced_rate():
    r = evaluate(parse_query("flaky=gpu07-st3.sw2.c1").scenario)
    assert r["counts"]["links_up"] == 2592
    assert r["counts"]["links_flaky"] == 1
    assert r["bandwidth"]["per_gpu_tbs"]["values"][7] == pytest.approx(3.59)
    assert r["partition"]["state"] == "HEALTHY"


def test_latency_rises_when_planes_are_lost_and_eth_is_three_times_slower():
    base = evaluate(parse_query("").scenario)["latency_us"]
    tray = evaluate(parse_query("fail=st3").scenario)["latency_us"]
    eth = evaluate(parse_query("fabric=eth-x72").scenario)["latency_us"]
    assert tray["p99"] > base["p99"] > base["p50"]
    assert eth["unloaded_us"] == pytest.approx(3 * base["unloaded_us"])
    assert eth["p50"] == pytest.approx(3 * base["p50"])
