"""A history's sentences (issue 30): what each state of a rack means, what a fault did and
cost, the job so far, where two histories part, and the readers' question (how often one
link's failure stopped the job, and what each stop cost). Written from a history's answer
(model/reliability/history.py) with model/words.py's formatters; nothing reads them back."""

from __future__ import annotations

from model.reliability.history import DEGRADE, REROUTE, STATES
from model.words import count, duration_words, money, plural, sig

# What each state of a rack (history.STATES) means, for the legend.
STATE_WORDS = {
    "running": "running: every part healthy",
    "degraded": "degraded: the job runs on it, slower, until the repair",
    "rerouted": "rerouted: the fabric routed around a failed part in ~1 ms; the job runs on",
    "repair": "being repaired: the rack is out while a part is swapped",
    "down": "down: the rack stopped the job (aborted or parked) and is out",
    "spare": "out, a spare rack runs in its place while it is repaired",
}
assert tuple(STATE_WORDS) == STATES, "a legend word for every state, in order"


def when(t_h: float) -> str:
    """A time in the history for people, to a tenth of a day: 'day 12.5' (t_h: hours from
    the start)."""
    return f"day {t_h / 24.0:,.1f}"


def big(x: float) -> str:
    """A large count in words, to 3 significant figures: '597 billion', '2.41 million',
    '283'."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(x) >= size:
            return f"{sig(x / size)} {word}"
    return sig(x)


def cost_words(h: dict, cost_h: float) -> str:
    """Full-rate hours of the whole job lost, in GPU-hours, work and money."""
    per = h["per_hour_lost"]
    work = per["steps"] or per["tokens"]
    unit = "training steps" if per["steps"] else "tokens"
    return (
        f"{big(cost_h * per['gpu_h'])} GPU-h, {big(cost_h * work)} {unit}, "
        f"{money(cost_h * per['money'])}"
    )


def event_sentence(h: dict, i: int) -> str:
    """Event i of a history: when, which rack, what failed, what the fabric and the job
    did, the repair and how long it took, and what it cost."""
    e, k = h["events"], h["kinds"]
    kind = e["kind"][i]
    act = h["actions"][k["action"][kind]]
    repair = k["repair_h"][kind]
    fixed = f"; repaired in {duration_words(repair * 3600)}" if repair > 0 else ""
    stall = k["stall_s"][kind]
    rerouted = f" (routed around in {sig(stall * 1e3, 2)} ms)" if 0 < stall < 1 else ""
    cost = e["cost_h"][i]
    costs = f"; cost {cost_words(h, cost)}" if cost > 0 else "; cost nothing"
    return (
        f"{when(e['t_h'][i])}, rack {e['rack'][i]}: {k['name'][kind]}: {act}{rerouted}"
        f"{fixed}{costs}"
    )


def so_far(h: dict, i: int) -> str:
    """The job at series point i: its goodput so far, restarts and money lost."""
    s = h["series"]
    return (
        f"At {when(s['t_h'][i])} the job has kept {s['goodput'][i]:.1%} goodput so far, "
        f"restarted {plural(s['restarts'][i], 'time')} and lost "
        f"{money(s['money_lost'][i])} of GPU time ({sig(s['gpu_h_lost'][i])} GPU-h)."
    )


def so_far_against(h: dict, i: int, name: str) -> str:
    """The second history at series point i, on the same failures."""
    s = h["series"]
    return (
        f"Against {name}: {s['goodput'][i]:.1%} goodput so far, "
        f"{plural(s['restarts'][i], 'restart')}, {money(s['money_lost'][i])} lost."
    )


def summary(h: dict) -> str:
    """The whole history in one sentence: the job, its faults, its stops, what it kept."""
    n = len(h["events"]["t_h"])
    spells = len(h["job_down"]["from_h"])
    spare = "with spare racks" if h["spares"] else "without spare racks"
    return (
        f"One sampled history (seed {h['seed']}) of a job on {plural(h['racks'], 'rack')} "
        f"({count(h['gpus'])} GPUs, {spare}, repair policy {h['policy']}) over "
        f"{plural(h['days'], 'day')}: {plural(n, 'fault')}, the job stopped "
        f"{plural(spells, 'time')} and kept {h['fraction']:.1%} goodput, "
        f"{money(h['series']['money_lost'][-1])} of GPU time lost."
    )


def link_answer(h: dict) -> str:
    """The readers' question: how often a single link's failure stopped the job over the
    history, and what each such stop cost."""
    ls = h["link_stops"]
    n, stops = ls["link_faults"], ls["stopped_the_job"]
    days = h["days"]
    if n == 0:
        return f"No single link failed in {plural(days, 'day')}."
    if stops == 0:
        return (
            f"{plural(n, 'single link')} failed in {plural(days, 'day')} and none stopped "
            "the job: the fabric routed around each and the job ran on."
        )
    each = ls["total_cost_h"] / stops
    at_once = sum(1 for a in ls["action"] if a not in (REROUTE, DEGRADE))
    later = stops - at_once
    how = []
    if at_once:
        how.append(f"{count(at_once)} at once (aborted or parked)")
    if later:
        how.append(
            f"{count(later)} later, when its rack was taken out to swap the part (the fabric "
            "had routed around it and the job ran on until then)"
        )
    return (
        f"{plural(n, 'single link')} failed in {plural(days, 'day')}; {count(stops)} of them "
        f"stopped the job, {' and '.join(how)}: one stop every "
        f"{duration_words(days * 86400 / stops)}, each costing {cost_words(h, each)} on "
        f"average, {money(ls['total_money'])} in all."
    )


def parting_sentence(p: dict, name: str, other: str) -> str:
    """Where two histories part on one fault: what each did about it, its repair and cost."""

    def side(label: str, act: str | None, rep: float | None, cost: float | None) -> str:
        if act is None:
            return f"{label}: no such fault"
        took = f", repaired in {duration_words(rep * 3600)}" if rep else ""
        return f"{label}: {act}{took}, {sig(cost or 0.0)} full-rate job-hours lost"

    a = side(name, p["action"], p["repair_h"], p["cost_h"])
    b = side(other, p["action_against"], p["repair_h_against"], p["cost_h_against"])
    return f"{when(p['t_h'])}, rack {p['rack']}: {p['kind']}. {a}; {b}."
