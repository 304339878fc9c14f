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
from model.fabric.presets import ETH_X72, FABRICS
from model.ids import compute_tray_id, tray_id
from model.kinds import ComponentKind as K
from model.multirack.domains import DOMAINS
from model.parts import in_rack, matching, part
from model.query import Parsed, parse_query
from model.registry import kind_named, kind_of
from model.scenario import DEFAULT_AT, ETH_BW_FABRICS, Scenario, rack_fabric, to_query
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
    if kind_of(s).drawn:
        return parsed
    q = to_query(s, include_fabric=True)
    base = BASELINE[s.fabric]
    return Parsed(
        Scenario(fabric=base, at=s.at),
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
    f = rack_fabric(s)
    local: list[str] = []
    for cid in s.fail:
        p = part(s, cid)
        if p.rack != rack - 1:
            continue
        if p.local is None:  # the whole rack
            local += [compute_tray_id(t) for t in range(1, f.compute_trays + 1)]
            local += [tray_id(t) for t in range(1, f.switch_trays + 1)]
        else:
            local.append(p.local)
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
    part(s, cid)
    return cid


def found(s: Scenario, typed: str | None) -> str:
    """What Enter in the find box finds: the part typed, or the one part of the scenario's
    fabric a partial ID matches (issue 28: no dead end); ScenarioError naming it otherwise."""
    tok = typed_id(typed)
    try:
        return find(s, tok)
    except ScenarioError:
        near = matching(s.fabric, tok, 2)
        if len(near) != 1:
            raise
        return near[0]


def rack_of(s: Scenario, cid: str) -> str | None:
    """On a multi-rack domain, the rack (rNN) a part of one rack sits in (a trunk's rack
    too); None for a single rack or a part of the L2 tier."""
    return part(s, cid).rack_id


def toggle(s: Scenario, cid: str, mode: str = "fail") -> tuple[Scenario, str]:
    """Fail what was clicked, or repair it if it already failed (mode 'flaky': mark/unmark)."""
    p = part(s, cid)  # raises ScenarioError naming a bad ID
    if mode == "flaky":
        if p.kind not in (K.LINK, K.CABLE):
            raise ScenarioError(f"only links and cables can be flaky, not '{cid}' ({p.kind})", cid)
        if cid in s.flaky:
            return _reparse(replace(s, flaky=tuple(x for x in s.flaky if x != cid))), (
                f"{cid} no longer flaky"
            )
        fail = tuple(x for x in s.fail if x != cid)
        return _reparse(replace(s, flaky=(*s.flaky, cid), fail=fail)), f"{cid} marked flaky"
    if cid in s.fail:
        how = "hot-swapped" if p.kind is K.SWITCH_TRAY and "hot-swap" in s.features else "repaired"
        return _reparse(replace(s, fail=tuple(x for x in s.fail if x != cid))), f"{cid} {how}"
    flaky = tuple(x for x in s.flaky if x != cid)
    return _reparse(replace(s, fail=(*s.fail, cid), flaky=flaky)), f"{cid} failed"


def repair_all(s: Scenario) -> Scenario:
    """Every fault, flaky part and switch update gone; fabric, features and workload kept."""
    return replace(s, fail=(), flaky=(), update=())


def _carry(s: Scenario, key: str) -> tuple[list[str], list[str], list[str]]:
    """The faults of s that exist on fabric or domain `key`, as IDs there (failed, flaky),
    and the ones that do not. A single rack's parts are rack r01's of a domain, and back; a
    domain's other racks and its L2 tier have no place on one rack."""
    there_s = Scenario(fabric=key)
    to_several, from_several = kind_named(key).several_racks, kind_of(s).several_racks
    fail: list[str] = []
    flaky: list[str] = []
    dropped: list[str] = []
    for cid, kept in (*((c, fail) for c in s.fail), *((c, flaky) for c in s.flaky)):
        there: str | None = cid
        if from_several and not to_several:  # only rack r01's parts have a place on one rack
            p = part(s, cid)
            there = p.local if p.rack == 0 else None
        elif to_several and not from_several:
            there = in_rack(0, cid)
        if there is None:  # another rack's part, or the L2 tier's
            dropped.append(cid)
            continue
        try:
            part(there_s, there)
        except ScenarioError:
            dropped.append(cid)
            continue
        kept.append(there)
    return fail, flaky, dropped


def _switches(s: Scenario, key: str) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """The feature switches of s (off=, on=: what the user changed from its fabric's
    defaults) as they carry to fabric `key`, and a word for each that cannot: turning off a
    feature `key` has off anyway, or on one it has on anyway, changes nothing there."""
    there = default_features(key)
    off = tuple(k for k in s.off if k in there)
    on = tuple(k for k in s.on if k not in there)
    words = [f"off={k}: already off on {key}" for k in s.off if k not in there]
    words += [f"on={k}: already on on {key}" for k in s.on if k in there]
    return off, on, words


def set_fabric(s: Scenario, key: str) -> tuple[Scenario, list[str]]:
    """Move the scenario to another fabric or domain: the feature switches go with it (each
    that means nothing there named), and the faults whose parts exist there (a rack's as
    rack r01's of a domain, and back); the others are dropped, and named."""
    if key not in FABRICS and key not in DOMAINS:
        raise ScenarioError(f"unknown fabric '{key}'", key)
    fail, flaky, dropped = _carry(s, key)
    off, on, unswitched = _switches(s, key)
    to_several = kind_named(key).several_racks
    moved = Scenario(
        fabric=key,
        fail=tuple(fail),
        flaky=tuple(flaky),
        off=off,
        on=on,
        workload=Scenario().workload if to_several else s.workload,
        # a rack's tray updates stay on racks: a domain's trays are named per rack
        update=() if to_several or kind_of(s).several_racks else s.update,
        repair=Scenario().repair if to_several else s.repair,  # the operator's policy
        eth_bw=s.eth_bw if key in ETH_BW_FABRICS else None,  # Ethernet's, where it means it
        at=s.at,  # the interactivity the deployment runs at
    )
    p = parse_query(to_query(moved, include_fabric=True), strict=False)
    msgs = [*p.errors, *unswitched]
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


def set_at(s: Scenario, value: object) -> Scenario:
    """Another interactivity (at=, tokens/s per user); ScenarioError names a bad one (empty
    keeps the scenario's)."""
    if value is None or str(value).strip() == "":
        return s
    return _with_number(replace(s, at=DEFAULT_AT), "at", value)


def set_eth_bw(s: Scenario, value: object) -> Scenario:
    """Another Ethernet per GPU (eth_bw=, TB/s both ways); eth-x72's default (NVLink 6's
    bandwidth) or empty clears it. ScenarioError on a fabric it does not apply to."""
    if value is None or str(value).strip() in ("", f"{ETH_X72.gpu_tbs_bidir:g}"):
        return replace(s, eth_bw=None)
    return _with_number(replace(s, eth_bw=None), "eth_bw", value)


def _with_number(s: Scenario, key: str, value: object) -> Scenario:
    """s with key=value, read by the one parser (which names a bad value); only a number is
    ever written into the query."""
    try:
        v = float(str(value))
    except ValueError:
        raise ScenarioError(f"{key} '{value}' is not a number", key) from None
    return parse_query(f"{to_query(s, True)}&{key}={v:g}").scenario


def preset(name: str) -> Scenario:
    """The scenario of a named preset; ScenarioError for a name that is not one."""
    if name not in PRESETS:
        raise ScenarioError(f"unknown preset '{name}'", name)
    return parse_query(PRESETS[name][1]).scenario
