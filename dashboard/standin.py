"""A stand-in rack: a rack's DCGM /metrics and NMX-Manager answers, for a scenario that
changes over time, so live mode can be shown (and tested) on a machine with no rack.

    python -m dashboard.standin [--port 9400] [--fabric gb200-nvl72] [--link gpu07-st3.sw1]
        [--step-s 60] [--shape twin|default] [--speed 1] [--t0-s 259200]

Its schedule: the rack healthy, then --link flaky, then --link failed, each phase --step-s
seconds of wall time (phase 2 stays). Everything is written by the twin's own writers:
/metrics is dashboard/exporter's scrape of the phase's scenario at simulated time t0 + speed
x (seconds since start), in dcgm-exporter's spelling (--shape twin: every per-link series,
switch ports and NMX's families), or in dcgm-exporter's default shape (--shape default: the
per-GPU sums only, labels gpu, UUID, device, modelName, Hostname, hosts gb200-node-01..18);
/nmx/v1/partitions, /gpus and /ports are model/telemetry/importers/nmx_answers.py's. A
phase's faults strike when it is first served (the counters' onset_s), so the counters run
on as a rack's do: a link turning flaky starts erring then, at the rate of a link just
begun to degrade (--speed 3600 runs its days of degrading in minutes).

A test drives it: POST /control (on the stand-in only: the twin has no such endpoint) with
JSON {"phase": 0|1|2} to hold a phase (null: back to the clock), {"nmx": "ok"|"500"|"slow"},
{"metrics": "ok"|"garbage"} (a link state of 7: no state NVML has), {"slow_s": 4} (how
long "slow" waits). GET /control says the
phase, its scenario and the simulated time.
"""

from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np
from flask import Flask, Response, jsonify, request
from werkzeug.serving import run_simple

from dashboard.exporter.metrics import reading_text
from dashboard.exporter.promtext import CONTENT_TYPE, family_text, label_set
from dashboard.exporter.reading import Reading
from model import Scenario, parse_query, telemetry
from model.assess import assess
from model.telemetry import names
from model.telemetry.importers import nmx_answers
from model.telemetry.snapshot import Counters

GPUS_PER_HOST = 4
HOST = "gb200-node-{:02d}"
MODEL_NAME = {"gb200-nvl72": "NVIDIA GB200", "vr-nvl72": "NVIDIA Rubin"}


@dataclass
class Rack:
    """The stand-in's schedule and what a test has set (under a lock: werkzeug threads)."""

    scenarios: tuple[str, ...]
    step_s: float
    speed: float
    t0_s: float
    start: float = field(default_factory=time.monotonic)
    held: int | None = None
    nmx: str = "ok"
    metrics: str = "ok"
    slow_s: float = 30.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    last: int = -1  # the phase last served, and the simulated time it began
    onset_s: float = 0.0
    offset: dict = field(default_factory=dict)  # what the counters served are below the model's

    def phase(self) -> int:
        with self.lock:
            if self.held is not None:
                return self.held
        return min(len(self.scenarios) - 1, int((time.monotonic() - self.start) // self.step_s))

    def t_s(self) -> float:
        return min(telemetry.MAX_T_S, self.t0_s + self.speed * (time.monotonic() - self.start))

    def scenario(self, i: int) -> Scenario:
        return parse_query(self.scenarios[i], strict=True).scenario

    def now(self) -> tuple[Scenario, Counters]:
        """The phase's scenario and counters now, its faults struck when it was first served; every counter
        continuous across a change of phase, as a rack's are (a link turning flaky starts
        erring then, at its rate: the model's flaky link has erred since t = 0, so the
        counts it had at the onset are taken off)."""
        i, t = self.phase(), self.t_s()
        with self.lock:
            if i != self.last:
                if self.last >= 0:
                    before = _less(_raw(self.scenario(self.last), t, self.onset_s), self.offset)
                    self.offset = _diff(_raw(self.scenario(i), t, t), before)
                self.last, self.onset_s = i, t
            onset, offset = self.onset_s, self.offset
        s = self.scenario(i)
        return s, _less(_raw(s, t, onset), offset)


_COUNTED = ("link", "gpu", "port", "cable")  # Counters' fields of named arrays


def _raw(s: Scenario, t: float, onset: float) -> Counters:
    return telemetry.counters(s, t, onset_s=onset)


def _diff(a: Counters, b: Counters) -> dict:
    """Each whole-number counter of a less b's (the offset that makes a continue b)."""
    out: dict = {}
    for f in _COUNTED:
        x, y = getattr(a, f) or {}, getattr(b, f) or {}
        out[f] = {k: v - y[k] for k, v in x.items() if k in y and v.dtype.kind in "iu"}
    return out


def _less(c: Counters, offset: dict) -> Counters:
    """The snapshot with each whole-number counter less its offset."""
    if not offset:
        return c
    fields = {}
    for f in _COUNTED:
        arrs = getattr(c, f)
        if arrs is not None:
            off = offset.get(f, {})
            fields[f] = {k: v - off[k] if k in off else v for k, v in arrs.items()}
    return replace(c, **fields)


def read_now(rack: Rack) -> Reading:
    """What the stand-in reports now: the twin's own reading of the phase's scenario."""
    s, snap = rack.now()
    a = assess(s)
    rule = telemetry.health_rule(s, snap.t_s, onset_s=snap.onset_s)
    return Reading(snap, a.state, a.partition, rule)


def schedule(fabric: str, link: str, features: str = "telemetry") -> tuple[str, ...]:
    """The three phases' queries: healthy, the link flaky, the link failed."""
    base = f"fabric={fabric}" + (f"&on={features}" if features else "")
    return (base, f"{base}&flaky={link}", f"{base}&fail={link}")


def default_shape(r: Reading) -> str:
    """The scenario's per-GPU sums in dcgm-exporter's default shape: one series a GPU, labels
    gpu (its index on the host), UUID, device, modelName and Hostname (a host a compute tray,
    in tray order), the values the twin's own counters' sums (dashboard/exporter)."""
    f = r.fabric
    labels = []
    for g in range(f.gpus):
        host, i = g // f.gpus_per_tray, g % f.gpus_per_tray
        labels.append(
            label_set(
                {
                    "gpu": str(i),
                    "UUID": f"GPU-{host:04x}{i:04x}-5e0c-4e3f-8a9b-{g:012x}",
                    "device": f"nvidia{i}",
                    "modelName": MODEL_NAME.get(f.key, f.key),
                    "Hostname": HOST.format(host + 1),
                }
            )
        )
    parts = []
    for name in telemetry.GPU_TOTALS.values():
        spelled = names.spelled(name, names.EXPORTER)
        pre = tuple(f"{spelled}{lab} " for lab in labels)
        values = np.asarray(r.snap.gpu[name])
        parts.append(family_text(spelled, "counter", f"{spelled} (the stand-in rack)", pre, values))
    return "".join(parts)


def _garbage(text: str) -> str:
    """The scrape with its first link state 7 (NVML has 0 and 1 only)."""
    key = "DCGM_FI_DEV_NVLINK_GET_STATE{"
    i = text.find(key)
    if i < 0:
        key = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL{"
        i = text.find(key)
        end = text.index("\n", i)
        return text[:i] + text[i:end].rsplit(" ", 1)[0] + " -5" + text[end:]
    end = text.index("\n", i)
    return text[:i] + text[i:end].rsplit(" ", 1)[0] + " 7" + text[end:]


def create(rack: Rack, shape: str = "twin") -> Flask:
    """The stand-in's web app: /metrics, NMX-Manager's three answers and /control."""
    app = Flask("standin")

    @app.get("/metrics")
    def metrics() -> Response:
        r = read_now(rack)
        body = default_shape(r) if shape == "default" else reading_text(r, False, names.EXPORTER)
        if rack.metrics == "garbage":
            body = _garbage(body)
        return Response(body, headers={"Content-Type": CONTENT_TYPE})

    def nmx(which: str) -> Response:
        if rack.nmx == "500":
            return Response('{"error": "internal"}', status=500)
        if rack.nmx == "slow":
            time.sleep(rack.slow_s)
        r = read_now(rack)
        snap, part = r.snap, r.partition
        body = {
            "partitions": lambda: nmx_answers.partitions_answer(snap, part),
            "gpus": lambda: nmx_answers.gpus_answer(snap, part),
            "ports": lambda: nmx_answers.ports_answer(snap),
        }[which]()
        return Response(body, headers={"Content-Type": "application/json"})

    for which in ("partitions", "gpus", "ports"):
        app.add_url_rule(
            f"/nmx/v1/{which}", f"nmx_{which}", lambda which=which: nmx(which), methods=["GET"]
        )

    @app.route("/control", methods=["GET", "POST"])
    def control() -> Response:
        if request.method == "POST":
            ask = request.get_json(force=True) or {}
            with rack.lock:
                if "phase" in ask:
                    rack.held = None if ask["phase"] is None else int(ask["phase"])
                rack.nmx = str(ask.get("nmx", rack.nmx))
                rack.metrics = str(ask.get("metrics", rack.metrics))
                rack.slow_s = float(ask.get("slow_s", rack.slow_s))
        i = rack.phase()
        return jsonify(
            {
                "phase": i,
                "scenario": rack.scenarios[i],
                "t_s": rack.t_s(),
                "nmx": rack.nmx,
                "metrics": rack.metrics,
            }
        )

    return app


def main(argv: list[str] | None = None) -> None:
    """Serve the stand-in rack until stopped."""
    p = argparse.ArgumentParser(
        prog="python -m dashboard.standin", description=__doc__.split("\n")[0]
    )
    p.add_argument("--port", type=int, default=9400)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--fabric", default="gb200-nvl72")
    p.add_argument("--link", default="gpu07-st3.sw1")
    p.add_argument("--step-s", type=float, default=60.0, help="wall seconds a phase")
    p.add_argument("--speed", type=float, default=1.0, help="simulated seconds a wall second")
    p.add_argument("--t0-s", type=float, default=3 * 86400.0, help="simulated time at start")
    p.add_argument("--shape", choices=("twin", "default"), default="twin")
    a = p.parse_args(argv)
    rack = Rack(schedule(a.fabric, a.link), a.step_s, a.speed, a.t0_s)
    for q in rack.scenarios:  # a bad --fabric or --link stops here, naming it
        parse_query(q, strict=True)
    run_simple(a.host, a.port, create(rack, a.shape), threaded=True)


if __name__ == "__main__":
    main()
