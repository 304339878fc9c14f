"""One request parser for every route that reads a scenario (the JSON API and /metrics).

A route declares its own parameters, `declare(years=Number(0.01, 100), fault=Text())`, and
calls `scenario_request(params)`; it gets back the Scenario, its own parameters parsed (or their
defaults) and the parser's notices. Whatever is wrong with the request raises ScenarioError
naming the offending token, which the one error handler (dashboard/web/blueprint.py) turns
into HTTP 400 {"error", "token"}. The checks run in one order for every route: the query's
length and encoding, the route's own parameters, the scenario, the multi-rack restriction,
then whole-number parameters (so a bad scenario is named before a fractional count).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import unquote_plus

from flask import Response, jsonify, request

from model import Scenario, ScenarioError, parse_query
from model.kinds import FabricKind
from model.scenario import MAX_QUERY_LENGTH, require_single_rack


@dataclass(frozen=True)
class Number:
    """A numeric parameter from lo to hi (NaN and infinities never pass); `whole`: it must
    also be a whole number and is returned as an int."""

    lo: float
    hi: float
    default: float | None = None
    whole: bool = False


@dataclass(frozen=True)
class Text:
    """A text parameter, URL-decoded; the model checks what it means."""

    default: str | None = None


Param = Number | Text
Value = float | int | str


def declare(**params: Param) -> Mapping[str, Param]:
    """A route's own parameters, name -> Number or Text, as a read-only mapping."""
    return MappingProxyType(params)


@dataclass(frozen=True)
class ScenarioRequest:
    """What a route needs from its request: the scenario, its own parameters (given ones,
    then declared defaults; read-only) and the parser's notices (accepted, worth saying)."""

    scenario: Scenario
    params: Mapping[str, Value] = field(default_factory=dict)
    notices: tuple[str, ...] = ()


def query_text() -> str:
    """The request's query string, bounded and decoded; a ScenarioError names what is wrong."""
    raw = request.query_string
    if len(raw) > MAX_QUERY_LENGTH:
        raise ScenarioError(
            f"the query is {len(raw)} bytes long; at most {MAX_QUERY_LENGTH}", token="query"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError("the query is not valid UTF-8", token="query") from e


def _number(key: str, value: str, p: Number) -> float:
    try:
        v = float(value)
    except ValueError:
        v = float("nan")
    if not p.lo <= v <= p.hi:
        raise ScenarioError(f"{key} '{value}' must be a number from {p.lo:g} to {p.hi:g}", key)
    return v


def split_query(raw: str, own: Mapping[str, Param]) -> tuple[str, dict[str, Value]]:
    """Take a route's own parameters out of the query; the rest is the scenario's query.

    Returns (the rest, {name: value} of the parameters given). A number out of range or not
    a number, or a key given twice, is a ScenarioError naming the key.
    """
    rest, params = [], {}
    for part in raw.split("&") if raw else []:
        raw_key, _, value = part.partition("=")
        key = unquote_plus(raw_key)  # 't%5Fs' is t_s, as the scenario parser reads keys
        p = own.get(key)
        if p is None:
            rest.append(part)
            continue
        if key in params:
            raise ScenarioError(f"key '{key}' is given twice", token=key)
        params[key] = unquote_plus(value) if isinstance(p, Text) else _number(key, value, p)
    return "&".join(rest), params


def _whole(key: str, v: float) -> int:
    if v != int(v):
        raise ScenarioError(f"{key} '{v:g}' must be a whole number", token=key)
    return int(v)


def scenario_request(
    own: Mapping[str, Param] | None = None, *, multirack: bool = False, islands: bool = False
) -> ScenarioRequest:
    """Parse the current request: the route's own parameters `own` and the scenario (strict).

    multirack: whether the route answers for multi-rack domains; islands: for b200-roce
    (only /evaluate and /decode: its model is the data plane and decode).
    """
    return parsed_request(query_text(), own, multirack=multirack, islands=islands)


def parsed_request(
    raw: str,
    own: Mapping[str, Param] | None = None,
    *,
    multirack: bool = False,
    islands: bool = False,
) -> ScenarioRequest:
    """scenario_request of a query text `raw` (without the '?'): a page's callback reads its
    link through this, as a route reads its request, so both name a bad input alike."""
    if len(raw.encode("utf-8")) > MAX_QUERY_LENGTH:
        raise ScenarioError(
            f"the query is {len(raw.encode())} bytes long; at most {MAX_QUERY_LENGTH}",
            token="query",
        )
    own = own or {}
    rest, given = split_query(raw, own)
    parsed = parse_query(rest, strict=True)
    s = parsed.scenario
    answers = {FabricKind.RACK, *multirack * (FabricKind.DOMAIN,), *islands * (FabricKind.ISLANDS,)}
    if s.kind not in answers:
        require_single_rack(s)  # the model's one word on what a domain or b200-roce lacks
    params: dict[str, Value] = {}
    for key, p in own.items():
        v = given.get(key, p.default)
        if v is None:
            continue
        params[key] = _whole(key, float(v)) if isinstance(p, Number) and p.whole else v
    return ScenarioRequest(parsed.scenario, MappingProxyType(params), tuple(parsed.notices))


def bad_request(e: ScenarioError) -> tuple[Response, int]:
    """HTTP 400 {"error": the message, "token": the offending input}; never a traceback."""
    return jsonify({"error": e.message, "token": e.token}), 400
