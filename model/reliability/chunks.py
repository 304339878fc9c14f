"""Heavy studies as independent, seeded chunks: the plan (a list of chunk specs), one chunk's
answer, and the study put back together from its chunks' answers in index order.

A chunk spec is plain JSON (a Celery message); a chunk's answer is JSON text that depends on
its spec alone (each fleet chunk is seeded by its study's key and its own index), so a chunk
run twice, on two machines, or after its worker died gives the same bytes, and the study
put together from them is the one a single process computes (montecarlo.fleet,
goodput.best_policy). Pure: no I/O; dashboard/infra/tasks.py runs the chunks, in one process or
on Celery workers.

Kinds:
  fleet   one chunk of one comparison row's fleet Monte Carlo (montecarlo.fleet_chunk)
  policy  one repair policy the optimiser tries (goodput.policy_try)
"""

from __future__ import annotations

import base64
import json
from dataclasses import fields
from typing import Any

import numpy as np

from model.errors import ScenarioError
from model.query import parse_query
from model.reliability import goodput
from model.reliability.montecarlo import fleet_chunk, fleet_combine, fleet_sizes
from model.reliability.policy import candidates, parse_policy
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import Scenario

FLEET_STUDY_KEY = "fleet-study"  # every row's seed text (common random numbers across rows)


def fleet_study_plan(racks: int, years: float, key: str = FLEET_STUDY_KEY) -> list[dict]:
    """The fleet study (every comparison row's fleet of `racks` x `years`) as chunks, row by
    row, each row's chunks in index order (ScenarioError for a size out of bounds)."""
    sizes = fleet_sizes(racks, years)
    return [
        {
            "kind": "fleet",
            "row": row,
            "label": label,
            "query": sc.key(),
            "years": years,
            "racks": n,
            "key": key,
            "index": c,
        }
        for row, (label, sc) in enumerate(goodput.comparison_scenarios())
        for c, n in enumerate(sizes)
    ]


def policy_plan(s: Scenario, rates: Rates = DEFAULT_RATES, **kw: Any) -> list[dict]:
    """goodput.best_policy(s, rates, **kw) as chunks: one a candidate policy, in its order."""
    changed = {
        f.name: getattr(rates, f.name)
        for f in fields(rates)
        if getattr(rates, f.name) != getattr(DEFAULT_RATES, f.name)
    }
    return [
        {"kind": "policy", "query": s.key(), "policy": p, "rates": changed, "kw": kw}
        for p in candidates(parse_policy(s.repair).onsite)
    ]


def run_chunk(spec: dict) -> str:
    """One chunk's answer, as JSON text (the same text wherever and however often it runs)."""
    kind = spec.get("kind")
    sc = parse_query(spec["query"]).scenario
    if kind == "fleet":
        res, per_rack = fleet_chunk(
            sc, years=spec["years"], racks=spec["racks"], key=spec["key"], index=spec["index"]
        )
        packed = base64.b64encode(np.ascontiguousarray(per_rack, dtype="<f8").tobytes())
        return json.dumps({"result": res, "per_rack": packed.decode()}, sort_keys=True)
    if kind == "policy":
        rates = DEFAULT_RATES.with_overrides(**spec["rates"])
        return json.dumps(goodput.policy_try(sc, spec["policy"], rates, **spec["kw"]))
    raise ScenarioError(f"chunk kind '{kind}' is unknown (fleet or policy)", token="kind")


def fleet_study_combine(plan: list[dict], answers: list[str]) -> list[tuple[str, dict]]:
    """The study's rows, (label, montecarlo.fleet's answer), from every chunk's answer."""
    rows: dict[int, tuple[str, str, list]] = {}
    for spec, text in zip(plan, answers, strict=True):
        a = json.loads(text)
        per_rack = np.frombuffer(base64.b64decode(a["per_rack"]), dtype="<f8")
        rows.setdefault(spec["row"], (spec["label"], spec["key"], []))[2].append(
            (spec["index"], (a["result"], per_rack))
        )
    out = []
    for row in sorted(rows):
        label, key, runs = rows[row]
        runs.sort(key=lambda x: x[0])
        out.append((label, fleet_combine([r for _, r in runs], key=key)))
    return out


def policy_combine(answers: list[str]) -> dict:
    """goodput.best_policy's answer from every candidate's (policy_plan's order)."""
    return goodput.policy_pick([json.loads(t) for t in answers])
