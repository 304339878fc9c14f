"""Record (or check) the golden set: every endpoint's JSON for a fixed list of scenarios.

Recorded once before the one-assessment refactor (issue 11) so the refactor can be shown to
change nothing but the answers where two endpoints disagreed. `python -m tests.golden.record
write` records; tests/golden/test_golden.py compares the app's answers with the recording.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
FILE = HERE / "golden.json.gz"

SCENARIOS = [
    # vr-nvl72
    "",
    "fail=gpu07-st3.sw2.c0",
    "fail=gpu07-st3.sw2",
    "fail=st3.sw2",
    "fail=st3",
    "fail=st3,st5,st7,st9",
    "fail=st1.mc",
    "fail=st3.mc",
    "fail=st1.mc,gpu07-st1.sw2&off=cp-resilience",
    "fail=st1.mc,gpu07-st1.sw2&off=cp-resilience,sdr-fallback",
    "fail=st3.mc&off=cp-resilience",
    "fail=gpu07",
    "fail=ct02",
    "fail=ct02&off=partial-rack",
    "fail=gpu07-st3.sw2&off=reroute",
    "fail=st3&off=hot-swap",
    "flaky=gpu07-st3.sw2",
    "flaky=gpu07-st3.sw2&off=telemetry",
    "update=st3",
    "update=all",
    "update=st3&off=issu",
    "fail=st3&workload=train",
    "fail=gpu07-st3.sw2&workload=qwen3-235b",
    "fail=st2,st4&workload=moe-2t",
    "fail=gpu07,st3.sw1,gpu20-st5.sw0.c1&workload=train",
    # gb200-nvl72
    "fabric=gb200-nvl72",
    "fabric=gb200-nvl72&fail=gpu07-st3.sw1",
    "fabric=gb200-nvl72&fail=gpu07-st3.sw1.c2",
    "fabric=gb200-nvl72&fail=st3.sw0",
    "fabric=gb200-nvl72&fail=st3",
    "fabric=gb200-nvl72&fail=gpu07-st3.sw1&on=reroute",
    "fabric=gb200-nvl72&fail=ct02",
    "fabric=gb200-nvl72&fail=st1.mc",
    "fabric=gb200-nvl72&fail=st2,st3,st4,st5,st6,st7,st8,st9&on=reroute",
    "fabric=gb200-nvl72&workload=train&fail=gpu07-st3.sw1",
    # eth-x72
    "fabric=eth-x72",
    "fabric=eth-x72&fail=st3",
    "fabric=eth-x72&fail=gpu07-st3.sw1",
    "fabric=eth-x72&eth_bw=1.8",
    "fabric=eth-x72&fail=gpu07&workload=train",
    # b200-roce (issue 12: the buyer's comparison as a scenario)
    "fabric=b200-roce",
    "fabric=b200-roce&fail=node03,gpu17.nic",
    "fabric=b200-roce&fail=leaf&workload=moe-2t",
    # multi-rack
    "fabric=vr-nvl576",
    "fabric=vr-nvl576&fail=r02.st3",
    "fabric=vr-nvl576&fail=l2.p05.s1",
    "fabric=vr-nvl576&fail=r01,r03.gpu07-st3.sw2",
    "fabric=vr-nvl1152",
    "fabric=vr-nvl1152&fail=r15.st9,l2.p00.s0",
]

# (endpoint, extra query) pairs asked of every scenario
ENDPOINTS = [
    ("/api/v1/evaluate", ""),
    ("/api/v1/decode", ""),
    ("/api/v1/goodput", ""),
    ("/api/v1/telemetry", ""),
    ("/api/v1/timeline", ""),
    ("/metrics", ""),
]
ONCE = [
    "/api/v1/goodput?compare=1",
    "/api/v1/goodput?fail=st3&years=3&racks=4",
    "/api/v1/telemetry?fail=gpu07-st3.sw2&link=gpu07-st3.sw2&t0_s=0&t1_s=3600&step_s=60",
    "/api/v1/telemetry?flaky=gpu07-st3.sw2.c1&cables=1&t_s=7200",
    "/api/v1/timeline?fail=st3,gpu07&fault=st3",
    "/api/v1/topology?fabric=vr-nvl72",
    "/api/v1/topology?fabric=gb200-nvl72",
    "/api/v1/topology?fabric=eth-x72",
    "/api/v1/topology?fabric=vr-nvl576",
]


def urls() -> list[str]:
    out = []
    for q in SCENARIOS:
        for path, extra in ENDPOINTS:
            query = "&".join(x for x in (q, extra) if x)
            out.append(f"{path}?{query}" if query else path)
    return out + ONCE


def metrics_summary(text: str) -> str:
    """A /metrics scrape (~8 MB since issue 15's per-link fields) as a small JSON summary the
    golden test compares as it does the API's JSON: the line count, the SHA-256 of the text
    with every finite sample value written V (every name, label and non-finite value exact),
    and per metric name the samples, how many are negative and the exact sum (math.fsum) of
    their sizes, so a value that moves by more than the float tolerance is seen."""
    shape, sums = [], {}
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if line.startswith("#") or not name or not math.isfinite(v):
            shape.append(line)
            continue
        shape.append(name + " V")
        sums.setdefault(name.split("{", 1)[0], []).append(v)
    return json.dumps(
        {
            "lines": text.count("\n"),
            "shape": hashlib.sha256("\n".join(shape).encode()).hexdigest(),
            "sums": {
                k: {"n": len(v), "negative": sum(x < 0 for x in v), "size": math.fsum(map(abs, v))}
                for k, v in sorted(sums.items())
            },
        },
        sort_keys=True,
    )


def answers(client) -> dict[str, dict]:
    """Every URL's status and body: the JSON text, or for /metrics its summary
    (metrics_summary), so the recording stays small."""
    out = {}
    for url in urls():
        r = client.get(url)
        body = r.get_data(as_text=True)
        if url.startswith("/metrics"):
            body = metrics_summary(body)
        out[url] = {"status": r.status_code, "body": body}
    return out


def client():
    """A test client of an app with its own, empty cache (so nothing stale is read)."""
    from dataclasses import replace

    import config
    from app import create_app

    fresh = replace(config.settings(), cache_dir=tempfile.mkdtemp(prefix="golden-"))
    return create_app(fresh).server.test_client()


def load() -> dict[str, dict]:
    with gzip.open(FILE, "rt") as fh:
        return json.load(fh)


if __name__ == "__main__":
    if sys.argv[1:] != ["write"]:
        raise SystemExit("usage: python -m tests.golden.record write")
    data = answers(client())
    with gzip.open(FILE, "wt", compresslevel=9) as fh:
        json.dump(data, fh, sort_keys=True)
    print(f"{len(data)} answers, {FILE.stat().st_size} bytes")
