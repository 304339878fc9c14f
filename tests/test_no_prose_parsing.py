"""No code parses the model's sentences back, and no code reads a component ID by slicing:
states are types (model/kinds.py) and IDs are parsed by model/ids.py (and, for multi-rack
IDs, model/multirack/domains.py). This test greps the source for the ways it was done."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARSERS = {"model/ids.py", "model/multirack/domains.py"}
PROSE = r"(event|restart|cause|explanation|action|until_then|note|state_text)"
FORBIDDEN = {
    "prose read with a string method": rf"\[[\"']{PROSE}[\"']\]\s*(\.startswith|\.endswith|\.split|\.find|\.index)\(",
    "prose searched for a word": rf"[\"'][^\"']+[\"']\s+(not\s+)?in\s+\w+(\[[\"']{PROSE}[\"']\]|\.{PROSE})",
    "a word searched in a list of sentences": r"[\"'][a-z ]+[\"']\s+in\s+\w+\s+for\s+\w+\s+in\s+",
    "a restart read from its wording": r"startswith\([\"'](at once|after)",
    "an ID sliced to a number": r"int\(\w+(\.\w+)*\[\d+:\d*\]\)",
    "an ID split at its cable": r"\.split\([\"']\.c[\"']\)",
    "a link told by its dash": r"\.count\([\"']-[\"']\)",
    "an ID split at a dot for its tray": r"\.split\([\"']\.[\"']\)\[0\]",
    "an ID split at its switch chip": r"\.split\([\"'](\.sw|-st)[\"']\)",
}


def _sources() -> list[Path]:
    return [
        p
        for top in ("model", "dashboard")
        for p in sorted((ROOT / top).rglob("*.py"))
        if str(p.relative_to(ROOT)) not in PARSERS
    ]


def test_the_patterns_catch_what_they_are_for() -> None:
    caught = {
        'job["restart"].startswith("at once")': "prose read with a string method",
        'if "restored" in e["event"]:': "prose searched for a word",
        'any("restored" in s for s in ts)': "a word searched in a list of sentences",
        "mask[int(gid[3:])] = False": "an ID sliced to a number",
        'sorted({d.split(".c")[0] for d in a.degrading})': "an ID split at its cable",
        'cid.count("-") != 1': "a link told by its dash",
        'int(st.control.leader.split(".")[0][2:])': "an ID split at a dot for its tray",
    }
    for line, why in caught.items():
        assert re.search(FORBIDDEN[why], line), (why, line)


def test_no_prose_parsing_and_no_id_slicing() -> None:
    found = []
    for path in _sources():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for why, pat in FORBIDDEN.items():
                if re.search(pat, line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {why}: {line.strip()}")
    assert not found, "\n".join(found)
