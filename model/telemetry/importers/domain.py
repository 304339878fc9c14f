"""A multi-rack domain's scrapes in (the twin's /metrics on vr-nvl576 / vr-nvl1152,
dashboard/exporter/domain.py): one rack's scrape (`&rack=rNN`), read as that rack and
answered as the domain's scenario with its IDs prefixed, or the domain's own scrape (its
tier), whose L2 chips, lost racks and trunk bundles that are down name the parts that
failed. IDs are read by the domain's own parser (model/multirack/domains.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model.errors import ScenarioError
from model.fabric.features import default_features
from model.ids import chip_id, plane_of
from model.multirack.domains import DOMAINS, Domain, l2_id, parse_part, rack_id, trunk_id
from model.query import parse_query
from model.scenario import to_query
from model.telemetry.importers.promtext import Sample

ID_LABELS = ("link", "chip", "tray", "hostname", "Hostname", "compute_tray", "controller")


def domain_of(samples: list[Sample]) -> Domain | None:
    """The domain a scrape's `fabric` labels name, if any; ScenarioError if several."""
    keys = sorted({s.labels.get("fabric") for s in samples} & set(DOMAINS))
    if len(keys) > 1:
        raise ScenarioError(f"the file mixes domains {', '.join(keys)}: import one", "fabric")
    return DOMAINS[keys[0]] if keys else None


def is_tier(samples: list[Sample]) -> bool:
    """The domain's own scrape (its tier), not one rack's: it has trunk bundles."""
    return any(s.name == "nmx_trunk_up" for s in samples)


def localise(samples: list[Sample], d: Domain) -> tuple[list[Sample], int]:
    """One rack's scrape with its IDs made local to the rack and its fabric the rack's;
    ScenarioError when it holds no rack or more than one."""
    racks: set[int] = set()
    out = []
    for s in samples:
        labels = dict(s.labels)
        if labels.get("fabric") == d.key:
            labels["fabric"] = d.rack.key
        if "rack" in labels:
            racks.add(_rack(labels["rack"], d))
        for k in ID_LABELS:
            v = labels.get(k)
            if v is None:
                continue
            try:
                part = parse_part(v, d)
            except ScenarioError:
                continue  # left as it is: the reader names the line
            if part.rack is not None and part.local is not None:
                racks.add(part.rack)
                labels[k] = part.local.id
        out.append(replace(s, labels=labels))
    if len(racks) != 1:
        names = ", ".join(rack_id(r) for r in sorted(racks)) or "none"
        raise ScenarioError(
            f"the file is a {d.key} scrape of racks {names}: expected one rack's "
            "(/metrics?fabric=...&rack=rNN) or the domain's own",
            "rack",
        )
    return out, racks.pop()


def _rack(token: str, d: Domain) -> int:
    try:
        part = parse_part(token, d)
    except ScenarioError:
        return -1
    return part.rack if part.rack is not None and part.local is None else -1


def to_domain(query: str, d: Domain, rack: int) -> str:
    """A rack's scenario (local IDs) as the domain's, its IDs prefixed with the rack."""
    s = parse_query(query).scenario
    pre = f"{rack_id(rack)}."
    trays = [f"st{t + 1}" for t in range(d.rack.switch_trays)]
    update = trays if s.update == ("all",) else list(s.update)
    defaults = default_features(d.key)
    parts = [f"fabric={d.key}"]
    for key, vals in (
        ("fail", [pre + x for x in s.fail]),
        ("flaky", [pre + x for x in s.flaky]),
        ("on", sorted(s.features - defaults)),
        ("off", sorted(defaults - s.features)),
        ("update", [pre + x for x in update]),
    ):
        if vals:
            parts.append(f"{key}={','.join(vals)}")
    return to_query(parse_query("&".join(parts)).scenario, include_fabric=True)


def tier(samples: list[Sample], d: Domain, messages: list[str]) -> tuple[str, dict[str, str]]:
    """The domain's scenario its own scrape describes, and each part's basis: lost racks,
    failed L2 chips, and trunk bundles down that neither explains."""
    r_n, p_n, s_n = d.racks, d.planes, d.l2_per_plane
    rack_up = np.ones(r_n, bool)
    l2_up = np.ones((p_n, s_n), bool)
    l1_up = np.ones((r_n, p_n), bool)
    trunk_up = np.ones((r_n, p_n, s_n), bool)
    for s in samples:
        try:
            if s.name == "nmx_rack_up":
                rack_up[_rack(s.labels.get("rack", ""), d)] = s.value == 1
            elif s.name == "nmx_l2_chip_up":
                _r, _l, (p, k) = _part(s, "l2_chip", d, "l2")
                l2_up[p, k] = s.value == 1
            elif s.name == "nmx_switch_chip_up":
                part = parse_part(s.labels.get("chip", ""), d)
                if part.rack is None or part.local is None:
                    raise ScenarioError("not a rack's chip", "chip")
                l1_up[part.rack, plane_of(d.rack, *part.local.nums[:2])] = s.value == 1
            elif s.name == "nmx_trunk_up":
                r, p, k = _part(s, "trunk", d, "trunk")[2]
                trunk_up[r, p, k] = s.value == 1
        except (ScenarioError, IndexError, TypeError) as e:
            messages.append(f"line {s.line}: {s.name}: {e}; the sample is skipped")
    fail = [rack_id(r) for r in np.flatnonzero(~rack_up)]
    fail += [l2_id(int(p), int(k)) for p, k in zip(*np.nonzero(~l2_up), strict=True)]
    chips = ~l1_up & rack_up[:, None]
    fail += [
        f"{rack_id(int(r))}.{chip_id(d.rack, int(p))}"
        for r, p in zip(*np.nonzero(chips), strict=True)
    ]
    if chips.any():
        messages.append(
            f"{int(chips.sum())} L1 chips are down, read as failed chips: a whole switch tray "
            "(its controller too) or a part of the rack, its own scrape tells (&rack=rNN)"
        )
    explained = ~rack_up[:, None, None] | ~l2_up[None] | ~l1_up[:, :, None]
    lone = ~trunk_up & ~explained
    fail += [trunk_id(d, int(r), int(p), int(k)) for r, p, k in zip(*np.nonzero(lone), strict=True)]
    basis = {x: "the domain's scrape: down" for x in fail}
    q = f"fabric={d.key}" + (f"&fail={','.join(fail)}" if fail else "")
    return to_query(parse_query(q).scenario, include_fabric=True), basis


def prefixed(attribution: dict, rack: int) -> dict:
    """A rack's attribution (local IDs) with its component IDs prefixed by the rack."""
    pre = f"{rack_id(rack)}."
    out = dict(attribution)
    for k in ("components", "failed", "degrading", "silent", "planned"):
        out[k] = [pre + x for x in attribution.get(k, [])]
    return out


def _part(s: Sample, label: str, d: Domain, what: str) -> tuple:
    part = parse_part(s.labels.get(label, ""), d)
    got = part.l2 if what == "l2" else part.trunk
    if got is None:
        raise ScenarioError(f"'{s.labels.get(label)}' is not an {what} ID", label)
    return part.rack, part.local, got


def rack_fabric(key: str | None) -> str | None:
    """The one-rack preset a file is read as on this fabric's page: a domain's racks'."""
    return DOMAINS[key].rack.key if key in DOMAINS else key
