"""GET /api/v1/collectives through the real Flask app: answers, and the bad-parameter table."""

import pytest

from model import parse_query
from model.assess import assess
from model.workloads import nccl

GIB = 1 << 30


def test_all_reduce_on_the_full_gb200_rack(client):
    r = client.get(f"/api/v1/collectives?fabric=gb200-nvl72&op=all_reduce&bytes={4 * GIB}")
    assert r.status_code == 200
    d = r.get_json()
    assert {"time_us", "algbw_gbs", "busbw_gbs", "algo"} <= set(d)
    assert d["algo"] == "nvls" and d["ranks"] == 72
    assert 0.95 * 835 <= d["busbw_gbs"] <= 1.05 * 847
    assert d["busbw_gbs"] == pytest.approx(d["algbw_gbs"] * 2 * 71 / 72, rel=1e-4)


def test_the_route_reads_the_one_assessment(client):
    """Same numbers as the model given the scenario's assessment: nothing recomputed apart."""
    q = "fail=st3,gpu07-st1.sw0"
    d = client.get(f"/api/v1/collectives?{q}&op=reduce_scatter&bytes={GIB}&ranks=40").get_json()
    jf = nccl.job_fabric(assess(parse_query(q).scenario), 40)
    want = nccl.collective("reduce_scatter", "auto", GIB, jf)
    assert {k: d[k] for k in want} == want
    assert d["scenario"] == parse_query(q).scenario.key()


def test_faults_change_the_answer(client):
    url = f"/api/v1/collectives?op=all_reduce&bytes={8 * GIB}"
    healthy = client.get(url).get_json()
    st3 = client.get(url + "&fail=st3").get_json()
    assert st3["time_us"] > healthy["time_us"]
    assert st3["link_gbs"]["nvls_planes"] == 32


def test_moe_dispatch_and_combine(client):
    base = "/api/v1/collectives?fabric=gb200-nvl72&tokens=2048&ep=8"
    d = client.get(base + "&op=moe_dispatch&precision=bf16&workload=deepseek-r1").get_json()
    assert d["time_us"] == pytest.approx(311.8, rel=0.10)
    assert set(d["parts_us"]) == {"gpu", "sync", "wire", "messages", "data"}
    c = client.get(base + "&op=moe_combine").get_json()
    assert c["time_us"] == pytest.approx(322.6, rel=0.10)
    q = client.get(base + "&op=moe_dispatch&workload=qwen3-235b").get_json()
    assert q["hidden"] == 4096 and q["time_us"] < d["time_us"]


BAD = [
    ("op=broadcast", "op"),
    ("op=all_reduce&algo=collnet", "algo"),
    ("op=all_gather&algo=tree", "algo"),
    ("op=all_to_all&algo=nvls", "algo"),
    ("fabric=eth-x72&op=all_reduce&algo=nvls", "algo"),
    ("bytes=0", "bytes"),
    (f"bytes={1 << 37}", "bytes"),
    ("bytes=1.5", "bytes"),
    ("bytes=lots", "bytes"),
    ("ranks=1", "ranks"),
    ("ranks=73", "ranks"),
    ("fabric=gb200-nvl72&fail=gpu07-st1.sw0&ranks=72", "ranks"),
    ("op=moe_dispatch", "tokens"),
    ("op=moe_dispatch&tokens=0", "tokens"),
    ("op=moe_dispatch&tokens=8&ep=72", "ep"),
    ("op=moe_dispatch&tokens=8&ep=3", "ep"),
    ("op=moe_dispatch&tokens=8&ep=128", "ep"),
    ("op=moe_dispatch&tokens=8&precision=fp6", "precision"),
    ("op=moe_combine&tokens=8&precision=nvfp4", "precision"),
    ("op=moe_dispatch&tokens=8&bytes=1024", "bytes"),
    ("op=moe_dispatch&tokens=8&algo=ring", "algo"),
    ("op=all_reduce&tokens=8", "tokens"),
    ("op=all_gather&ep=8", "ep"),
    ("op=all_reduce&op=all_gather", "op"),
    ("fabric=vr-nvl576&op=all_reduce&ranks=577", "ranks"),  # a domain answers; 576 GPUs
    ("fail=st10&op=all_reduce", "st10"),
]


@pytest.mark.parametrize("query,token", BAD)
def test_bad_parameters_are_400_naming_them(client, query, token):
    r = client.get("/api/v1/collectives?" + query)
    assert r.status_code == 400, r.get_json()
    d = r.get_json()
    assert d["token"] == token
    assert d["error"]
