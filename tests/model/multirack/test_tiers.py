"""Multi-rack domains (docs/MULTIRACK.md): counts, bandwidth, the trunk limit against a
networkx max flow, and IDs."""

import networkx as nx
import numpy as np
import pytest

from model.errors import ScenarioError
from model.multirack.assess import build
from model.multirack.domains import TRUNKS_PER_L1, VR_NVL576, VR_NVL1152
from model.multirack.tiers import plane_rates


def evaluate_domain(d, fail):
    """evaluate() of the domain with these parts failed (the one result type)."""
    from model import evaluate, parse_query

    return evaluate(parse_query(f"fabric={d.key}&fail={','.join(fail)}").scenario)


@pytest.mark.parametrize("d,gpus,l1,l2", [(VR_NVL576, 576, 288, 144), (VR_NVL1152, 1152, 576, 288)])
def test_counts_and_healthy_bandwidth(d, gpus, l1, l2):
    r = evaluate_domain(d, [])
    c = r["counts"]
    assert (c["gpus"], c["l1_chips"], c["l2_chips"]) == (gpus, l1, l2)
    assert c["links"] == gpus * 36
    bw = r["bandwidth"]
    assert bw["per_gpu_tbs"]["min"] == 3.6
    assert bw["aggregate_tbs"] == pytest.approx(gpus * 3.6)
    assert bw["all_to_all_tbs"] == pytest.approx(gpus * 3.6)  # the tier is non-blocking
    assert r["sharp_tflops"] == pytest.approx(l1 * 3.6)
    assert r["latency_us"]["p50"] == pytest.approx(0.75)  # most pairs cross three switches


def test_rack_faults_are_nvl72_faults():
    r = evaluate_domain(VR_NVL576, ["r03.st3"])
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == 3.2
    assert r["bandwidth"]["all_to_all_per_gpu_tbs"] == 3.2  # the barrier: the slowest gates
    r = evaluate_domain(VR_NVL576, ["r02"])
    assert r["counts"]["gpus_active"] == 504
    r = evaluate_domain(VR_NVL576, ["r01.gpu07-st3.sw2.c0"])
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == 3.5


def _trunk_scale_by_max_flow(st, r: int, p: int) -> float:
    """Share of rack r's plane-p outbound demand the two-tier graph can carry (max flow)."""
    d = st.domain
    s = d.l2_per_plane
    per_pair = TRUNKS_PER_L1 / s  # trunks from one L1 chip to one L2 chip
    g = nx.DiGraph()
    rack = st.rack_of
    n = int(st.gpu_alive.sum())
    in_rack = np.bincount(rack[st.gpu_alive], minlength=d.racks)
    f = (n - in_rack[r]) / (n - 1)
    demand = f * float(st.up[rack == r, p].sum())
    g.add_edge("src", ("l1", r), capacity=demand)
    for k in range(s):
        if st.l2_failed[p, k]:
            continue
        g.add_edge(("l1", r), ("l2", k), capacity=per_pair)
        for r2 in range(d.racks):
            if r2 != r and not st.l1_failed[r2, p]:
                g.add_edge(("l2", k), ("l1", r2), capacity=per_pair)
                g.add_edge(("l1", r2), "sink")  # receivers: unbounded here
    if "sink" not in g or demand == 0:
        return 1.0
    return nx.maximum_flow_value(g, "src", "sink") / demand


@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152])
@pytest.mark.parametrize("lost", [0, 1, 2, 3])
def test_trunk_limit_equals_max_flow(d, lost):
    fail = [f"l2.p05.s{k}" for k in range(lost)] + ["r02.st4", "r05.gpu10"]
    st = build(d, fail)
    rates = plane_rates(st)
    n = int(st.gpu_alive.sum())
    in_rack = np.bincount(st.rack_of[st.gpu_alive], minlength=d.racks)
    for r in (0, 1):
        g = r * 72 + 3  # a live GPU of rack r with plane 5 up
        f = (n - in_rack[r]) / (n - 1)
        scale = _trunk_scale_by_max_flow(st, r, 5)
        assert rates[g, 5] == pytest.approx((1 - f) + f * min(1.0, scale), abs=1e-9)


def test_losing_l2_chips_never_raises_bandwidth():
    prev = None
    for lost in range(VR_NVL576.l2_per_plane + 1):
        r = evaluate_domain(VR_NVL576, [f"l2.p00.s{k}" for k in range(lost)])
        a2a = r["bandwidth"]["all_to_all_tbs"]
        assert prev is None or a2a <= prev + 1e-9
        prev = a2a


@pytest.mark.parametrize("bad", ["r09.st3", "r00", "st3", "r01.st10", "l2.p36.s0", "l2.p01.s4"])
def test_bad_ids_name_the_token(bad):
    with pytest.raises(ScenarioError) as e:
        build(VR_NVL576, [bad])
    assert e.value.token in (bad, bad.partition(".")[2])


def test_multirack_scenarios_parse_canonically_and_evaluate_through_the_model():
    from model import evaluate, parse_query, to_query

    p = parse_query("fabric=vr-nvl576&fail=l2.p05.s1,r03.st3,r01,r03.st3")
    assert p.scenario.fail == ("r01", "r03.st3", "l2.p05.s1")
    assert any("more than once" in n for n in p.notices)
    assert parse_query(to_query(p.scenario)).scenario == p.scenario
    r = evaluate(p.scenario)
    assert r["counts"]["gpus_active"] == 504
    assert r["bandwidth"]["per_gpu_tbs"]["min"] == 3.2
    assert r["partition"]["state"] == "DEGRADED" and r["job"]["restart_kind"] == "at-once"
    assert r["decode"]["running"] and r["decode"]["baseline"] == "vr-nvl72"


@pytest.mark.parametrize(
    "q,token",
    [
        ("fabric=vr-nvl576&eth_bw=3", "eth_bw"),
        ("fabric=vr-nvl1152&flaky=r01.st3", "r01.st3"),
        ("fabric=vr-nvl1152&update=r01.st3.sw1", "r01.st3.sw1"),
        ("fabric=vr-nvl1152&update=l2.p00.s1", "l2.p00.s1"),
        ("fabric=vr-nvl576&fail=r03.st10", "r03.st10"),
        ("fabric=vr-nvl576&fail=l2.t37", "l2.t37"),
        ("fabric=vr-nvl576&fail=r09.st1.sw0-l2.s0", "r09.st1.sw0-l2.s0"),
        ("fabric=vr-nvl576&fail=r01.st1.sw0-l2.s4", "r01.st1.sw0-l2.s4"),
    ],
)
def test_bad_domain_input_is_refused_by_name(q, token):
    from model import parse_query

    with pytest.raises(ScenarioError) as e:
        parse_query(q)
    assert e.value.token in (token, "st10")


def test_the_api_serves_domains_and_refuses_by_name_what_it_cannot(client):
    assert client.get("/api/v1/evaluate?fabric=vr-nvl1152&fail=r16.ct18").status_code == 200
    t = client.get("/api/v1/timeline?fabric=vr-nvl1152&fail=l2.p03.s1,r16")
    assert t.status_code == 200 and t.get_json()["kind"] == "l2-chip"  # canonical: L2 last
    for ep in ("goodput", "telemetry", "collectives?op=all_reduce&"):
        sep = "" if ep.endswith("&") else "?"
        r = client.get(f"/api/v1/{ep}{sep}fabric=vr-nvl576&fail=l2.t02")
        # an endpoint whose domain model is not in yet says so, naming the fabric; never a 500
        assert r.status_code in (200, 400), ep
        if r.status_code == 400:
            assert r.get_json()["token"] == "vr-nvl576"
    topo = client.get("/api/v1/topology?fabric=vr-nvl576").get_json()
    assert topo["counts"]["l2-chip"] == 144 and topo["counts"]["gpu"] == 576


def test_decode_on_a_domain_takes_ep_up_to_the_domain_through_l2(client):
    d = client.get("/api/v1/decode?fabric=vr-nvl1152&workload=moe-2t").get_json()
    assert d["baseline"] == "vr-nvl72" and d["job_runs"]
    wide = [p for p in d["curves"]["scenario"] if p["deployment"].startswith(("EP576", "EP1152"))]
    assert wide  # the domain serves what one rack cannot: EP over 72, across racks
    # per GPU, the domain beats one rack where wide EP pays (few experts a GPU at speed), and
    # never falls behind it (one rack's deployments are the domain's too)
    ratios = [p["ratio"] for p in d["ratio_vs_baseline"]]
    assert min(ratios) >= 1 - 1e-9 and max(ratios) > 1.5
    r = client.get("/api/v1/evaluate?fabric=vr-nvl1152&workload=moe-2t").get_json()
    at_50 = next(p for p in d["curves"]["scenario"] if p["tokens_per_s_per_user"] == 50.0)
    assert r["decode"]["tokens_per_s_per_gpu"] == at_50["tokens_per_s_per_gpu"]  # one answer
    # a whole rack lost costs its GPUs (per installed GPU) and never gains
    lost = client.get("/api/v1/decode?fabric=vr-nvl1152&workload=moe-2t&fail=r03").get_json()
    for a, b in zip(lost["vs_healthy"], lost["vs_healthy"][1:], strict=False):
        assert a["ratio"] <= 1 + 1e-9 and b["ratio"] <= 1 + 1e-9


@pytest.mark.parametrize(
    "q",
    [
        "fabric=vr-nvl576",
        "fabric=vr-nvl576&fail=" + ",".join(f"l2.p05.s{i}" for i in range(4)),
        "fabric=vr-nvl1152&fail=r02.st3,r07",
    ],
)
def test_the_latency_chart_is_the_latency_figures_own_mixture(q):
    """tiers.latency_distribution (the page's chart on a domain) holds latency()'s p50 and
    p99, rises monotonically from the unloaded latency, and its quantiles are its CDF's."""
    from model import parse_query
    from model.assess import assess
    from model.multirack.tiers import latency, latency_distribution

    st = assess(parse_query(q).scenario).state
    d, one = latency_distribution(st), latency(st)
    assert (d["p50"], d["p99"]) == (one["p50"], one["p99"])
    cdf, x = np.array(d["cdf"]), np.array(d["latency_us"])
    assert (np.diff(cdf) >= -1e-9).all() and (np.diff(x) > 0).all()
    assert x[0] == pytest.approx(one["unloaded_us"])
    assert np.interp(d["p99"], x, cdf) == pytest.approx(0.99, abs=0.01)
    assert 0.0 <= d["no_wait_share"] <= 1.0
