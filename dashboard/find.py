"""Find by typing (issue 13): every part a fabric or domain has, by its ID, so the find box
can suggest them as a person types (any case, a prefix or any part of the ID).

The IDs are the model's own (model/parts.py: every_id): nothing here invents a name. A single rack lists its 5,184 cables (Vera Rubin), links, GPUs, switch chips,
controllers and trays; a multi-rack domain its racks, each rack's parts as rNN.<ID>, its L2
chips and trays and its trunk bundles.
"""

from __future__ import annotations

from model.parts import every_id, matching, rack_ids

__all__ = ["MAX_SUGGESTIONS", "every_id", "rack_ids", "suggest"]

MAX_SUGGESTIONS = 20


def suggest(fabric_key: str, typed: str | None, n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to n IDs for what was typed (any case): those starting with it first, in the
    model's order, then those containing it, then the parts of a kind it names ("trunk");
    nothing for an empty box. The model's matches (model/parts.py), the same an error names."""
    return matching(fabric_key, typed, n)
