"""A scenario (fabric, faults, feature switches, workload, updates) and its query-string form.

The query string is the scenario: it is the URL of the dashboard, the API's input and the
memo key. `to_query(s)` writes it here; model/query.py's parse_query reads it.
`to_query(parse_query(q).scenario)` is canonical: order and duplicates do not matter, and
`parse_query(to_query(s)).scenario == s` exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from model.errors import ScenarioError
from model.fabric.features import default_features
from model.fabric.islands import SCENARIO_ISLANDS
from model.fabric.presets import DEFAULT_FABRIC, ETH_X72, FABRICS, Fabric, eth_with_bandwidth
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS
from model.workloads.models import DEFAULT_TOKENS_PER_S_PER_USER, DEFAULT_WORKLOAD

KEYS = ("fabric", "fail", "flaky", "off", "on", "workload", "update", "eth_bw", "repair", "at")
MAX_QUERY_LENGTH = 4000  # characters; gunicorn's request line limit is 4094 bytes
MAX_IDS = 200  # per list (fail, flaky, update)
ETH_BW_RANGE = (0.1, 14.4)  # TB/s bidirectional per GPU
# eth_bw= is eth-x72's per-GPU bandwidth: on eth-x72 the fabric's own, on vr-nvl72 the
# Ethernet it is held against (its decode baseline, model/workloads/hardware.BASELINE).
ETH_BW_FABRICS = (ETH_X72.key, "vr-nvl72")
# at=: the interactivity a deployment runs at, tokens/s per user (workloads/models.py says
# why the default); the frontier is read at its nearest point, 2 tokens/s per user apart.
AT_RANGE = (2.0, 600.0)
DEFAULT_AT = DEFAULT_TOKENS_PER_S_PER_USER
MAX_WINDOW_DAYS = 365  # the longest planned repair window of repair=window-N
MAX_DARK_LINKS = 72  # repair=dark-K: K links dark, 1 to this
BW_PERCENT_RANGE = (50, 99)  # repair=bw-P: the worst GPU below P% of its bandwidth
ONSITE = "onsite"  # repair=<policy>,onsite: spare parts on site (short repairs)
_REPAIR = re.compile(r"(now|window-(\d{1,3})|dark-(\d{1,3})|bw-(\d{1,3}))(,onsite)?")


def canonical_repair(text: str) -> str | None:
    """repair= as it is written canonically ('window-7', 'bw-95,onsite'), or None if the text
    is not a policy (model/reliability/policy.py says what each does)."""
    m = _REPAIR.fullmatch(text.strip())
    if not m:
        return None
    head = m.group(1)
    for group, name, (lo, hi) in (
        (2, "window", (1, MAX_WINDOW_DAYS)),
        (3, "dark", (1, MAX_DARK_LINKS)),
        (4, "bw", BW_PERCENT_RANGE),
    ):
        if m.group(group) is not None:
            n = int(m.group(group))
            if not lo <= n <= hi:
                return None
            head = f"{name}-{n}"
    return head + (f",{ONSITE}" if m.group(5) else "")


def fabric_kind(fabric: str) -> FabricKind:
    """The kind a fabric name registers (every name the catalogue holds is one kind)."""
    if fabric in DOMAINS:
        return FabricKind.DOMAIN
    if fabric in SCENARIO_ISLANDS:
        return FabricKind.ISLANDS
    return FabricKind.RACK


@dataclass(frozen=True)
class Scenario:
    """Everything that defines one view of the rack. Lists are canonical: sorted, unique."""

    fabric: str = DEFAULT_FABRIC
    fail: tuple[str, ...] = ()
    flaky: tuple[str, ...] = ()
    off: tuple[str, ...] = ()
    on: tuple[str, ...] = ()
    workload: str = DEFAULT_WORKLOAD
    update: tuple[str, ...] = ()  # switch trays under in-service update, or ("all",)
    eth_bw: float | None = None
    repair: str = "now"  # the repair policy (model/reliability/policy.py): canonical_repair
    at: float = DEFAULT_AT  # the interactivity the deployment runs at, tokens/s per user

    @property
    def kind(self) -> FabricKind:
        """The kind of fabric, registered by its name: a multi-rack domain
        (model/multirack/domains.py), an island fabric (b200-roce: model/fabric/islands.py,
        data plane and decode only), or one of the single-rack presets."""
        return fabric_kind(self.fabric)

    @property
    def features(self) -> frozenset[str]:
        """The features in force: the fabric's defaults, less `off`, plus `on`."""
        return (default_features(self.fabric) - set(self.off)) | set(self.on)

    def spec(self) -> Fabric:
        """The fabric preset, with eth-x72's bandwidth override applied."""
        require_single_rack(self)
        if self.fabric == ETH_X72.key and self.eth_bw is not None:
            return eth_with_bandwidth(self.eth_bw)
        return FABRICS[self.fabric]

    def key(self) -> str:
        """The canonical key: the memo key and the shareable query."""
        return to_query(self, include_fabric=True)


# What a multi-rack domain's model does not cover yet (docs/MULTIRACK.md), said once: the
# endpoints whose model exists answer for domains (their routes say multirack=True); the
# rest are refused by require_single_rack, naming this.
DOMAIN_UNMODELLED: tuple[str, ...] = ()


def require_single_rack(s: Scenario) -> None:
    """Refuse a multi-rack domain where only one rack is modelled (a route that does not
    answer for domains, or a reader that needs one rack's Fabric), and an island fabric
    anywhere but its data plane and decode: the one place every endpoint and panel learns
    what a domain or b200-roce does not model."""
    why = _NOT_ONE_RACK[s.kind](s)
    if why:
        raise ScenarioError(why, token=s.fabric)


def _not_a_domain_answer(s: Scenario) -> str:
    missing = f" (not modelled yet: {'; '.join(DOMAIN_UNMODELLED)})" if DOMAIN_UNMODELLED else ""
    return f"{s.fabric} is a multi-rack domain: this answer is for one rack only{missing}"


def _islands_model_less(s: Scenario) -> str:
    return (
        f"{s.fabric} is the buyer's comparison of HGX islands on RoCE: only its data "
        "plane and decode are modelled (GET /api/v1/evaluate, /api/v1/decode)"
    )


# Why a kind's scenario is not one rack's ("": it is).
_NOT_ONE_RACK: Mapping[FabricKind, Callable[[Scenario], str]] = MappingProxyType(
    {
        FabricKind.RACK: lambda s: "",
        FabricKind.DOMAIN: _not_a_domain_answer,
        FabricKind.ISLANDS: _islands_model_less,
    }
)


def rack_fabric(s: Scenario) -> Fabric:
    """The one rack a scenario's fabric is built of: its own preset, or a domain's rack
    (an island fabric has none: refused, as by Scenario.spec)."""
    if s.fabric in DOMAINS:
        return DOMAINS[s.fabric].rack
    return s.spec()


def to_query(s: Scenario, include_fabric: bool = False) -> str:
    """The canonical query string; defaults are left out (the fabric too, unless asked)."""
    parts = []
    if include_fabric or s.fabric != DEFAULT_FABRIC:
        parts.append(f"fabric={s.fabric}")
    for key in ("fail", "flaky", "off", "on"):
        vals = getattr(s, key)
        if vals:
            parts.append(f"{key}={','.join(vals)}")
    if s.workload != DEFAULT_WORKLOAD:
        parts.append(f"workload={s.workload}")
    if s.update:
        parts.append(f"update={','.join(s.update)}")
    if s.eth_bw is not None:
        parts.append(f"eth_bw={s.eth_bw:g}")
    if s.repair != "now":
        parts.append(f"repair={s.repair}")
    if s.at != DEFAULT_AT:
        parts.append(f"at={s.at:g}")
    return "&".join(parts)
