"""One domain scenario has one answer whichever endpoint shows it: /evaluate, /timeline and
/decode read the same DomainAssessment."""

import pytest

SCENARIOS = [
    "fabric=vr-nvl576&fail=r02.st3",
    "fabric=vr-nvl576&fail=r03",
    "fabric=vr-nvl1152&fail=l2.t05,r16.gpu03-st1.sw0&flaky=r02.gpu01-st2.sw1",
    "fabric=vr-nvl576&fail=l2.p05.s1&off=reroute",
    "fabric=vr-nvl1152&fail=r01,l2.p00.s0&off=cp-resilience,sdr-fallback",
]


@pytest.mark.parametrize("q", SCENARIOS)
def test_evaluate_timeline_and_decode_agree(client, q):
    ev = client.get(f"/api/v1/evaluate?{q}").get_json()
    tl = client.get(f"/api/v1/timeline?{q}").get_json()
    de = client.get(f"/api/v1/decode?{q}").get_json()
    assert tl["job"] == ev["job"]
    newest = ev["scenario"]["fail"][-1]
    assert tl["fault"] == newest
    assert tl["repair"] == next(r for r in ev["repairs"] if r["id"] == newest)
    if ev["job"]["restart_kind"] != "after-controller":  # else: the level once routes are back
        assert tl["degraded"] == pytest.approx(ev["delivered_fraction"], abs=1e-12)
    assert de["job_runs"] == (
        ev["job"]["state"] in ("running", "degraded") or (ev["job"]["restart_kind"] == "at-once")
    )
    assert de["vs_healthy_at_reference"] == ev["decode"]["vs_healthy"]
    assert ev["gpus_in_service"] == ev["counts"]["gpus_active"] - len(
        ev["partition"]["parked_gpus"]
    )
