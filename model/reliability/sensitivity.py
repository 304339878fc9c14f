"""Which assumptions rule goodput: every [A] reliability input (model/reliability/rates.py)
moved to each end of its plausible span, the rest at their defaults, and the goodput there.

Issue 29, item 9: the copper link-end rate, an assumption, drives much of a rack-year's
badput; the page and /api/v1/calibration show every [A] whose span moves the default rack's
goodput by more than THRESHOLD_PP, with its span and the goodput at each end, the copper
link-end rate first, then by how far each moves it. Closed form, pure and deterministic.
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

from model.query import parse_query
from model.reliability.goodput import closed_form
from model.reliability.rates import DEFAULT_RATES, DOMAIN_ONLY_FIELDS, Rates

THRESHOLD_PP = 0.1  # issue 29: an assumption that moves goodput by more than this is shown
FIRST = "link_end_per_h"  # the copper link-end rate leads the table (issue 29)
SCENARIO = ""  # the default vr-nvl72 deepseek-r1 rack, repair at once


def _goodput(rates: Rates) -> float:
    return closed_form(parse_query(SCENARIO).scenario, rates)["fraction"]


def _row(name: str, meta: dict, base: float) -> dict:
    """One assumption at both ends of its span: the goodput there and the larger move."""
    lo, hi, why = meta["span"]
    at_lo = _goodput(DEFAULT_RATES.with_overrides(**{name: lo}))
    at_hi = _goodput(DEFAULT_RATES.with_overrides(**{name: hi}))
    return {
        "name": name,
        "unit": meta["unit"],
        "default": getattr(DEFAULT_RATES, name),
        "low": lo,
        "high": hi,
        "span": why,
        "goodput_low": at_lo,
        "goodput_default": base,
        "goodput_high": at_hi,
        "swing_pp": 100 * max(abs(at_lo - base), abs(at_hi - base)),
        "source": meta["source"],
    }


@lru_cache(maxsize=1)
def _rows() -> tuple[dict, ...]:
    base = _goodput(DEFAULT_RATES)
    rows = [
        _row(f.name, dict(f.metadata), base)
        for f in fields(Rates)
        if f.metadata["tag"] == "A" and f.name not in DOMAIN_ONLY_FIELDS
    ]
    return tuple(sorted(rows, key=lambda r: (r["name"] != FIRST, -r["swing_pp"], r["name"])))


def sensitivity() -> dict:
    """Every one-rack [A] input tried at both ends of its span (a fresh dict): `rows` those
    that move goodput by more than THRESHOLD_PP, copper link ends first; `below` the others."""
    rows = [dict(r) for r in _rows()]
    return {
        "scenario": "vr-nvl72, deepseek-r1 decode, repair at once, one rack-year (closed form)",
        "threshold_pp": THRESHOLD_PP,
        "rows": [r for r in rows if r["swing_pp"] > THRESHOLD_PP],
        "below": [r["name"] for r in rows if r["swing_pp"] <= THRESHOLD_PP],
        "reading": (
            "each assumption [A] alone at the low and the high end of its span, every other "
            "input at its default; goodput of the default rack at each end. A multi-rack "
            "domain's own rate (trunk links) is not tried here."
        ),
    }


def markdown() -> str:
    """sensitivity() as a Markdown table (docs/GOODPUT.md), the ones below the bar after it."""
    a = sensitivity()
    lines = [
        (
            "| assumption [A] | default | span (low to high) | goodput at low | at default | "
            "at high | moves (pp) |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for r in a["rows"]:
        lines.append(
            f"| `{r['name']}` ({r['unit']}) | {r['default']:.3g} | {r['low']:.3g} to "
            f"{r['high']:.3g}: {r['span']} | {100 * r['goodput_low']:.3f}% | "
            f"{100 * r['goodput_default']:.3f}% | {100 * r['goodput_high']:.3f}% | "
            f"{r['swing_pp']:.3f} |"
        )
    below = ", ".join(f"`{x}`" for x in a["below"]) or "none"
    return "\n".join(lines) + f"\n\nBelow {a['threshold_pp']} pp across their spans: {below}."
