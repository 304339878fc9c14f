"""A rack in dcgm-exporter's default shape (the per-GPU sums only, labels gpu, UUID, device,
modelName, Hostname; 18 hosts of 4 GPUs), scraped by a real Prometheus: the GPU whose replay
errors rise (the stand-in's flaky link's, gpu07 on its second host) is flagged and placed on
its tray, by importing two scrapes by hand and by live mode alike.

The stand-in runs its clock 600x (a simulated 10 minutes a wall second) so the flaky link's
replays rise many times a scrape while a healthy GPU's background stays still."""

from __future__ import annotations

import re
import time
import urllib.request
from collections.abc import Iterator

import pytest

from config import Live, Settings
from dashboard.standin import Rack, create, schedule
from harness.live import Prometheus, prometheus, serve, until
from model.telemetry.importers import import_text

REPLAY = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"
GPU, HOST, INDEX, TRAY = "gpu07", "gb200-node-02", "3", "ct02"  # gpu07-st3.sw1's: host 2


@pytest.fixture(scope="module")
def standin() -> Iterator[str]:
    rack = Rack(schedule("gb200-nvl72", "gpu07-st3.sw1", ""), 1e9, 600.0, 2 * 86400.0)
    rack.held = 1  # the link flaky
    with serve(create(rack, "default")) as url:
        yield url


@pytest.fixture(scope="module")
def prom(standin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    work = tmp_path_factory.mktemp("prom-default")
    with prometheus({"rack": standin.removeprefix("http://")}, work, 1) as p:
        yield p


def _scrape(url: str) -> tuple[str, float]:
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as r:
        return r.read().decode(), time.time()


def _replays(text: str, host: str, index: str) -> float:
    m = re.search(rf'{REPLAY}{{gpu="{index}",[^}}]*Hostname="{host}"}} (\S+)', text)
    assert m, f"no {REPLAY} of {host} GPU {index}"
    return float(m.group(1))


def _stamped(text: str, t: float) -> str:
    ms = int(t * 1000)
    return "".join(
        f"{x} {ms}\n" if x and not x.startswith("#") else f"{x}\n" for x in text.splitlines()
    )


def test_the_erring_gpu_by_import_and_by_live_mode(standin: str, prom: Prometheus, tmp_path):
    first, t0 = _scrape(standin)
    assert (
        first.count(f"{REPLAY}{{") == 72
        and len(set(re.findall(r'Hostname="([^"]+)"', first))) == 18
    )

    def risen() -> tuple[str, float] | None:
        x = _scrape(standin)
        return x if _replays(x[0], HOST, INDEX) > _replays(first, HOST, INDEX) else None

    second, t1 = until(risen, 10.0, "the flaky GPU's replays rising")
    by_hand = import_text(_stamped(first, t0) + _stamped(second, t1))
    hand = {x["gpu"]: x for x in by_hand.erring_gpus}
    assert GPU in hand and hand[GPU]["compute_tray"] == TRAY and hand[GPU]["host"] == HOST
    assert hand[GPU]["counters"][REPLAY]["per_s"] > 0

    from app import create_app

    live = Live(prom.url, 1, 2.0, 10, 'job="rack"')
    twin = create_app(Settings(8050, None, str(tmp_path), 3600, "INFO", False, live=live))
    client = twin.server.test_client()

    def flagged() -> dict | None:
        a = client.get("/api/v1/live").get_json()
        rows = {x["gpu"]: x for x in (a.get("live") or {}).get("erring_gpus", [])}
        return a if a["state"] == "ok" and GPU in rows else None

    a = until(flagged, 30.0, f"live mode flagging {GPU}")
    rows = {x["gpu"]: x for x in a["live"]["erring_gpus"]}
    x = rows[GPU]
    assert (x["host"], x["compute_tray"], x["gpu_on_host"]) == (HOST, TRAY, INDEX)
    assert x["rising"] and x["counters"][REPLAY]["per_s"] > 0
    # the fastest riser, by live mode as by hand: the flaky link's GPU
    fastest = max(rows.values(), key=lambda r: r["counters"].get(REPLAY, {}).get("per_s") or 0)
    assert fastest["gpu"] == GPU
    assert a["query"] == by_hand.scenario == "fabric=gb200-nvl72"  # no link named: none is known
    drain = {d["link"]: d for d in a["live"]["drain"]}
    assert GPU in drain and "a per-link field would say" in drain[GPU]["why"]
