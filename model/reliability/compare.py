"""What each feature buys (issue 14, Must show): the side-by-side of the seven features off
one at a time, gb200-nvl72 and eth-x72, at a job's scales, in goodput points, GPU-hours a
year and money at a price per GPU-hour, each with a sentence on why it is large or small.

The numbers are goodput.comparison()'s (the closed form); this module only takes the
differences, prices them and says where they come from (the event kinds whose cost moves
most). `python -m model.docs` rewrites the tables docs/GOODPUT.md carries (its compare and
domain regions) from these functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.multirack.domains import DOMAINS
from model.reliability.by_kind import DOMAIN_SCALES, RACK_GPUS, RACK_SCALES, RELIABILITY
from model.reliability.goodput import comparison
from model.reliability.rates import DEFAULT_RATES, HOURS_PER_YEAR, Rates, rate_facts
from model.scenario import fabric_kind

GPUS_PER_RACK = RACK_GPUS
# The scales the Must-show names: one rack, and a job over 2,000 racks with spare racks
# (without spares such a job waits for every repair of every rack, and is almost never up).
DEFAULT_SCALES = RACK_SCALES
SMALL_PP = 0.01  # below this a feature's value is called small

# What a cause's change in hours means, {h} hours {more} a year.
_CAUSE_WORDS = {
    "detection": "hangs wait {h} h {more} a year to be detected",
    "restarts": "restarts take {h} h {more} a year",
    "lost_work": "{h} h {more} a year of work is lost since the last checkpoint",
    "checkpoints": "checkpoint writes take {h} h {more} a year",
    "degraded": "the job runs slower, {h} full-rate hours {more} a year",
    "maintenance": "update windows hold the {unit} {h} h {more} a year",
    "repair_wait": "the {unit} stands idle {h} h {more} a year for repairs and swaps",
}
# When each row's difference can be felt at all (FACTS.md §3): said after a small value.
_WHEN = {
    "cp-resilience": "it acts only while a management controller is down",
    "partial-rack": "it acts on GPU and compute-tray faults, the most frequent",
    "hot-swap": "it acts only on switch chip and tray faults, a few a decade",
    "sdr-fallback": "it acts only while the rack has no central fabric controller",
    "reroute": "it acts on every link, chip and tray fault",
    "issu": "it acts on every switch software update",
    "telemetry": "it shortens detection and diagnosis of link faults and drains flaky links "
    "ahead: worth what a dark link costs the job",
    "gb200-nvl72": "NVLink 5 without the NVLink 6 features it lacks, on half the links",
    "eth-x72": "every feature [A]; Ethernet's cost is in throughput, not in faults",
}


def _kind_hours(r: dict) -> dict[str, float]:
    """Expected hours a year each event kind costs: its down time, degraded running and the
    work lost at its aborts (about half a checkpoint segment each)."""
    seg_h = (r["checkpoint_interval_s"] + DEFAULT_RATES.checkpoint_write_s) / 3600.0
    return {
        k["kind"]: k["per_rack_year"]
        * (k["down_h_per_event"] + k["degraded_h_per_event"] + k["unplanned_stops"] * seg_h / 2)
        for k in r["kinds"]
    }


def why(key: str, value_pp: float, ref: dict, row: dict, spares: bool, unit: str = "rack") -> str:
    """Why a row's value is large or small: the cause of badput that moves most its way, and
    the event kinds whose cost moves most (`unit`: what stands idle, a rack or a domain)."""
    if abs(value_pp) < SMALL_PP:
        out = f"small ({value_pp:+.3f} pp): {_WHEN.get(key, 'little here depends on it')}"
        if spares and key == "partial-rack":
            out += "; with spare racks a job restarts on a whole spare rack instead"
        return out
    sign = 1.0 if value_pp > 0 else -1.0
    hr, hx = ref["badput_hours_per_rack_year"], row["badput_hours_per_rack_year"]
    cause = max(hr, key=lambda c: sign * (hx[c] - hr[c]))
    kr, kx = _kind_hours(ref), _kind_hours(row)
    moved = sorted(((kx.get(k, 0.0) - kr.get(k, 0.0), k) for k in set(kr) | set(kx)), reverse=True)
    rate = {k["kind"]: k["per_rack_year"] for k in row["kinds"]}
    top = [f"{k} ({rate.get(k, 0.0):.3g} a year)" for d, k in moved[:2] if sign * d > 1e-3]
    size = "large" if abs(value_pp) >= 1.0 else "modest"
    where = "without it" if key in FEATURE_KEYS else f"on {key}"
    words = _CAUSE_WORDS[cause].format(
        h=f"{abs(hx[cause] - hr[cause]):,.1f}", more="more" if sign > 0 else "less", unit=unit
    )
    out = f"{size} ({value_pp:+.2f} pp): {where} {words}"
    return out + (f", mostly from {' and '.join(top)}" if top else "")


def scales_for(
    job_racks: int, spares: bool, fabric: str = "vr-nvl72"
) -> tuple[tuple[int, bool], ...]:
    """The Must-show's scales (1 rack; 2,000 racks with spares) and the job's own; on a
    multi-rack domain, one domain and the job's own (a job over that many domains)."""
    own = (job_racks, spares)
    base = RELIABILITY[fabric_kind(fabric)].scales
    return base if own in base else (*base, own)


def _row_key(row: dict) -> str:
    """The feature a row turns off, or the fabric it is."""
    return row["off"][0] if row["off"] else row["fabric"]


def feature_values(
    rates: Rates = DEFAULT_RATES,
    *,
    scales: Sequence[tuple[int, bool]] = DEFAULT_SCALES,
    repair: str = "now",
    checkpoint_interval_s: float | None = None,
    price_per_gpu_h: float | None = None,
    workload: str | None = None,
    fabric: str = "vr-nvl72",
    at: float | None = None,
) -> dict:
    """Each comparison row's value at each (job racks, spare racks) scale.

    A feature's value is the goodput of vr-nvl72 (or the multi-rack domain `fabric`) with all
    seven less the goodput with that feature off; a fabric row's is vr-nvl72's over it. In
    GPU-hours a year: value x the job's GPUs x 8,766 h; in money: x price_per_gpu_h
    (rates.price_per_gpu_h by default). On a domain a scale's "racks" are domains. `at`: the
    interactivity decode runs at (the scenario's at=; the default's if None).
    """
    k = RELIABILITY[fabric_kind(fabric)]
    unit_gpus, unit = k.unit_gpus(fabric), k.unit
    price = rates.price_per_gpu_h if price_per_gpu_h is None else price_per_gpu_h
    if not isinstance(price, int | float) or not 0.0 <= price <= 1000.0:
        raise ScenarioError("price must be from 0 to 1,000 $ per GPU-hour", token="price")
    if not scales:
        raise ScenarioError("no job scale to compare at", token="job_racks")
    cols = []
    for job_racks, spares in scales:
        rows = comparison(
            rates,
            job_racks=job_racks,
            spares=spares,
            repair=repair,
            checkpoint_interval_s=checkpoint_interval_s,
            workload=workload,
            fabric=fabric,
            at=at,
        )
        cols.append((job_racks, spares, rows))
    out_rows = []
    for i, first in enumerate(cols[0][2]):
        key = _row_key(first)
        at = []
        for job_racks, spares, rows in cols:
            ref, row = rows[0], rows[i]
            value = ref["fraction"] - row["fraction"]
            gpu_h = value * job_racks * unit_gpus * HOURS_PER_YEAR
            at.append(
                {
                    "job_racks": job_racks,
                    "spares": spares,
                    "fraction": row["fraction"],
                    "value_pp": value * 100.0,
                    "gpu_hours_per_year": gpu_h,
                    "money_per_year": gpu_h * price,
                    "badput_hours_per_year": row["badput_hours_per_rack_year"],
                    "why": "the reference row"
                    if i == 0
                    else why(key, value * 100, ref, row, spares, unit),
                }
            )
        out_rows.append({"label": first["label"], "query": first["query"], "key": key, "at": at})
    return {
        "price_per_gpu_h": price,
        "price_source": next(f.source for f in rate_facts(rates) if f.name == "price_per_gpu_h"),
        "repair": repair,
        "workload": cols[0][2][0]["workload"],
        "scales": [{"job_racks": j, "spares": s, "gpus": j * unit_gpus} for j, s, _ in cols],
        "rows": out_rows,
    } | (
        {"fabric": fabric, "unit": f"{fabric} domains ({unit_gpus:,} GPUs each)"}
        if k.own_features
        else {}
    )


def records(values: dict) -> list[dict]:
    """The table flat, one record a row and scale: what a CSV export writes."""
    out = []
    for row in values["rows"]:
        for a in row["at"]:
            out.append(
                {
                    "configuration": row["label"],
                    "job racks": a["job_racks"],
                    "spare racks": "yes" if a["spares"] else "no",
                    "goodput %": round(a["fraction"] * 100, 4),
                    "value, pp": round(a["value_pp"], 4),
                    "GPU-hours a year": round(a["gpu_hours_per_year"], 1),
                    f"$ a year at ${values['price_per_gpu_h']:g}/GPU-h": round(a["money_per_year"]),
                    "why": a["why"],
                }
            )
    return out


def _cells(a: dict, money: bool) -> list[str]:
    """One scale's cells of a table row: goodput, value, GPU-hours (and money)."""
    out = [f"{a['fraction']:.3%}", f"{a['value_pp']:+.3f}", f"{a['gpu_hours_per_year']:,.0f}"]
    return out + ([f"{a['money_per_year']:,.0f}"] if money else [])


def markdown(values: dict) -> str:
    """The side-by-side as a Markdown table (docs/GOODPUT.md), then the sentences."""
    scales = values["scales"]
    head = ["configuration"]
    for sc in scales:
        tag = f"{sc['job_racks']:,} rack{'s' if sc['job_racks'] > 1 else ''}"
        tag += ", spares" if sc["spares"] else ""
        head += [f"{tag}: goodput", "value (pp)", "GPU-h a year", "$ a year"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in values["rows"]:
        cells = [row["label"]] + [c for a in row["at"] for c in _cells(a, money=True)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for row in values["rows"][1:]:
        parts = "; at ".join(
            f"{a['job_racks']:,} rack{'s' if a['job_racks'] > 1 else ''}, {a['why']}"
            for a in row["at"]
        )
        lines.append(f"- **{row['label']}**: at {parts}.")
    return "\n".join(lines)


def beside(rates: Rates = DEFAULT_RATES, fabric: str = "vr-nvl1152", **kw) -> dict:
    """The seven features on a multi-rack domain beside one rack and beside as many racks
    joined by the scale-out network (the same GPUs): feature_values of each, by feature."""
    d = DOMAINS[fabric]
    cols = (
        ("one vr-nvl72 rack (72 GPUs)", feature_values(rates, scales=((1, False),), **kw)),
        (
            f"{d.racks} vr-nvl72 racks on scale-out ({d.gpus:,} GPUs)",
            feature_values(rates, scales=((d.racks, False),), **kw),
        ),
        (
            f"{fabric}: one NVLink domain ({d.gpus:,} GPUs)",
            feature_values(rates, scales=DOMAIN_SCALES, fabric=fabric, **kw),
        ),
    )
    rows = []
    for i, key in enumerate(("all", *FEATURE_KEYS)):
        at = [v["rows"][i]["at"][0] for _, v in cols]
        rows.append({"key": key, "at": at})
    return {"columns": [t for t, _ in cols], "rows": rows, "fabric": fabric}


def markdown_beside(b: dict) -> str:
    """beside() as a Markdown table (docs/GOODPUT.md), then each feature's sentences."""
    head = ["feature off"]
    for t in b["columns"]:
        head += [f"{t}: goodput", "value (pp)", "GPU-h a year"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in b["rows"]:
        cells = ["none (all seven on)" if row["key"] == "all" else row["key"]]
        cells += [c for a in row["at"] for c in _cells(a, money=False)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for row in b["rows"][1:]:
        parts = "; ".join(f"{t}: {a['why']}" for t, a in zip(b["columns"], row["at"], strict=True))
        lines.append(f"- **{row['key']}**: {parts}.")
    return "\n".join(lines)
