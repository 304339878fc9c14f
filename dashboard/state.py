"""What a click or a control does to the scenario: pure functions, Scenario in, Scenario out.

Every change goes through the query string and parse_query, so the result is canonical and
the URL is always the whole view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS, default_features
from model.fabric.presets import FABRICS
from model.ids import parse_id
from model.kinds import ComponentKind as K
from model.multirack.domains import DOMAINS, parse_part, rack_id
from model.scenario import DOMAIN_UNMODELLED, Parsed, Scenario, parse_query, to_query
from model.workloads.hardware import BASELINE

PRESETS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "one-cable": ("One cable fails", "fail=gpu07-st3.sw2.c0"),
        "switch-tray": ("A switch tray is lost", "fail=st3"),
        "leader": ("The controller leader is lost", "fail=st1.mc"),
        "rolling-issu": ("A rolling in-service update", "update=all"),
        "flaky": ("A flaky link caught by telemetry", "flaky=gpu20-st5.sw1"),
        "storm": (
            "A storm of faults",
            "fail=ct12,gpu33-st8.sw0,gpu07-st3.sw2.c0,gpu51-st4.sw3.c1,st2,st6.sw1,st9.mc",
        ),
        "partial": ("A partially populated rack", "fail=ct15,ct16,ct17,ct18"),
        "no-reroute": ("A switch tray lost, without dynamic rerouting", "fail=st3&off=reroute"),
        "eth": ("A switch tray lost on Ethernet", "fabric=eth-x72&fail=st3"),
    }
)


def current(search: str | None) -> Parsed:
    """The scenario in the URL, bad tokens dropped and named (the page never refuses a link).

    An island fabric (b200-roce) has no drawing: the page opens the fabric it is held against
    and says where the scenario's own answer is (the API), leaving the URL as it was."""
    parsed = parse_query(search or "", strict=False)
    s = parsed.scenario
    if not s.islands:
        return parsed
    q = to_query(s, include_fabric=True)
    base = BASELINE[s.fabric]
    return Parsed(
        Scenario(fabric=base),
        parsed.notices,
        [
            *parsed.errors,
            (
                f"{s.fabric} (HGX nodes on RoCE) is not drawn on the page: its data plane and "
                f"decode for this scenario are at /api/v1/evaluate?{q} and /api/v1/decode?{q}. "
                f"Shown instead: {base}, whose decode chart holds healthy {s.fabric} as its "
                "baseline"
            ),
        ],
    )


def rack_scenario(s: Scenario, rack: int) -> Scenario:
    """One rack (1-based) of a multi-rack scenario as a scenario of its rack fabric, to draw."""
    d = DOMAINS[s.fabric]
    f = d.rack
    local: list[str] = []
    for cid in s.fail:
        part = parse_part(cid, d)
        if part.rack != rack - 1:
            continue
        if part.local is None:  # the whole rack
            local += [f"ct{t:02d}" for t in range(1, f.compute_trays + 1)]
            local += [f"st{t}" for t in range(1, f.switch_trays + 1)]
        else:
            local.append(part.local.id)
    return parse_query(to_query(Scenario(fabric=f.key, fail=tuple(local)), True)).scenario


def url_of(s: Scenario) -> str:
    """The page's search string for a scenario ('' for the healthy default rack)."""
    q = to_query(s)
    return f"?{q}" if q else ""


def _reparse(s: Scenario) -> Scenario:
    return parse_query(to_query(s)).scenario


def typed_id(text: str | None) -> str:
    """A component ID as typed into the box: trimmed, any case (GPU07-ST3.SW2 is
    gpu07-st3.sw2); ScenarioError if there is none."""
    tok = (text or "").strip().lower()
    if not tok:
        raise ScenarioError("type a component ID first, e.g. gpu07-st3.sw2.c0", "")
    return tok


def find(s: Scenario, cid: str) -> str:
    """cid if the scenario's fabric (or domain) has that part; ScenarioError naming it
    otherwise."""
    if s.multirack:
        parse_part(cid, DOMAINS[s.fabric])
    else:
        parse_id(cid, s.spec())
    return cid


def rack_of(s: Scenario, cid: str) -> str | None:
    """On a multi-rack domain, the rack (rNN) a part of one rack sits in (a trunk's rack
    too); None for a single rack or a part of the L2 tier."""
    if not s.multirack:
        return None
    part = parse_part(cid, DOMAINS[s.fabric])
    r = part.trunk[0] if part.trunk is not None else part.rack
    return None if r is None else rack_id(r)


def toggle(s: Scenario, cid: str, mode: str = "fail") -> tuple[Scenario, str]:
    """Fail what was clicked, or repair it if it already failed (mode 'flaky': mark/unmark)."""
    if s.multirack:
        return _toggle_domain(s, cid, mode)
    comp = parse_id(cid, s.spec())  # raises ScenarioError naming a bad ID
    if mode == "flaky":
        if comp.kind not in ("link", "cable"):
            raise ScenarioError(
                f"only links and cables can be flaky, not '{cid}' ({comp.kind})", cid
            )
        if cid in s.flaky:
            return _reparse(replace(s, flaky=tuple(x for x in s.flaky if x != cid))), (
                f"{cid} no longer flaky"
            )
        fail = tuple(x for x in s.fail if x != cid)
        return _reparse(replace(s, flaky=(*s.flaky, cid), fail=fail)), f"{cid} marked flaky"
    if cid in s.fail:
        how = (
            "hot-swapped" if comp.kind == "switch-tray" and "hot-swap" in s.features else "repaired"
        )
        return _reparse(replace(s, fail=tuple(x for x in s.fail if x != cid))), f"{cid} {how}"
    flaky = tuple(x for x in s.flaky if x != cid)
    return _reparse(replace(s, fail=(*s.fail, cid), flaky=flaky)), f"{cid} failed"


def _toggle_domain(s: Scenario, cid: str, mode: str) -> tuple[Scenario, str]:
    """Fail or repair a part of a multi-rack domain, or mark a link or cable flaky."""
    part = parse_part(cid, DOMAINS[s.fabric])  # raises ScenarioError naming a bad ID
    if mode == "flaky":
        if DOMAIN_UNMODELLED:
            raise ScenarioError("flaky links are not modelled on multi-rack domains yet", cid)
        if part.kind not in (K.LINK, K.CABLE):
            raise ScenarioError(f"only links and cables can be flaky, not '{cid}'", cid)
        if cid in s.flaky:
            flaky = tuple(x for x in s.flaky if x != cid)
            return _reparse(replace(s, flaky=flaky)), f"{cid} no longer flaky"
        fail = tuple(x for x in s.fail if x != cid)
        return _reparse(replace(s, flaky=(*s.flaky, cid), fail=fail)), f"{cid} marked flaky"
    if cid in s.fail:
        return _reparse(replace(s, fail=tuple(x for x in s.fail if x != cid))), f"{cid} repaired"
    return _reparse(replace(s, fail=(*s.fail, cid))), f"{cid} failed"


def repair_all(s: Scenario) -> Scenario:
    """Every fault, flaky part and switch update gone; fabric, features and workload kept."""
    return replace(s, fail=(), flaky=(), update=())


def _carry(s: Scenario, key: str) -> tuple[list[str], list[str], list[str]]:
    """The faults of s that exist on fabric or domain `key`, as IDs there (failed, flaky),
    and the ones that do not. A single rack's parts are rack r01's of a domain, and back; a
    domain's other racks and its L2 tier have no place on one rack. Flaky links go too
    (dropped only while the model says domains lack something: DOMAIN_UNMODELLED)."""
    to_domain = key in DOMAINS
    fail: list[str] = []
    flaky: list[str] = []
    dropped: list[str] = []
    for cid, kept in (*((c, fail) for c in s.fail), *((c, flaky) for c in s.flaky)):
        there = cid
        if s.multirack and not to_domain:  # only rack r01's parts have a place on one rack
            part = parse_part(cid, DOMAINS[s.fabric])
            if part.rack != 0 or part.local is None:
                dropped.append(cid)
                continue
            there = part.local.id
        elif to_domain and not s.multirack:
            there = f"r01.{cid}"
        try:
            parse_part(there, DOMAINS[key]) if to_domain else parse_id(there, FABRICS[key])
        except ScenarioError:
            dropped.append(cid)
            continue
        if kept is flaky and to_domain and DOMAIN_UNMODELLED:  # not modelled there
            dropped.append(cid)
            continue
        kept.append(there)
    return fail, flaky, dropped


def set_fabric(s: Scenario, key: str) -> tuple[Scenario, list[str]]:
    """Move the scenario to another fabric or domain: features reset to its defaults; the
    faults whose parts exist there are kept (a rack's as rack r01's of a domain, and back),
    the others dropped, and named."""
    if key not in FABRICS and key not in DOMAINS:
        raise ScenarioError(f"unknown fabric '{key}'", key)
    fail, flaky, dropped = _carry(s, key)
    moved = Scenario(
        fabric=key,
        fail=tuple(fail),
        flaky=tuple(flaky),
        workload=s.workload if key not in DOMAINS else Scenario().workload,
        update=s.update if key not in DOMAINS and not s.multirack else (),
        repair=s.repair if key not in DOMAINS else Scenario().repair,  # the operator's policy
    )
    p = parse_query(to_query(moved, include_fabric=True), strict=False)
    msgs = [*p.errors]
    if dropped:
        msgs.append(f"not on {key}, left behind: {', '.join(dropped)}")
    return p.scenario, msgs


def set_features(s: Scenario, on: list[str] | None) -> Scenario:
    """The features ticked on the page, as off/on relative to the fabric's defaults."""
    wanted = set(on or []) & set(FEATURE_KEYS)
    d = default_features(s.fabric)
    return _reparse(  # validated: a domain refuses feature switches by name
        replace(
            s,
            off=tuple(k for k in FEATURE_KEYS if k in d - wanted),
            on=tuple(k for k in FEATURE_KEYS if k in wanted - d),
        )
    )


def set_update(s: Scenario, value: str | None) -> Scenario:
    """A switch update of one tray, of all ('all'), or none ('' or None)."""
    return _reparse(replace(s, update=() if not value else (value,)))


def set_workload(s: Scenario, value: str | None) -> Scenario:
    """Another workload (None keeps the scenario's)."""
    return _reparse(replace(s, workload=value or s.workload))


def preset(name: str) -> Scenario:
    """The scenario of a named preset; ScenarioError for a name that is not one."""
    if name not in PRESETS:
        raise ScenarioError(f"unknown preset '{name}'", name)
    return parse_query(PRESETS[name][1]).scenario
