"""Collectives and training over a multi-rack domain (model/workloads/domain.py and
training.py's domain parts): the same calibrated NCCL and MoE models, across racks through L2,
and in-network reduction over two tiers."""

import pytest

from model.assess import assess
from model.fabric.presets import VR_NVL72
from model.multirack.domains import VR_NVL576, VR_NVL1152
from model.query import parse_query
from model.workloads import comm, nccl, training
from model.workloads import domain as dom

GIB = 1 << 30
L2_PLANE5 = ",".join(f"l2.p05.s{k}" for k in range(8))  # every L2 chip of plane 5 (1,152)


def _a(q: str):
    return assess(parse_query(q).scenario)


def test_a_healthy_domains_job_in_one_rack_is_one_racks_job():
    a = _a("fabric=vr-nvl1152")
    assert dom.job_fabric(a, 72) == nccl.healthy_job(VR_NVL72, 72)
    assert dom.healthy_job(VR_NVL1152, 72) == nccl.healthy_job(VR_NVL72, 72)
    wide = dom.job_fabric(a, 1152)
    assert wide.ring_gbs == pytest.approx(nccl.healthy_job(VR_NVL72, 72).ring_gbs)
    assert wide.nvls_planes == 36
    assert wide.latency_one_way_us == pytest.approx(VR_NVL72.latency_one_way_us + 0.4)
    assert wide == dom.healthy_job(VR_NVL1152, 1152)


def test_a_reduction_across_racks_needs_its_planes_l2_chips():
    """Plane 5's L2 group lost: a job in one rack keeps all 36 NVLS planes, a job across racks
    loses plane 5, and its all-reduce is slower; the ring keeps every plane in a rack."""
    a = _a(f"fabric=vr-nvl1152&fail={L2_PLANE5}")
    assert dom.job_fabric(a, 72).nvls_planes == 36
    wide = dom.job_fabric(a, 144)
    assert wide.nvls_planes == 35
    t0 = nccl.collective("all_reduce", "nvls", GIB, dom.job_fabric(_a("fabric=vr-nvl1152"), 144))
    t1 = nccl.collective("all_reduce", "nvls", GIB, wide)
    assert t1["time_us"] > t0["time_us"] * 1.02
    # one L2 chip of the plane left: its partials still cross (one stream a chip)
    a = _a(f"fabric=vr-nvl1152&fail={','.join(f'l2.p05.s{k}' for k in range(7))}")
    assert dom.job_fabric(a, 144).nvls_planes == 36


def test_all_to_all_across_racks_waits_on_the_trunks():
    q = ",".join(f"l2.p{p:02d}.s{k}" for p in range(36) for k in range(3))  # 3 of 4 everywhere
    a = _a(f"fabric=vr-nvl576&fail={q}")
    inside = comm.answer(a, {"op": "all_to_all", "ranks": 72})
    across = comm.answer(a, {"op": "all_to_all", "ranks": 576})
    healthy = comm.answer(_a("fabric=vr-nvl576"), {"op": "all_to_all", "ranks": 576})
    assert inside["busbw_gbs"] == pytest.approx(healthy["busbw_gbs"], rel=0.02)
    assert across["time_us"] > 2 * healthy["time_us"]  # a quarter of the trunks carry it
    ep = comm.answer(a, {"op": "moe_dispatch", "tokens": 256, "ep": 128})
    ep0 = comm.answer(_a("fabric=vr-nvl576"), {"op": "moe_dispatch", "tokens": 256, "ep": 128})
    assert ep["time_us"] > ep0["time_us"]


def test_ranks_beyond_the_gpus_in_service_are_named():
    a = _a("fabric=vr-nvl576&fail=r01")
    with pytest.raises(Exception) as e:
        dom.job_fabric(a, 576)
    assert e.value.token == "ranks" and "504" in e.value.message


@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152], ids=lambda d: d.key)
def test_training_over_a_domain(d):
    h = training.healthy_domain_step(d)
    one = training.healthy_step(VR_NVL72)
    # the rack's own parts are the rack's; the domain adds its replicas' expert all-reduce
    assert h.compute_s == one.compute_s and h.all_to_all_s == pytest.approx(one.all_to_all_s)
    assert h.expert_all_reduce_s > 0 and h.step_s > one.step_s
    r = training.domain_training(parse_query(f"fabric={d.key}").scenario)
    assert r["vs_healthy"] == 1.0 and r["step_time_s"] == round(h.step_s, 3)
    assert set(training.training_result(assess(parse_query("fabric=vr-nvl72").scenario), one, 72))
    lost = training.domain_training(parse_query(f"fabric={d.key}&fail=r02").scenario)
    assert lost["vs_healthy"] == pytest.approx((d.racks - 1) / d.racks, rel=0.02)


def test_training_reacts_to_the_l2_tier():
    base = training.domain_training(parse_query("fabric=vr-nvl1152").scenario)
    cut = training.domain_training(parse_query(f"fabric=vr-nvl1152&fail={L2_PLANE5}").scenario)
    assert cut["all_reduce_s"] > base["all_reduce_s"]
    assert cut["expert_all_reduce_s"] >= base["expert_all_reduce_s"]
    assert cut["vs_healthy"] < 1.0


def test_the_api_answers_collectives_and_goodput_on_domains(client):
    for key in ("vr-nvl576", "vr-nvl1152"):
        r = client.get(f"/api/v1/collectives?fabric={key}&op=all_reduce")
        assert r.status_code == 200, r.get_json()
        j = r.get_json()
        assert j["ranks"] == VR_NVL576.gpus * (2 if key == "vr-nvl1152" else 1)
        g = client.get(f"/api/v1/goodput?fabric={key}").get_json()
        assert 0.5 < g["fraction"] < 1.0
        assert any(x["name"] == "trunk_link_per_h" for x in g["rates"])
    c = client.get("/api/v1/goodput?fabric=vr-nvl576&compare=1").get_json()
    assert c["feature_values"]["rows"][0]["key"] == "vr-nvl576"
    assert len(c["comparison"]) == 8 and c["feature_values"]["scales"][0]["gpus"] == 576
    one = client.get("/api/v1/goodput?fabric=vr-nvl72").get_json()
    assert not any(x["name"] == "trunk_link_per_h" for x in one["rates"])
    bad = client.get("/api/v1/goodput?fabric=vr-nvl72&trunk_link_per_h=1e-6")
    assert bad.status_code == 400 and bad.get_json()["token"] == "trunk_link_per_h"
