"""One scenario, one answer: every quantity that two endpoints report is the same number.

For random scenarios over the three single-rack fabrics (tests/strategies.py) the JSON API
and /metrics are asked through the real Flask app, and each quantity is compared between
every pair of places that report it: GPUs in service, the worst GPU's bandwidth, the
all-to-all bandwidth, the job's state and restart kind, the degraded throughput fraction,
the checkpoint interval, tokens per second delivered, and repair and rack-down hours.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from prometheus_client.parser import text_string_to_metric_families

from model import Scenario, to_query
from model.fabric.presets import FABRICS
from tests.strategies import scenarios


def _get(client, path: str, query: str) -> dict:
    r = client.get(f"{path}?{query}")
    assert r.status_code == 200, (path, query, r.get_data(as_text=True)[:300])
    return r.get_json()


def _links_up_per_gpu(text: str, gpus: int) -> list[int]:
    """From /metrics: each GPU's links in state ACTIVE (DCGM_FI_DEV_NVLINK_GET_STATE == 1).
    Only that family's lines go through prometheus_client's parser (the text is ~7 MB)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("DCGM_FI_DEV_NVLINK_GET_STATE{")]
    assert lines, "no DCGM_FI_DEV_NVLINK_GET_STATE series in /metrics"
    up = [0] * gpus
    for fam in text_string_to_metric_families("\n".join(lines) + "\n"):
        for smp in fam.samples:
            if smp.value == 1:
                up[int(smp.labels["gpu"])] += 1
    return up


def _check(client, s: Scenario) -> None:
    q = to_query(s, include_fabric=True)
    f = FABRICS[s.fabric] if s.eth_bw is None else s.spec()
    ev = _get(client, "/api/v1/evaluate", q)
    dec = _get(client, "/api/v1/decode", q)
    gp = _get(client, "/api/v1/goodput", q)

    # GPUs in service: alive and not parked, the same in every block that counts them
    part = ev["partition"]
    n = f.gpus - len(part["lost_gpus"]) - len(part["parked_gpus"])
    assert ev["gpus_in_service"] == ev["bandwidth"]["all_to_all_gpus"] == n

    # worst GPU in service and the all-to-all: evaluate's figures against /metrics' links
    out = {int(g[3:]) for g in part["lost_gpus"] + part["parked_gpus"]}
    values = ev["bandwidth"]["per_gpu_tbs"]["values"]
    serving = [v for i, v in enumerate(values) if i not in out]
    worst = min(serving) if serving else 0.0
    assert ev["bandwidth"]["all_to_all_tbs"] == round(n * worst, 3)
    if not s.flaky and not s.update:  # flaky links are ACTIVE at 90%; drained planes idle
        metrics = client.get(f"/metrics?{q}")
        assert metrics.status_code == 200
        up = _links_up_per_gpu(metrics.get_data(as_text=True), f.gpus)
        link = f.link_gbs_bidir / 1000.0
        by_links = [up[i] * link for i in range(f.gpus) if i not in out]
        assert min(by_links, default=0.0) == worst or math.isclose(
            min(by_links, default=0.0), worst, abs_tol=1e-9
        )

    # the job: its state and restart kind, and whether decode runs
    job = ev["job"]
    runs = job["state"] in ("running", "degraded") or job["restart_kind"] == "at-once"
    assert dec["job_runs"] is runs
    assert ev["decode"]["running"] is (runs and n > 0)

    # the interactivity the deployment runs at (at=): every decode answer is read there
    assert ev["scenario"]["at"] == s.at
    assert ev["decode"]["tokens_per_s_per_user"] == dec["tokens_per_s_per_user"] == s.at
    assert dec["breakdown"] == (ev["decode"]["breakdown"] if dec["job_runs"] else None)
    if ev["decode"]["running"]:
        assert dec["at"]["scenario"]["tokens_per_s_per_gpu"] == ev["decode"]["tokens_per_s_per_gpu"]

    # the degraded throughput fraction: one number, rounded where a block rounds it
    frac = ev["delivered_fraction"]
    if s.workload == "train":
        assert ev["training"]["vs_healthy"] == round(frac, 4)
    else:
        assert ev["decode"]["vs_healthy"] == round(frac, 3)

    # goodput: the same closed form on /evaluate and /goodput, the same tokens per second
    cf = gp["closed_form"]
    assert ev["goodput"]["fraction"] == cf["fraction"] == gp["fraction"]
    assert ev["goodput"]["checkpoint_interval_s"] == cf["checkpoint_interval_s"]
    assert ev["goodput"]["tokens_delivered_per_rack_year"] == cf["tokens_delivered"]
    assert cf["tokens_per_s"] == gp["monte_carlo"]["tokens_per_s"]
    if s.workload != "train":
        per_gpu = ev["decode"]["healthy_tokens_per_s_per_gpu"]  # rounded to 0.1 tok/s
        assert math.isclose(cf["tokens_per_s"], per_gpu * f.gpus, abs_tol=0.05 * f.gpus)

    # the newest fault's story: the same job, repair, checkpoint interval and degraded rate
    if s.fail:
        tl = _get(client, "/api/v1/timeline", q)
        assert tl["job"] == job
        assert tl["repair"] == next(r for r in ev["repairs"] if r["id"] == s.fail[-1])
        assert tl["checkpoint_interval_s"] == cf["checkpoint_interval_s"]
        if tl["job"]["restart_kind"] in ("none", "at-once"):
            assert tl["degraded"] == frac
        rep = tl["repair"]
        assert rep["rack_down_h"] <= rep["repair_h"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=scenarios(max_faults=6))
def test_every_endpoint_gives_one_answer(client, s) -> None:
    _check(client, s)


def test_the_cases_that_disagreed_before(client) -> None:
    """The scenarios issue 11 found with two answers, each checked by name."""
    from model import parse_query

    for q in (
        "fail=gpu07-st3.sw2",
        "fail=st3",
        "fail=st1.mc,gpu07-st1.sw2&off=cp-resilience",
        "fabric=gb200-nvl72&fail=gpu07-st3.sw1",
        "fabric=gb200-nvl72",
        "fail=st3&workload=train",
    ):
        _check(client, parse_query(q).scenario)
    gb = _get(client, "/api/v1/evaluate", "fabric=gb200-nvl72&fail=gpu07-st3.sw1")
    assert gb["bandwidth"]["all_to_all_tbs"] == round(71 * 1.8, 3)  # not 72 x 1.7
    vr = _get(client, "/api/v1/goodput", "fabric=vr-nvl72")["closed_form"]["tokens_per_s"]
    gb2 = _get(client, "/api/v1/goodput", "fabric=gb200-nvl72")["closed_form"]["tokens_per_s"]
    assert vr > gb2  # each fabric's own decode rate, not one constant for all
    cp = _get(client, "/api/v1/timeline", "fail=st1.mc,gpu07-st1.sw2&off=cp-resilience")
    back = next(e for e in cp["events"] if e["kind"] == "restarted")
    assert back["t_s"] < 3600  # restarts when the controller is back, not after the cartridge
