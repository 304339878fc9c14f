"""b200-roce as a scenario: the NVL72 fault grammar where the part exists, the HGX node, NIC
and scale-out switch where it does not, and what each fault does to the data plane and
decode (model/fabric/islands.py, hardware.island_scenario_hardware)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import evaluate, parse_query
from model.errors import ScenarioError
from model.fabric.islands import B200_ROCE, all_to_all_gbs, island_state, parse_island_part
from model.kinds import ComponentKind, IslandKind
from model.workloads.hardware import island_hardware, island_scenario_hardware
from model.workloads.throughput import island_frontiers

F = B200_ROCE


def _s(fail: str = ""):
    return parse_query(f"fabric=b200-roce&fail={fail}").scenario


def _decode(fail: str) -> dict:
    return evaluate(_s(fail))["decode"]


@pytest.mark.parametrize(
    ("token", "kind"),
    [
        ("gpu17", ComponentKind.GPU),
        ("GPU17", ComponentKind.GPU),
        ("node03", IslandKind.NODE),
        ("node09.sw1", ComponentKind.SWITCH_CHIP),
        ("gpu17-sw1.l8", ComponentKind.LINK),
        ("gpu71.nic", IslandKind.NIC),
        ("leaf", IslandKind.LEAF),
    ],
)
def test_every_part_parses(token, kind):
    assert parse_island_part(token, F).kind is kind


@pytest.mark.parametrize(
    "token", ["gpu72", "node00", "node10", "node01.sw2", "gpu01-sw0.l9", "st3"]
)
def test_a_bad_id_names_the_grammar(token):
    with pytest.raises(ScenarioError) as e:
        parse_island_part(token, F)
    assert token in e.value.message and "node01..node09" in e.value.message


def test_keys_the_model_does_not_read_are_refused_by_name():
    with pytest.raises(ScenarioError, match="flaky"):
        parse_query("fabric=b200-roce&flaky=gpu01-sw0.l0")
    s = parse_query("fabric=b200-roce&fail=gpu17,node03,GPU17").scenario
    assert s.fail == ("node03", "gpu17")  # canonical: sorted by kind, duplicates once
    assert parse_query(s.key()).scenario == s


def test_healthy_state_is_the_comparison_baseline_exactly():
    assert island_scenario_hardware(island_state(F, ())) == island_hardware(F)
    fr = island_frontiers(_s())
    a, b = fr["scenario"].tokens_per_s_per_gpu, fr["healthy"].tokens_per_s_per_gpu
    assert np.array_equal(a, b, equal_nan=True)


def test_a_lost_node_takes_its_eight_gpus():
    r = evaluate(_s("node03"))
    assert r["counts"]["gpus_active"] == 64
    assert r["decode"]["vs_healthy"] == pytest.approx(64 / 72, abs=2e-3)


def test_a_lost_switch_chip_halves_its_nodes_nvlink():
    st = island_state(F, ("node03.sw1",))
    share = st.nvlink_share
    assert (share[16:24] == 0.5).all() and (np.delete(share, range(16, 24)) == 1).all()
    r = evaluate(_s("node03.sw1"))
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == pytest.approx(F.gpu_tbs_bidir / 2)
    assert r["counts"]["links_up"] == 72 * 18 - 8 * 9
    assert 0.9 < r["decode"]["vs_healthy"] < 1.0  # one node's groups move half as fast


def test_a_lost_nic_is_shared_by_its_node():
    st = island_state(F, ("gpu17.nic",))
    assert st.scale_out_share[16:24] == pytest.approx(7 / 8)
    assert all_to_all_gbs(st) == pytest.approx(7 / 8 * all_to_all_gbs(island_state(F, ())))
    wide = [v for e, g in island_scenario_hardware(st).groups if e > 8 for v, _ in g if v.cross]
    assert min(v.cross.line_bytes_s for v in wide) == pytest.approx(7 / 8 * 50e9)


def test_without_the_scale_out_switch_ep_stays_in_the_nodes():
    hw = island_scenario_hardware(island_state(F, ("leaf",)))
    assert hw.max_ep == 8
    fr = island_frontiers(_s("leaf"))
    sc, hl = fr["scenario"].tokens_per_s_per_gpu, fr["healthy"].tokens_per_s_per_gpu
    both = np.isfinite(sc) & np.isfinite(hl)
    assert (sc[both] <= hl[both] + 1e-9).all()
    assert evaluate(_s("leaf"))["bandwidth"]["all_to_all_per_gpu_tbs"] == 0.0


PARTS = ["gpu05", "node02", "node04.sw0", "gpu33-sw1.l2", "gpu40.nic", "gpu41.nic", "leaf"]


@settings(max_examples=25, deadline=None)
@given(st.sets(st.sampled_from(PARTS), max_size=4), st.sampled_from(PARTS))
def test_one_more_fault_never_raises_decode(fails, extra):
    a = island_frontiers(_s(",".join(sorted(fails))))["scenario"].tokens_per_s_per_gpu
    b = island_frontiers(_s(",".join(sorted(fails | {extra}))))["scenario"].tokens_per_s_per_gpu
    a, b = np.nan_to_num(a), np.nan_to_num(b)
    assert (b <= a + 1e-6 * np.maximum(a, 1)).all()


def test_the_api_answers_evaluate_and_decode_and_refuses_the_rest(client):
    ok = client.get("/api/v1/evaluate?fabric=b200-roce&fail=node03")
    assert ok.status_code == 200
    body = ok.get_json()
    assert body["decode"]["baseline"] == "gb200-nvl72" and body["not_modelled_yet"]
    d = client.get("/api/v1/decode?fabric=b200-roce&fail=leaf&at=125")
    assert d.status_code == 200
    bad = client.get("/api/v1/goodput?fabric=b200-roce")
    assert bad.status_code == 400 and "b200-roce" in bad.get_json()["error"]
