"""Where the best decode deployment changes (workloads/throughput.decode_curves reads these):
along one frontier's interactivity, and where a fault's choice differs from the healthy
rack's, each with one line of why (model/words.py)."""

from __future__ import annotations

from dataclasses import replace

from model.workloads import decode_params as D
from model.workloads import words
from model.workloads.decode import Deployment, Frontier


def _why(a: Deployment, b: Deployment) -> str:
    """The knob that changed between two deployments, the one a reader looks at first."""
    if a.tp != b.tp:
        return "tp_on" if b.tp else "tp_off"
    if a.ep != b.ep:
        return "ep_up" if b.ep > a.ep else "ep_down"
    if a.mtp != b.mtp:
        if not a.mtp or not b.mtp:
            return "mtp_on" if b.mtp else "mtp_off"
        return "mtp_more" if b.mtp > a.mtp else "mtp_fewer"
    if a.overlap != b.overlap:
        return "overlap_on" if b.overlap else "overlap_off"
    return "kv"


def _unfit_why(a: Deployment, b: Deployment, shrunk: set[int]) -> str:
    """Why the fault moves a deployment whose EP size no longer fits: to the same deployment
    on every GPU left in service (one elastic group, groups.elastic), or, where another beats
    that, the knob that differs from it; "fits" where no elastic group stands in."""
    below = [n for n in shrunk if n < a.ep]
    if not below:
        return "fits"
    stand_in = replace(a, ep=max(below))
    return "elastic" if b == stand_in else _why(stand_in, b)


def deployment_changes(fr: Frontier) -> list[dict]:
    """Where along interactivity the frontier's best deployment changes (the first point of
    the new one), from what to what, and one line of why (model/words.py)."""
    out = []
    for i in range(1, len(fr.x)):
        a, b = fr.deployment_at(i - 1), fr.deployment_at(i)
        if a is None or b is None or a == b:
            continue
        why = _why(a, b)
        x = float(fr.x[i])
        out.append(
            {
                "tokens_per_s_per_user": round(x, 2),
                "tokens_per_s_per_gpu": round(float(fr.tokens_per_s_per_gpu[i]), 1),
                "from": a.label(),
                "to": b.label(),
                "why": why,
                "idle_gpus": fr.idle_at(i),
                "line": words.deployment_change(
                    a.label(), b.label(), x, why, fr.idle_at(i), fr.serving
                ),
            }
        )
    return out


def fault_changes(sc: Frontier, hl: Frontier) -> list[dict]:
    """Where the fault's best deployment differs from the healthy rack's at the same
    interactivity: each run of grid points with the same pair, and one line of why."""
    runs: list[dict] = []
    fits = {d.ep for d in sc.deployments}
    shrunk = {d.ep for d in sc.deployments if d.ep not in D.EP_SIZES}  # groups.elastic's
    for i in range(len(sc.x)):
        a, b = hl.deployment_at(i), sc.deployment_at(i)
        x = float(sc.x[i])
        if a is None or b is None or a == b:
            continue
        last = runs[-1] if runs else None
        if last and last["_pair"] == (a, b) and last["_end"] == i - 1:
            last["_end"], last["to_tokens_per_s_per_user"] = i, round(x, 2)
            continue
        why = _why(a, b) if a.ep in fits else _unfit_why(a, b, shrunk)
        runs.append(
            {
                "tokens_per_s_per_user": round(x, 2),
                "to_tokens_per_s_per_user": round(x, 2),
                "tokens_per_s_per_gpu": round(float(sc.tokens_per_s_per_gpu[i]), 1),
                "healthy": a.label(),
                "here": b.label(),
                "why": why,
                "idle_gpus": sc.idle_at(i),
                "_pair": (a, b),
                "_end": i,
            }
        )
    return [
        {k: v for k, v in r.items() if not k.startswith("_")}
        | {
            "line": words.fault_change(
                r["healthy"],
                r["here"],
                r["tokens_per_s_per_user"],
                r["to_tokens_per_s_per_user"],
                r["why"],
                r["idle_gpus"],
                sc.serving,
            )
        }
        for r in runs
    ]
