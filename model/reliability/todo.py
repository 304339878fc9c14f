"""What to do now: the repair each of a rack's faults needs, in the order the repair policy
says, with what waiting costs an hour (issue 31: the live rack's "what to do").

Each repair is the scenario's own (model/fabric/fate.py: `Assessment.repairs`). Its cost of
waiting is what the fault costs while it stays: the share of the rack's work it takes (the
delivered fraction with it against without it: model/workloads/throughput.py), in GPU-hours
an hour (x the rack's GPUs) and in money (x rates.price_per_gpu_h) and tokens (x the healthy
rack's tokens per second). The order (model/reliability/policy.py's policies):

1. now, first: a fault the job cannot run without (the rack is down meanwhile, or waits for
   its controller): never deferred, by any policy;
2. now: what needs no rack-down (a hot swap, a restart in place);
3. rack-down visits: now under repair=now; otherwise when the policy calls the visit (the
   next planned window; K links dark; the worst GPU below P% of its bandwidth), each pending
   visit done in one rack-down;
4. a degrading (flaky) link: drained on purpose before it fails, by the forecast's advice
   (model/telemetry/forecast.py; the live reading's from the counters' trend).
Within a step, the costliest first.

A flaky link still carries the job, so what it takes now is little or nothing; waiting
risks it failing first. Its cost of waiting an hour is also that risk, priced: the chance it
fails within the hour (1 / the forecast's time to failure from its measured trend; without a
trend, 1 / rates.flaky_lead_h, the 120 h [M] a public GB200 link erred before it failed,
FACTS.md §3, as a constant hazard [D]) x what failing unplanned costs the job beyond the
drain (model/reliability/effects.py unplanned_extra: detection, diagnosis, the reroute's
stall, and at each unplanned stop the work since the last checkpoint, half the checkpoint
interval and its write on average [D], the interval reliability/accounting's), x the rack's
GPUs, x rates.price_per_gpu_h.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from model import words
from model.assess import assess
from model.kinds import Meanwhile, RepairMode
from model.reliability.accounting import checkpoint_interval_s
from model.reliability.effects import unplanned_extra
from model.reliability.policy import RepairPolicy, parse_policy
from model.reliability.rates import DEFAULT_RATES, Rates
from model.scenario import Scenario
from model.workloads.throughput import delivered_fraction, healthy_tokens_per_s

STEPS = (
    "now, first: the job cannot run until it is done",
    "now: no rack-down needed",
    "at the repair visit the policy calls",
    "drain on purpose before it fails",
)
_STOPS = (Meanwhile.DOWN, Meanwhile.WAITS_FOR_CONTROLLER)


def _alone(s: Scenario, cid: str | None) -> Scenario:
    """The scenario's rack with one fault (or the switch update) alone; None: none at all."""
    return replace(
        s,
        fail=tuple(x for x in s.fail if x == cid),
        flaky=tuple(x for x in s.flaky if x == cid),
        update=s.update if cid == "update" else (),
    )


def _cost(s: Scenario, cid: str, rates: Rates) -> dict:
    """What the fault costs an hour while it waits, as if alone on the rack (faults together
    cost what cost_per_h says, not their sum): the work share it takes, in GPU-hours, money
    and tokens."""
    share = max(0.0, delivered_fraction(_alone(s, None)) - delivered_fraction(_alone(s, cid)))
    gpus = assess(s).fabric.gpus
    gpu_h = share * gpus
    return {
        "work_share": share,
        "gpu_hours_per_h": gpu_h,
        "money_per_h": gpu_h * rates.price_per_gpu_h,
        "tokens_per_h": share * healthy_tokens_per_s(s) * 3600.0,
    }


def _when(policy: RepairPolicy) -> str:
    """When the policy does a rack-down visit, in words."""
    if policy.kind == "now":
        return "now (repair=now: every visit as soon as its part is on site)"
    return f"at the policy's visit, which waits for {policy.waits_for}"


def _drain_when(action: str | None) -> str:
    """When to drain a degrading link, from the forecast's action (None: no trend read)."""
    if action is None:
        return "at the next repair visit (no trend read)"
    if action == "drain now":
        return "now: the forecast says drain now"
    return f"when the forecast says drain (it says {action} now)"


def fail_risk(
    s: Scenario,
    link: str,
    ttf_h: float | None,
    rates: Rates = DEFAULT_RATES,
    trend_read: bool = False,
) -> dict:
    """What waiting an hour risks with a flaky link (module docstring): the chance it fails
    within the hour, why that chance, and the GPU-hours its failing unplanned costs the job
    beyond draining it first. ttf_h: the forecast's time to failure (None: none, because no
    trend was read, or because it was, trend_read, and is not rising to the failure rate)."""
    if ttf_h is None:
        p = 1.0 / rates.flaky_lead_h
        lead = (
            f"a degrading link fails about {words.sig(rates.flaky_lead_h)} h after its errors "
            "begin, as the public GB200 case of FACTS.md §3 did"
        )
        basis = (
            f"its measured trend sets no time to failure, so the model's lead: {lead}"
            if trend_read
            else f"{lead}; no trend read yet"
        )
    elif ttf_h <= 1.0:
        p, basis = 1.0, "the forecast expects it to fail within the hour at its measured trend"
    else:
        p = 1.0 / ttf_h
        basis = f"the forecast expects it to fail in {words.sig(ttf_h)} h at its measured trend"
    x = unplanned_extra(s, link, rates)
    seg_h = (checkpoint_interval_s(s, rates) + rates.checkpoint_write_s) / 3600.0
    lost_h = x["unplanned_stops"] * seg_h / 2.0
    gpus = assess(s).fabric.gpus
    if_fails = (x["extra_h"] + lost_h) * gpus
    return {
        "fail_per_h": p,
        "basis": basis,
        "if_it_fails_gpu_hours": if_fails,
        "detect_h": x["detect_h"],
        "lost_work_h": lost_h,
        "gpu_hours_per_h": p * if_fails,
        "money_per_h": p * if_fails * rates.price_per_gpu_h,
    }


def _flaky_row(s: Scenario, link: str, drain: Mapping[str, dict], rates: Rates) -> dict:
    """A flaky link's row: drain it, when the forecast says; its cost of waiting an hour is
    what it takes now and its risk of failing first (fail_risk)."""
    d = drain.get(link) or {}
    row = {"id": link, "action": "drain the link, then replace its cable cartridge"}
    row |= {"step": 4, "why_this_step": STEPS[3], "when": _drain_when(d.get("action"))}
    now = _cost(s, link, rates)
    risk = fail_risk(s, link, d.get("time_to_failure_h"), rates, trend_read=bool(d))
    cost = {**now, "now_gpu_hours_per_h": now["gpu_hours_per_h"], "risk": risk}
    cost["gpu_hours_per_h"] = now["gpu_hours_per_h"] + risk["gpu_hours_per_h"]
    cost["money_per_h"] = now["money_per_h"] + risk["money_per_h"]
    return {**row, "waiting_costs": cost}


def _sentence(i: int, x: dict, rates: Rates) -> str:
    """A row in words: the repair, when, and what waiting costs an hour (a flaky link's
    expected cost: the chance it fails within the hour x what failing first costs)."""
    c = x["waiting_costs"]
    head = f"{i}. {x['id']}: {x['action']}, {x['when']}; waiting costs "
    price = f"at ${rates.price_per_gpu_h:g}/GPU-h"
    if "risk" not in c:
        return (
            head + f"{words.sig(c['gpu_hours_per_h'])} GPU-hours an hour "
            f"({words.money(c['money_per_h'])} an hour {price}), this fault alone"
        )
    r = c["risk"]
    if r["lost_work_h"] > 0:
        why = (
            f"its detection, {words.duration_words(r['detect_h'] * 3600)}, and the work since "
            f"the last checkpoint, {words.duration_words(r['lost_work_h'] * 3600)} on average, "
            "on every GPU of the job"
        )
    else:
        why = "the job runs on around it, rerouted: only the reroute's stall and slower running"
    return (
        head + f"an expected {words.sig(c['gpu_hours_per_h'])} GPU-hours an hour "
        f"({words.money(c['money_per_h'])} an hour {price}): a "
        f"{words.sig(100 * r['fail_per_h'], 2)}% chance an hour that it fails before it is "
        f"drained ({r['basis']}), and failing unplanned costs the job "
        f"{words.sig(r['if_it_fails_gpu_hours'])} GPU-hours more than draining it first ({why})"
        + (
            f"; it takes {words.sig(c['now_gpu_hours_per_h'])} GPU-hours an hour now"
            if c["now_gpu_hours_per_h"] > 0
            else ""
        )
    )


def what_to_do(
    s: Scenario, drain: Mapping[str, dict] | None = None, rates: Rates = DEFAULT_RATES
) -> list[dict]:
    """Each fault's repair in the policy's order (steps 1-4 above), with what waiting costs
    an hour. drain: a flaky link's drain advice (link -> the forecast's row: its 'action',
    'drain now' | 'watch' | 'fine', and 'time_to_failure_h'), else the flaky link is to be
    drained at the next visit and its risk read from the model's flaky-link rate."""
    policy = parse_policy(s.repair)
    a = assess(s)
    rows = []
    for r in a.repairs:
        if r.meanwhile in _STOPS:
            step, when = 0, "now"
        elif r.mode is not RepairMode.RACK_DOWN or r.rack_down_h == 0:
            step, when = 1, "now"
        else:
            step, when = 2, _when(policy)
        row = {**r.to_json(), "step": step + 1, "why_this_step": STEPS[step], "when": when}
        rows.append({**row, "waiting_costs": _cost(s, r.id, rates)})
    rows += [_flaky_row(s, link, drain or {}, rates) for link in s.flaky]
    rows.sort(key=lambda x: (x["step"], -x["waiting_costs"]["gpu_hours_per_h"], x["id"]))
    for i, x in enumerate(rows, start=1):
        x["order"] = i
        x["sentence"] = _sentence(i, x, rates)
    return rows


def cost_per_h(s: Scenario, rates: Rates = DEFAULT_RATES, todo: list[dict] | None = None) -> dict:
    """What the rack's faults together cost an hour: the work share they take from the
    healthy rack, in GPU-hours and money (the live mode's alert series); and, apart, what
    its flaky links risk an hour (their expected cost of failing first: what_to_do's rows,
    `todo`, when given)."""
    share = max(0.0, 1.0 - delivered_fraction(s))
    gpu_h = share * assess(s).fabric.gpus
    risks = [x["waiting_costs"]["risk"] for x in todo or [] if "risk" in x["waiting_costs"]]
    risk_h = sum(r["gpu_hours_per_h"] for r in risks)
    return {
        "work_share": share,
        "gpu_hours_per_h": gpu_h,
        "money_per_h": gpu_h * rates.price_per_gpu_h,
        "risk_gpu_hours_per_h": risk_h,
        "risk_money_per_h": risk_h * rates.price_per_gpu_h,
    }
