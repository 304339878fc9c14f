"""A real Prometheus (Debian's `prometheus` package, scripts/system-packages.sh) scraping the
app's /metrics from a real HTTP server, with the shipped alert rules loaded: each alert fires
for the scenarios that should fire it and stays quiet for the others, a healthy rack above
all; and every panel query of the shipped Grafana dashboard returns data (live mode's panels: in
test_live.py, against a twin with live mode on).

One Prometheus serves the whole module: one scrape job per scenario (the scenario is the
scrape's query string, as `params:` in prometheus.yml), scraped every 3 s and evaluated every
second, so the module takes well under a minute, not the minutes of default intervals.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from werkzeug.serving import make_server

from harness.servers import free_port
from model import telemetry
from model.query import parse_query
from monitoring import grafana_dashboard

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "monitoring" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "monitoring" / "grafana" / "nvlink-fabric.json"

# Scrape jobs: the scenario of each, as the query string of its scrape.
SCENARIOS: dict[str, dict[str, str]] = {
    "healthy": {},
    "link_down": {"fail": "gpu07-st3.sw2"},
    # Four days into a degrading link's five: the windowed rule trips, nothing is down yet.
    "flaky": {"flaky": "gpu07-st3.sw2", "t_s": "345600"},
    # An in-service update drains st2's chips: links INACTIVE on purpose, not a fault.
    "update": {"update": "st2"},
    # A silent tray controller: the data plane and the GPUs' health are untouched.
    "controller": {"fail": "st3.mc"},
    # Full-bandwidth mode (rerouting off): the GPU with a dead link is parked (DEGRADED) and
    # its routes are unhealthy (fabric health Unhealthy).
    "no_reroute": {"fail": "gpu07-st3.sw2", "off": "reroute"},
    # A GPU gone without partial-rack operation: the partition is UNHEALTHY; the GPU reports
    # no fabric health at all (it is not there), its links are down.
    "gpu_gone": {"fail": "gpu07", "off": "partial-rack"},
}
# Which scrape jobs each alert must fire for; it must stay quiet for every other job.
EXPECT: dict[str, set[str]] = {
    "NVLinkDown": {"link_down", "no_reroute", "gpu_gone"},
    "NVLinkRecoveriesOverThreshold": {"flaky"},
    # The live-counter form of the same rule: a scrape is one simulated instant, so the
    # twin's counters do not move between scrapes and it stays quiet here; it is checked on
    # the twin's counters minute by minute with promtool (test_the_windowed_rule_in_promql).
    "NVLinkWindowedHealthRule": set(),
    # One rack short of GPU links stays HEALTHY in adaptive mode (docs/TELEMETRY.md).
    "NVLinkPartitionNotHealthy": {"no_reroute", "gpu_gone"},
    "GPUFabricHealthDegraded": {"link_down", "update", "no_reroute"},
    # Live mode's (off for this app): quiet here; test_live.py fires them on a live twin.
    "LiveRackFaultsCost": set(),
    "LiveReadingStale": set(),
}
DEADLINE_S = 120.0


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    """The real app (app.server, Dash and all) behind a threaded werkzeug server."""
    from app import server as app

    srv = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"127.0.0.1:{srv.server_port}"
    srv.shutdown()


@pytest.fixture(scope="module")
def prom(app_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Prometheus on a free loopback port, scraping app_url once per scenario."""
    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed: run scripts/system-packages.sh"
    work = tmp_path_factory.mktemp("prometheus")
    config = {
        # A scrape is ~8 MB (every link, port and lane of the rack) and seven jobs share two
        # cores with the app: every 3 s, with as long to answer; rules every second.
        "global": {"scrape_interval": "3s", "evaluation_interval": "1s", "scrape_timeout": "3s"},
        "rule_files": [str(RULES)],
        "scrape_configs": [
            {
                "job_name": job,
                "metrics_path": "/metrics",
                "params": {k: [v] for k, v in params.items()},
                "static_configs": [{"targets": [app_url]}],
            }
            for job, params in SCENARIOS.items()
        ],
    }
    (work / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = (work / "prometheus.log").open("w")
    proc = subprocess.Popen(
        [
            binary,
            f"--config.file={work / 'prometheus.yml'}",
            f"--storage.tsdb.path={work / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for_scrapes(url, proc, work / "prometheus.log")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _wait_for_scrapes(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Until every job's target is up and has been scraped at least twice (rate() needs two)."""
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        assert proc.poll() is None, f"prometheus exited: {log.read_text()[-2000:]}"
        try:
            q = urllib.parse.quote("count by (job) (count_over_time(fabric_twin_info[1m]) >= 2)")
            got = _get(f"{url}/api/v1/query?query={q}")["data"]["result"]
            if {r["metric"]["job"] for r in got} == set(SCENARIOS):
                return
        except OSError:
            pass
        time.sleep(0.5)
    targets = _get(f"{url}/api/v1/targets")["data"]["activeTargets"]
    pytest.fail(f"targets never all scraped: {[(t['labels'], t['lastError']) for t in targets]}")


def _firing(url: str) -> dict[str, set[str]]:
    """{alert name: the jobs it fires for} from Prometheus's own alert API."""
    out: dict[str, set[str]] = {name: set() for name in EXPECT}
    for a in _get(f"{url}/api/v1/alerts")["data"]["alerts"]:
        if a["state"] == "firing":
            out.setdefault(a["labels"]["alertname"], set()).add(a["labels"]["job"])
    return out


def test_the_rules_file_is_valid():
    promtool = shutil.which("promtool")
    assert promtool, "promtool (Debian's prometheus package) is not installed"
    cmd = [promtool, "check", "rules", str(RULES)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    names = [
        rule["alert"] for g in yaml.safe_load(RULES.read_text())["groups"] for rule in g["rules"]
    ]
    assert sorted(names) == sorted(EXPECT)


@pytest.fixture(scope="module")
def settled(prom: str) -> str:
    """Prometheus once its rules have settled: every alert's expected jobs firing (each test
    that reads alerts waits for it itself: under pytest-xdist the test that used to wait
    first may run on another worker, against another Prometheus), then three evaluations."""
    end = time.monotonic() + DEADLINE_S
    got = _firing(prom)
    while time.monotonic() < end and any(not want <= got[k] for k, want in EXPECT.items()):
        time.sleep(0.5)
        got = _firing(prom)
    time.sleep(3.0)
    return prom


def test_each_alert_fires_where_it_should_and_only_there(settled: str):
    """The whole picture once settled: nothing fires for the healthy rack, the silent
    controller or anywhere it should not."""
    got = _firing(settled)
    assert got == EXPECT
    for name, jobs in got.items():
        assert "healthy" not in jobs and "controller" not in jobs, name


def test_the_windowed_rule_in_promql(tmp_path: Path):
    """The PromQL form of the windowed rule, run by promtool's rule engine on the twin's own
    per-link counters a minute apart (45 minutes of a degrading link and a healthy one, three
    days in): it fires for the degrading link once 30 minutes of windows are in, and not for
    the healthy link, as the twin's own count says."""
    promtool = shutil.which("promtool")
    assert promtool, "promtool (Debian's prometheus package) is not installed"
    s = parse_query("flaky=gpu07-st3.sw2").scenario
    t0, minutes = 3 * 86400.0, 45
    series = []
    for link in ("gpu07-st3.sw2", "gpu08-st3.sw2"):
        ser = telemetry.link_series(s, link, t0, t0 + minutes * 60, 60.0)
        for name in (telemetry.RECOVERY, telemetry.REPLAY):
            vals = " ".join(str(v) for v in ser[name])
            series.append({"series": f'{name}{{link="{link}",job="rack"}}', "values": vals})
    summary = (
        "NVLink gpu07-st3.sw2 fails the windowed health rule: replays or recoveries in more "
        "than 15 of its last 30 minutes"
    )
    action = "Degrading: drain the link on purpose before it fails (see the failure forecast)."
    flaky = {
        "exp_labels": {"severity": "warning", "link": "gpu07-st3.sw2", "job": "rack"},
        "exp_annotations": {"summary": summary, "action": action},
    }
    tests = {
        "rule_files": [str(RULES)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": series,
                "alert_rule_test": [
                    {"eval_time": "10m", "alertname": "NVLinkWindowedHealthRule", "exp_alerts": []},
                    {
                        "eval_time": "40m",
                        "alertname": "NVLinkWindowedHealthRule",
                        "exp_alerts": [flaky],
                    },
                ],
            }
        ],
    }
    rec = telemetry.health_rule(s, t0 + 40 * 60)["recent_windows"]
    assert rec.get("gpu07-st3.sw2", 0) > 15 and rec.get("gpu08-st3.sw2", 0) <= 15
    path = tmp_path / "windowed.test.yml"
    path.write_text(yaml.safe_dump(tests))
    r = subprocess.run(
        [promtool, "test", "rules", str(path)], capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_alerts_name_what_is_wrong(settled: str):
    """The link-down alert names the link; the recovery alert the degrading link."""
    firing = _get(f"{settled}/api/v1/alerts")["data"]["alerts"]
    alerts = [a for a in firing if a["state"] == "firing"]
    down = {
        (a["labels"]["job"], a["labels"]["link"])
        for a in alerts
        if a["labels"]["alertname"] == "NVLinkDown"
    }
    assert {link for job, link in down if job != "gpu_gone"} == {"gpu07-st3.sw2"}
    assert len([1 for job, _ in down if job == "gpu_gone"]) == 36  # every link of gpu07
    rec = [a for a in alerts if a["labels"]["alertname"] == "NVLinkRecoveriesOverThreshold"]
    assert {a["labels"]["link"] for a in rec} == {"gpu07-st3.sw2"}
    assert all(15 < float(a["value"]) <= 30 for a in rec)


def test_the_dashboard_file_is_what_the_builder_builds():
    assert DASHBOARD.read_text() == grafana_dashboard.text()


def test_every_dashboard_panel_query_returns_data(settled: str):
    """Each panel's PromQL, run by this Prometheus, returns at least one series, with a number
    for every sample (rate() needs two scrapes inside its window: once the rules have settled
    they are there)."""
    prom = settled
    board = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    assert len(exprs) == len(grafana_dashboard.PANELS) >= 8
    live = {p.expr for p in grafana_dashboard.PANELS if p.live}  # test_live.py runs those
    exprs = [e for e in exprs if e not in live]
    for expr in exprs:
        q = urllib.parse.quote(expr)
        res = _get(f"{prom}/api/v1/query?query={q}")
        assert res["status"] == "success", (expr, res)
        data = res["data"]["result"]
        if not data:
            targets = _get(f"{prom}/api/v1/targets")["data"]["activeTargets"]
            health = [(t["labels"]["job"], t["health"], t["lastError"]) for t in targets]
            pytest.fail(f"no data: {expr}; targets: {health}")
        for r in data:
            float(r["value"][1])
