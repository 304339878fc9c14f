"""Find by typing (issue 13): every part a fabric or domain has, by its ID, so the find box
can suggest them as a person types (any case, a prefix or any part of the ID).

The IDs are the model's own (model.ids, model.multirack.domains): nothing here invents a
name. A single rack lists its 5,184 cables (Vera Rubin), links, GPUs, switch chips,
controllers and trays; a multi-rack domain its racks, each rack's parts as rNN.<ID>, its L2
chips and trays and its trunk bundles.
"""

from __future__ import annotations

import functools
import itertools

from model.fabric.presets import FABRICS, Fabric
from model.ids import Component, chip_id, compute_tray_id, controller_id, gpu_id, tray_id
from model.kinds import ComponentKind as K
from model.multirack import domains as dm
from model.multirack.domains import DOMAINS

MAX_SUGGESTIONS = 20


def rack_ids(f: Fabric) -> tuple[str, ...]:
    """Every part of one rack: trays, GPUs, chips, controllers, then links and cables."""
    parts = [compute_tray_id(t) for t in range(1, f.compute_trays + 1)]
    parts += [gpu_id(g) for g in range(f.gpus)]
    parts += [tray_id(t) for t in range(1, f.switch_trays + 1)]
    parts += [chip_id(f, p) for p in range(f.planes)]
    parts += [controller_id(t) for t in range(1, f.switch_trays + 1)]
    for g, p in itertools.product(range(f.gpus), range(f.planes)):
        tray, chip = divmod(p, f.chips_per_tray)
        parts.append(Component(K.LINK, (g, tray + 1, chip)).id)
        parts += [Component(K.CABLE, (g, tray + 1, chip, c)).id for c in range(f.cables_per_link)]
    return tuple(parts)


@functools.lru_cache(maxsize=len(FABRICS) + len(DOMAINS))
def every_id(fabric_key: str) -> tuple[str, ...]:
    """Every ID the fabric (or the multi-rack domain) `fabric_key` has."""
    if fabric_key in FABRICS:
        return rack_ids(FABRICS[fabric_key])
    d = DOMAINS[fabric_key]
    local = rack_ids(d.rack)
    out = [dm.rack_id(r) for r in range(d.racks)]
    out += [dm.l2_id(p, s) for p in range(d.planes) for s in range(d.l2_per_plane)]
    out += [dm.l2_tray_id(n) for n in range(1, dm.l2_trays(d) + 1)]
    out += [
        dm.trunk_id(d, r, p, s)
        for r in range(d.racks)
        for p in range(d.planes)
        for s in range(d.l2_per_plane)
    ]
    out += [f"{dm.rack_id(r)}.{cid}" for r in range(d.racks) for cid in local]
    return tuple(out)


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
