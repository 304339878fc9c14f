"""The one reader of a history's link (issue 30): the scenario's query plus racks, days,
seed, spares, policy and against=, for GET /api/v1/history and the /fleet page alike, so one
link has one answer on both. A bad value is a ScenarioError naming its parameter."""

from __future__ import annotations

from dataclasses import dataclass, replace

from dashboard.infra.request import Number, Text, declare, parsed_request, split_query
from model import Scenario, ScenarioError
from model.query import parse_query
from model.reliability import history
from model.scenario import canonical_repair

HISTORY_PARAMS = declare(
    racks=Number(1, history.MAX_HISTORY_RACKS, default=16, whole=True),
    days=Number(1, history.MAX_HISTORY_DAYS, default=365, whole=True),
    seed=Number(0, history.MAX_SEED, default=1, whole=True),
    spares=Number(0, 1, default=0, whole=True),
    policy=Text(),
    against=Text(),
    format=Text(default="json"),
)
OWN_KEYS = ("racks", "days", "seed", "spares", "policy", "against")  # the link's own, in order


@dataclass(frozen=True)
class HistoryLink:
    """What a history's link asks: the scenario (its policy= applied), the second one or
    None, the history's arguments (racks, days, seed, spares) and the parameters as given."""

    scenario: Scenario
    other: Scenario | None
    kw: dict
    params: dict


def read_history(raw: str) -> HistoryLink:
    """A history's link from its query text (without the '?'); ScenarioError names the
    parameter that is wrong: racks, days, seed, spares, policy, against or the scenario's."""
    q = parsed_request(raw, HISTORY_PARAMS, multirack=True)
    own, s = dict(q.params), q.scenario
    if "policy" in own:
        policy = canonical_repair(str(own["policy"]))
        if policy is None:
            raise ScenarioError(
                f"policy '{own['policy']}' is not a repair policy (now, window-N, dark-K or "
                "bw-P, with ,onsite for spare parts on site)",
                token="policy",
            )
        s = replace(s, repair=policy)
    other = against_scenario(str(own["against"])) if own.get("against") else None
    if other is not None and "policy" in own and "repair=" not in str(own["against"]):
        other = replace(other, repair=s.repair)  # policy= is both's unless against= says
    kw = {k: int(own[k]) for k in ("racks", "days", "seed")} | {"spares": bool(own["spares"])}
    return HistoryLink(s, other, kw, own)


def against_scenario(text: str) -> Scenario:
    """against=: the second feature set or fabric, a scenario query of its own."""
    try:
        return parse_query(text, strict=True).scenario
    except ScenarioError as e:
        raise ScenarioError(f"against: {e.message}", token="against") from e


def scenario_part(raw: str) -> str:
    """The scenario's own query in a history's link (its racks, days, ... taken out): what
    the main page opens with."""
    return split_query(raw, HISTORY_PARAMS)[0]
