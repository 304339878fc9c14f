"""Find by typing (issue 13): every part a fabric or domain has, by its ID, so the find box
can suggest them as a person types (any case, a prefix or any part of the ID).

The IDs are the model's own (model/parts.py: every_id): nothing here invents a name. A single rack lists its 5,184 cables (Vera Rubin), links, GPUs, switch chips,
controllers and trays; a multi-rack domain its racks, each rack's parts as rNN.<ID>, its L2
chips and trays and its trunk bundles.
"""

from __future__ import annotations

from model.fabric.presets import FABRICS
from model.multirack.domains import DOMAINS
from model.parts import every_id, rack_ids

__all__ = ["MAX_SUGGESTIONS", "every_id", "rack_ids", "suggest"]

MAX_SUGGESTIONS = 20


def suggest(fabric_key: str, typed: str | None, n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to n IDs for what was typed (any case): those starting with it first, in the
    model's order, then those containing it; nothing for an empty box."""
    tok = (typed or "").strip().lower()
    if not tok or fabric_key not in FABRICS and fabric_key not in DOMAINS:
        return []
    ids = every_id(fabric_key)
    first = [i for i in ids if i.startswith(tok)][:n]
    if len(first) < n:
        seen = set(first)
        first += [i for i in ids if tok in i and i not in seen][: n - len(first)]
    return first
