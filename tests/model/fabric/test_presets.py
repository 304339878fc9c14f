"""The presets carry FACTS.md §1's counts and rates exactly."""

import pytest

from model.fabric.presets import FABRICS

EXPECTED = {
    # gpus, chips, links, cables, per GPU TB/s, rack TB/s, per tray TB/s, SHARP TFLOPS
    "vr-nvl72": (72, 36, 2592, 5184, 3.6, 259.2, 28.8, 129.6),
    "gb200-nvl72": (72, 18, 1296, 5184, 1.8, 129.6, 14.4, 64.8),
    "eth-x72": (72, 36, 2592, 5184, 3.6, 259.2, 28.8, 0.0),
}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_preset_counts_and_rates(key):
    f = FABRICS[key]
    got = (
        f.gpus,
        f.chips,
        f.links,
        f.cables,
        round(f.gpu_tbs_bidir, 6),
        round(f.rack_tbs_bidir, 6),
        round(f.tray_tbs_bidir, 6),
        round(f.sharp_tflops, 6),
    )
    assert got == EXPECTED[key]


def test_eth_is_three_times_the_latency_and_a_tenth_of_the_packet_rate():
    vr, eth = FABRICS["vr-nvl72"], FABRICS["eth-x72"]
    assert eth.latency_one_way_us == pytest.approx(3 * vr.latency_one_way_us)
    assert eth.packet_rate_gpps_per_gpu == pytest.approx(vr.packet_rate_gpps_per_gpu / 10)
    assert eth.reroute_stall_s >= 1.0 > vr.reroute_stall_s


def test_packet_payload_is_a_4k_frame_on_ethernet_and_128_b_on_nvlink():
    from model.fabric.presets import eth_with_bandwidth

    assert {k: f.packet_bytes for k, f in FABRICS.items()} == {
        "vr-nvl72": 128,
        "gb200-nvl72": 128,
        "eth-x72": 4096,
    }
    assert eth_with_bandwidth(1.8).packet_bytes == 4096
