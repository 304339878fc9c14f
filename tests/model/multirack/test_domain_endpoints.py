"""Every JSON endpoint whose model covers a domain answers on both domains, with the domain's
own numbers (not one rack's): evaluate, decode, goodput, timeline, collectives, telemetry,
topology, calibration, and /metrics."""

import pytest

DOMAINS = {"vr-nvl576": 576, "vr-nvl1152": 1152}
FAULTS = ("", "&fail=r02.st3,l2.t05", "&fail=r03&off=partial-rack", "&update=l2.t02")


@pytest.mark.parametrize("fabric", DOMAINS)
@pytest.mark.parametrize("extra", FAULTS)
def test_every_endpoint_answers_on_a_domain(client, fabric, extra):
    q = f"fabric={fabric}{extra}"
    gpus = DOMAINS[fabric]
    ev = client.get(f"/api/v1/evaluate?{q}")
    assert ev.status_code == 200
    ev = ev.get_json()
    assert ev["counts"]["gpus"] == gpus and ev["not_modelled_yet"] == []
    de = client.get(f"/api/v1/decode?{q}")
    assert de.status_code == 200 and de.get_json()["baseline"] == "vr-nvl72"
    gp = client.get(f"/api/v1/goodput?{q}")
    assert gp.status_code == 200, gp.get_json()
    tl = client.get(f"/api/v1/timeline?{q}")
    assert tl.status_code == 200
    assert tl.get_json()["fault"] == (ev["scenario"]["fail"] or [None])[-1]
    runs = ev["job"]["state"] in ("running", "degraded") or ev["job"]["restart_kind"] == "at-once"
    ranks = ev["gpus_in_service"] if runs else gpus
    co = client.get(f"/api/v1/collectives?{q}&op=all_reduce&ranks={ranks}")
    if runs:  # an all-reduce over every GPU in service, across racks
        assert co.status_code == 200, co.get_json()
    else:  # the job is down: said, naming what cannot be
        assert co.status_code == 400 and co.get_json()["token"] == "ranks"
    te = client.get(f"/api/v1/telemetry?{q}")
    assert te.status_code == 200, te.get_json()
    assert te.get_json()["attribution"] == ev["telemetry"]  # one answer
    me = client.get(f"/metrics?{q}")
    assert me.status_code == 200 and f'fabric="{fabric}"'.encode() in me.data


@pytest.mark.parametrize("fabric", DOMAINS)
def test_topology_and_calibration_on_a_domain(client, fabric):
    topo = client.get(f"/api/v1/topology?fabric={fabric}")
    assert topo.status_code == 200 and topo.get_json()["counts"]["gpu"] == DOMAINS[fabric]
    assert client.get(f"/api/v1/calibration?fabric={fabric}").status_code == 200
