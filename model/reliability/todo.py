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
"""

from __future__ import annotations

from dataclasses import replace

from model import words
from model.assess import assess
from model.kinds import Meanwhile, RepairMode
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
    if policy.kind == "window":
        return f"at the next planned window (every {words.plural(policy.n or 0, 'day')})"
    if policy.kind == "dark":
        return f"when {words.plural(policy.n or 0, 'link')} are dark"
    if policy.kind == "bw":
        return f"when the worst GPU falls below {policy.n}% of its bandwidth"
    return "now (repair=now: every visit as soon as its part is on site)"


def _drain_when(action: str | None) -> str:
    """When to drain a degrading link, from the forecast's action (None: no trend read)."""
    if action is None:
        return "at the next repair visit (no trend read)"
    if action == "drain now":
        return "now: the forecast says drain now"
    return f"when the forecast says drain (it says {action} now)"


def what_to_do(
    s: Scenario, advice: dict[str, str] | None = None, rates: Rates = DEFAULT_RATES
) -> list[dict]:
    """Each fault's repair in the policy's order (steps 1-4 above), with what waiting costs
    an hour. advice: a flaky link's drain advice (link -> 'drain now' | 'watch' | 'fine'),
    else the flaky link is to be drained at the next visit."""
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
    for link in s.flaky:
        said = _drain_when((advice or {}).get(link))
        row = {"id": link, "action": "drain the link, then replace its cable cartridge"}
        row |= {"step": 4, "why_this_step": STEPS[3], "when": said}
        rows.append({**row, "waiting_costs": _cost(s, link, rates)})
    rows.sort(key=lambda x: (x["step"], -x["waiting_costs"]["work_share"], x["id"]))
    for i, x in enumerate(rows, start=1):
        c = x["waiting_costs"]
        x["order"] = i
        x["sentence"] = (
            f"{i}. {x['id']}: {x['action']}, {x['when']}; waiting costs "
            f"{words.sig(c['gpu_hours_per_h'])} GPU-hours an hour ({words.money(c['money_per_h'])} "
            f"an hour at ${rates.price_per_gpu_h:g}/GPU-h), this fault alone"
        )
    return rows


def cost_per_h(s: Scenario, rates: Rates = DEFAULT_RATES) -> dict:
    """What the rack's faults together cost an hour: the work share they take from the
    healthy rack, in GPU-hours and money (the live mode's alert series)."""
    share = max(0.0, 1.0 - delivered_fraction(s))
    gpu_h = share * assess(s).fabric.gpus
    return {
        "work_share": share,
        "gpu_hours_per_h": gpu_h,
        "money_per_h": gpu_h * rates.price_per_gpu_h,
    }
