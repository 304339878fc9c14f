"""View options that are not the scenario (which counter, which link, what to compare, what a
click does, the selected part), kept in the URL's #fragment so a shared link opens the same view. Validated like
the query: a bad value is dropped and named, the default takes its place."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from urllib.parse import parse_qsl, quote

from model import telemetry
from model.fabric.presets import VR_NVL72, Fabric
from model.parts import default_link

DEFAULTS: Mapping[str, str] = MappingProxyType(
    {
        "counter": telemetry.REPLAY,
        # the default fabric's; a fabric without it shows its own (link_for)
        "link": default_link(VR_NVL72),
        "compare": "fabric=eth-x72",
        "mode": "fail",
        "rack": "r01",
        "sel": "",
    }
)
MODES = ("fail", "flaky", "inspect")  # what a click on the rack does
MAX_HASH = 1000
_VALID: Mapping[str, Callable[[str], bool]] = MappingProxyType(
    {
        "counter": lambda v: v in (*telemetry.METRICS, "state"),
        "link": lambda v: 0 < len(v) <= 32,
        "compare": lambda v: len(v) <= 400,
        "mode": lambda v: v in MODES,
        "rack": lambda v: re.fullmatch(r"r(0[1-9]|1[0-6])", v) is not None,  # r01..r16
        "sel": lambda v: 0 < len(v) <= 40,  # drawn only if the fabric on show has it
    }
)


def link_for(f: Fabric, link: str | None) -> str:
    """The link the charts follow on a rack of fabric f: the one chosen, or, when none is
    (the default), f's own default link, which every fabric has."""
    link = (link or "").strip()
    return default_link(f) if link in ("", DEFAULTS["link"]) else link


def parse(fragment: str | None) -> tuple[dict, list[str]]:
    """The view options in a #fragment, and what was dropped from it."""
    v, problems = dict(DEFAULTS), []
    frag = (fragment or "").lstrip("#")
    if len(frag) > MAX_HASH:
        return v, [f"the #fragment is {len(frag)} characters long; at most {MAX_HASH}"]
    for key, value in parse_qsl(frag, keep_blank_values=True):
        if key not in _VALID:
            problems.append(f"unknown view option '{key}'")
        elif not _VALID[key](value):
            problems.append(f"{key} '{value}' is not valid; showing {DEFAULTS[key]}")
        else:
            v[key] = value
    return v, problems


def to_hash(v: dict) -> str:
    """The #fragment for these options; defaults are left out."""
    parts = [
        f"{k}={quote(str(v[k]), safe=',-.=')}"
        for k in DEFAULTS
        if v.get(k) not in (None, "", DEFAULTS[k])
    ]
    return "#" + "&".join(parts) if parts else ""
