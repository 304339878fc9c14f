"""Reading a scenario from its query string (model/scenario.py holds the Scenario and writes
the query): each fabric kind reads its own fields, strictly for the API (the first problem
raises, naming its token) or leniently for the page (bad tokens dropped and named)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS, default_features, lacks
from model.fabric.islands import SCENARIO_ISLANDS, IslandFabric, IslandPart, parse_island_part
from model.fabric.presets import DEFAULT_FABRIC, FABRICS, Fabric
from model.ids import Component, parse_id
from model.kinds import ComponentKind, DomainKind, FabricKind
from model.multirack.domains import DOMAINS, Domain, parse_part
from model.scenario import (
    AT_RANGE,
    BW_PERCENT_RANGE,
    DEFAULT_AT,
    ETH_BW_FABRICS,
    ETH_BW_RANGE,
    KEYS,
    MAX_DARK_LINKS,
    MAX_IDS,
    MAX_QUERY_LENGTH,
    MAX_WINDOW_DAYS,
    ONSITE,
    Scenario,
    canonical_repair,
    fabric_kind,
)
from model.workloads.models import DEFAULT_WORKLOAD, WORKLOADS


@dataclass
class Parsed:
    scenario: Scenario
    notices: list[str] = field(default_factory=list)  # accepted, but worth saying
    errors: list[str] = field(default_factory=list)  # dropped (lenient mode only)


def _split(value: str) -> list[str]:
    return [t.strip() for t in value.split(",") if t.strip()]


def _sorted_ids(comps: dict[str, Component]) -> tuple[str, ...]:
    return tuple(c.id for c in sorted(comps.values(), key=Component.sort_key))


class _Reader:
    """Collects problems: raises at once when strict, records and drops when lenient."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.errors: list[str] = []
        self.notices: list[str] = []

    def error(self, message: str, token: str | None = None) -> None:
        if self.strict:
            raise ScenarioError(message, token=token)
        self.errors.append(message)

    def ids(self, key: str, value: str, fabric: Fabric, kinds: tuple[str, ...] | None) -> dict:
        tokens = _split(value)
        if len(tokens) > MAX_IDS:
            self.error(f"'{key}' lists {len(tokens)} IDs; at most {MAX_IDS}", token=key)
            tokens = tokens[:MAX_IDS]
        out: dict[str, Component] = {}
        for tok in tokens:
            try:
                comp = parse_id(tok, fabric)
            except ScenarioError as e:
                self.error(f"{key}: {e.message}", token=tok)
                continue
            if kinds and comp.kind not in kinds:
                self.error(
                    f"{key}: '{tok}' is a {comp.kind}; {key} takes {' or '.join(kinds)}s",
                    token=tok,
                )
                continue
            if comp.id in out:
                self.notices.append(f"{key}: '{tok}' is listed more than once; counted once")
            out[comp.id] = comp
        return out


def _features(r: _Reader, raw: dict[str, str], fabric_key: str) -> tuple[dict, frozenset]:
    """off= and on= read against the fabric's defaults: the feature sets and the defaults."""
    feats = {}
    for key in ("off", "on"):
        feats[key] = set()
        for tok in _split(raw.get(key, "")):
            if tok not in FEATURE_KEYS:
                r.error(f"{key}: unknown feature '{tok}' (known: {', '.join(FEATURE_KEYS)})", tok)
            else:
                feats[key].add(tok)
    for tok in sorted(feats["off"] & feats["on"]):
        r.error(f"feature '{tok}' is both in 'off' and in 'on'", token=tok)
        feats["off"].discard(tok)
        feats["on"].discard(tok)
    defaults = default_features(fabric_key)
    for tok in sorted(feats["off"] - defaults):
        r.notices.append(f"off: '{tok}' is already off on {fabric_key}")
    for tok in sorted(feats["on"] & defaults):
        r.notices.append(f"on: '{tok}' is already on on {fabric_key}")
    missing = lacks(fabric_key)
    for key in ("off", "on"):
        for tok in sorted(feats[key] & set(missing)):
            r.notices.append(f"{key}: '{tok}' means nothing on {fabric_key}: {missing[tok]}")
    return feats, defaults


def _repair(r: _Reader, raw: dict[str, str]) -> str:
    """repair= as its canonical policy ('now' when not given)."""
    repair = "now"
    if raw.get("repair", "") not in ("", "now"):
        tok = raw["repair"]
        canon = canonical_repair(tok)
        if canon is None:
            lo, hi = BW_PERCENT_RANGE
            r.error(
                f"repair '{tok}': a policy is 'now' (repair at once), 'window-N' (defer "
                f"rerouted faults to a planned window every N days, 1 to {MAX_WINDOW_DAYS}), "
                f"'dark-K' (take the rack down when K links are dark, 1 to {MAX_DARK_LINKS}) "
                f"or 'bw-P' (when the worst GPU falls below P% of its bandwidth, {lo} to "
                f"{hi}); add ',{ONSITE}' for spare parts on site",
                token=tok,
            )
        else:
            repair = canon
    return repair


def parse_query(query: str, *, strict: bool = True) -> Parsed:
    """Parse a query string (with or without '?') into a Scenario.

    strict: the first problem raises ScenarioError naming the token (the API's 400).
    lenient: bad tokens are dropped and listed in `errors`, the rest loads (the dashboard).
    """
    r = _Reader(strict)
    raw = _fields(r, query.removeprefix("?"))
    if raw is None:
        return Parsed(Scenario(), r.notices, r.errors)
    fabric_key = raw.get("fabric", DEFAULT_FABRIC) or DEFAULT_FABRIC
    return _PARSERS[fabric_kind(fabric_key)](r, raw, fabric_key)


def _fields(r: _Reader, query: str) -> dict[str, str] | None:
    """The query's known keys and their values, each once; None if the query is too long or
    has too many fields to read at all."""
    if len(query) > MAX_QUERY_LENGTH:
        r.error(
            f"the query is {len(query)} characters long; at most {MAX_QUERY_LENGTH}",
            token="query",
        )
        return None
    try:
        pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=64)
    except ValueError:
        r.error("the query has too many fields (at most 64)", token="query")
        return None
    raw: dict[str, str] = {}
    for k, v in pairs:
        if k not in KEYS:
            r.error(f"unknown key '{k}' (known: {', '.join(KEYS)})", token=k)
            continue
        if k in raw:
            r.error(f"key '{k}' is given twice; give one comma-separated list", token=k)
            continue
        raw[k] = v
    return raw


def _parse_rack(r: _Reader, raw: dict[str, str], fabric_key: str) -> Parsed:
    """One rack's scenario: its faults, flaky links, features, workload, updates, eth_bw."""
    if fabric_key not in FABRICS:
        known = ", ".join([*FABRICS, *DOMAINS, *SCENARIO_ISLANDS])
        r.error(f"unknown fabric '{fabric_key}' (known: {known})", token=fabric_key)
        fabric_key = DEFAULT_FABRIC
    fabric = FABRICS[fabric_key]

    fail = r.ids("fail", raw.get("fail", ""), fabric, None)
    flaky = r.ids("flaky", raw.get("flaky", ""), fabric, ("link", "cable"))
    for fid in sorted(set(flaky) & set(fail)):
        r.notices.append(f"flaky: '{fid}' is also failed; failed wins")
        del flaky[fid]

    feats, defaults = _features(r, raw, fabric_key)

    workload = raw.get("workload", DEFAULT_WORKLOAD) or DEFAULT_WORKLOAD
    if workload not in WORKLOADS:
        r.error(f"unknown workload '{workload}' (known: {', '.join(WORKLOADS)})", token=workload)
        workload = DEFAULT_WORKLOAD

    update: tuple[str, ...] = ()
    up_raw = raw.get("update", "")
    if up_raw.strip() == "all":
        update = ("all",)
    elif up_raw:
        trays = r.ids("update", up_raw, fabric, ("switch-tray",))
        update = _sorted_ids(trays)

    scenario = Scenario(
        fabric=fabric_key,
        fail=_sorted_ids(fail),
        flaky=_sorted_ids(flaky),
        off=tuple(k for k in FEATURE_KEYS if k in feats["off"] & defaults),
        on=tuple(k for k in FEATURE_KEYS if k in feats["on"] - defaults),
        workload=workload,
        update=update,
        eth_bw=_eth_bw(r, raw, fabric_key),
        repair=_repair(r, raw),
        at=_at(r, raw),
    )
    return Parsed(scenario, r.notices, r.errors)


def _at(r: _Reader, raw: dict[str, str]) -> float:
    """at= (the interactivity the deployment runs at, tokens/s per user), to 0.1; the
    default when not given, or when bad (lenient)."""
    tok = raw.get("at", "")
    if tok == "":
        return DEFAULT_AT
    try:
        val = float(tok)
    except ValueError:
        val = float("nan")
    lo, hi = AT_RANGE
    if not lo <= val <= hi:
        r.error(
            f"at '{tok}' must be the interactivity a deployment runs at: a number of tokens/s "
            f"per user from {lo:g} to {hi:g} (default {DEFAULT_AT:g})",
            token="at",
        )
        return DEFAULT_AT
    return round(val, 1)


def _eth_bw(r: _Reader, raw: dict[str, str], fabric_key: str) -> float | None:
    """eth_bw= (eth-x72's per-GPU bandwidth, TB/s; on vr-nvl72 its Ethernet baseline's),
    rounded; None when not given or bad."""
    if raw.get("eth_bw", "") == "":
        return None
    tok = raw["eth_bw"]
    try:
        val = float(tok)
    except ValueError:
        val = float("nan")
    lo, hi = ETH_BW_RANGE
    if fabric_key not in ETH_BW_FABRICS:
        r.error(
            f"eth_bw applies to eth-x72 (and to vr-nvl72's Ethernet baseline) only, not to "
            f"{fabric_key}",
            token="eth_bw",
        )
    elif not lo <= val <= hi:
        r.error(f"eth_bw '{tok}' must be a number of TB/s from {lo} to {hi}", token=tok)
    else:
        return round(val, 3)
    return None


def _domain_ids(
    r: _Reader, key: str, value: str, d: Domain, kinds: tuple | None
) -> tuple[str, ...]:
    """A domain's ID list (model/multirack/domains.py: parse_part), canonical: sorted, unique.
    kinds: the kinds the key takes (None: any)."""
    return _part_ids(r, key, value, lambda tok: (tok, parse_part(tok, d)), kinds)


def _part_ids(
    r: _Reader, key: str, value: str, parse: Callable[[str], tuple[str, Any]], kinds: tuple | None
) -> tuple[str, ...]:
    """An ID list of a fabric whose parts are not one rack's Components (a domain's, an island
    fabric's): parse(token) gives the canonical ID and the part (its kind and sort_key).
    Sorted, unique; every bad token named (strict) or dropped and named (lenient)."""
    tokens = _split(value)
    if len(tokens) > MAX_IDS:
        r.error(f"'{key}' lists {len(tokens)} IDs; at most {MAX_IDS}", token=key)
        tokens = tokens[:MAX_IDS]
    parts: dict[str, Any] = {}
    for tok in tokens:
        try:
            cid, part = parse(tok)
        except ScenarioError as e:
            r.error(f"{key}: {e.message}", token=tok)
            continue
        if kinds and part.kind not in kinds:
            names = [f"{k}s" for k in kinds]
            said = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
            r.error(f"{key}: '{tok}' is a {part.kind}; {key} takes {said}", token=tok)
            continue
        if cid in parts:
            r.notices.append(f"{key}: '{tok}' is listed more than once; counted once")
        parts[cid] = part
    return tuple(sorted(parts, key=lambda t: parts[t].sort_key()))


def _parse_domain(r: _Reader, raw: dict[str, str], d: Domain) -> Parsed:
    """A multi-rack domain (docs/MULTIRACK.md): fail= and flaky= take rack-prefixed IDs, L2
    chips and trays and trunks; update= an L1 tray (rNN.stK), an L2 tray (l2.tNN) or all."""
    if raw.get("eth_bw"):
        r.error(
            f"eth_bw applies to eth-x72 (and to vr-nvl72's Ethernet baseline) only, not to {d.key}",
            token="eth_bw",
        )
    fail = _domain_ids(r, "fail", raw.get("fail", ""), d, None)
    flaky = _domain_ids(
        r,
        "flaky",
        raw.get("flaky", ""),
        d,
        (ComponentKind.LINK, ComponentKind.CABLE, DomainKind.TRUNK),
    )
    both = set(flaky) & set(fail)
    for fid in sorted(both):
        r.notices.append(f"flaky: '{fid}' is also failed; failed wins")
    flaky = tuple(t for t in flaky if t not in both)
    feats, defaults = _features(r, raw, d.key)
    workload = raw.get("workload", DEFAULT_WORKLOAD) or DEFAULT_WORKLOAD
    if workload not in WORKLOADS:
        r.error(f"unknown workload '{workload}' (known: {', '.join(WORKLOADS)})", token=workload)
        workload = DEFAULT_WORKLOAD
    up_raw = raw.get("update", "")
    if up_raw.strip() == "all":
        update: tuple[str, ...] = ("all",)
    else:
        update = _domain_ids(
            r, "update", up_raw, d, (ComponentKind.SWITCH_TRAY, DomainKind.L2_TRAY)
        )
    scenario = Scenario(
        fabric=d.key,
        fail=fail,
        flaky=flaky,
        off=tuple(k for k in FEATURE_KEYS if k in feats["off"] & defaults),
        on=tuple(k for k in FEATURE_KEYS if k in feats["on"] - defaults),
        workload=workload,
        update=update,
        repair=_repair(r, raw),
        at=_at(r, raw),
    )
    return Parsed(scenario, r.notices, r.errors)


def _parse_islands(r: _Reader, raw: dict[str, str], f: IslandFabric) -> Parsed:
    """An island fabric (model/fabric/islands.py): fail= and workload= only; the keys its
    model does not read are refused by name, never silently ignored."""
    for key in ("flaky", "off", "on", "update", "eth_bw", "repair"):
        if raw.get(key):
            r.error(f"'{key}' is not modelled on {f.key}: it takes fail=, workload= and at=", key)
    workload = raw.get("workload", DEFAULT_WORKLOAD) or DEFAULT_WORKLOAD
    if workload not in WORKLOADS:
        r.error(f"unknown workload '{workload}' (known: {', '.join(WORKLOADS)})", token=workload)
        workload = DEFAULT_WORKLOAD

    def parse(tok: str) -> tuple[str, IslandPart]:
        part = parse_island_part(tok, f)
        return part.id, part

    fail = _part_ids(r, "fail", raw.get("fail", ""), parse, None)
    scenario = Scenario(fabric=f.key, fail=fail, workload=workload, at=_at(r, raw))
    return Parsed(scenario, r.notices, r.errors)


# Each kind reads its own query (the ground's part of the fabric-kind seam, model/registry.py).
_PARSERS: Mapping[FabricKind, Callable[[_Reader, dict[str, str], str], Parsed]] = MappingProxyType(
    {
        FabricKind.RACK: _parse_rack,
        FabricKind.DOMAIN: lambda r, raw, key: _parse_domain(r, raw, DOMAINS[key]),
        FabricKind.ISLANDS: lambda r, raw, key: _parse_islands(r, raw, SCENARIO_ISLANDS[key]),
    }
)
