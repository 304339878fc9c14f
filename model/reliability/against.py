"""A history against another on the same failures (issue 30's side by side): the same seed
under a second feature set, fabric or repair policy, the difference as it accumulates, and the
faults where the two part. Each history is model/reliability/history.py's."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from model.reliability.history import ACTIONS, MAX_PARTINGS, history
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import Scenario


def against(
    s: Scenario,
    other: Scenario,
    rates: Rates = DEFAULT_RATES,
    *,
    racks: int,
    days: float,
    seed: int,
    spares: bool = False,
) -> dict:
    """Two histories on the same seed (the same sampled failures: each fault draws its own
    numbers, model/reliability/draws.py): each, the difference (other - s) in goodput, restarts and money as it
    accumulates, and the faults where the two part (_partings)."""
    kw = {"racks": racks, "days": days, "seed": seed, "spares": spares}
    a = history(s, rates, **kw)
    b = history(other, rates, **kw)
    sa, sb = a["series"], b["series"]
    diff = {
        "t_h": sa["t_h"],
        "goodput": [y - x for x, y in zip(sa["goodput"], sb["goodput"], strict=True)],
        "restarts": [y - x for x, y in zip(sa["restarts"], sb["restarts"], strict=True)],
        "money_lost": [y - x for x, y in zip(sa["money_lost"], sb["money_lost"], strict=True)],
    }
    return {"history": a, "against": b, "difference": diff, "partings": _partings(a, b)}


def partings_between(a: dict, b: dict, t0_h: float, t1_h: float) -> list[dict]:
    """Every fault where two histories on one seed part from t0_h to t1_h (hours), in time
    order: _partings of the faults in that span (a fault has the same time in both, so a span
    holds both sides of it). What a page shows around a time, past the first MAX_PARTINGS."""
    return _partings(_span(a, t0_h, t1_h), _span(b, t0_h, t1_h), limit=None)["first"]


def _span(h: dict, t0_h: float, t1_h: float) -> dict:
    """A history with only its events from t0_h to t1_h (the rest of it as it is)."""
    e = h["events"]
    lo, hi = bisect_left(e["t_h"], t0_h), bisect_right(e["t_h"], t1_h)
    return h | {"events": {k: v[lo:hi] for k, v in e.items()}}


def _partings(a: dict, b: dict, limit: int | None = MAX_PARTINGS) -> dict:
    """The faults where two histories on one seed part, in time order (the first
    MAX_PARTINGS listed, all counted): the same fault that the fabric and the job met
    another way (rerouted against aborted, say) or repaired in another time (a day more to
    find it without per-link counters; a flaky link flagged and drained against left to
    fail: one fault, drawn once), or a fault only one of them has. The same
    fault met the same way is not a parting even when its cost differs: the work an abort
    loses depends on where it lands in the checkpoint cycle, which earlier stops move."""

    def table(h: dict) -> dict[tuple[str, float, int], tuple[int, float, str, float]]:
        e, kinds = h["events"], h["kinds"]
        return {
            (kinds["fault"][k], t, r): (
                kinds["action"][k],
                c,
                kinds["name"][k],
                kinds["repair_h"][k],
            )
            for t, r, k, c in zip(e["t_h"], e["rack"], e["kind"], e["cost_h"], strict=True)
        }

    ta, tb = table(a), table(b)
    out = []
    for key in sorted(ta.keys() | tb.keys(), key=lambda k: k[1]):
        x, y = ta.get(key), tb.get(key)
        if x is not None and y is not None and (x[0], x[3]) == (y[0], y[3]):
            continue  # the same fault met the same way (its cost may differ with the phase)
        out.append(
            {
                "t_h": key[1],
                "rack": key[2],
                "kind": (x or y)[2],  # its kind here (or there, when only there)
                "action": None if x is None else ACTIONS[x[0]],
                "action_against": None if y is None else ACTIONS[y[0]],
                "repair_h": None if x is None else x[3],
                "repair_h_against": None if y is None else y[3],
                "cost_h": None if x is None else x[1],
                "cost_h_against": None if y is None else y[1],
            }
        )
    return {"count": len(out), "first": out[:limit]}
