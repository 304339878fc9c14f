"""Shared by the rack figure tests: the fabrics, the spine's and the front view's traces,
and readers of the figure's segments and overlays."""

from __future__ import annotations

import numpy as np

from dashboard.figures import rack as rf
from model.fabric.presets import FABRICS
from model.fabric.topology import topology
from model.query import parse_query

FABRIC_KEYS = tuple(FABRICS)
SPINE = ("cables", *rf.STATUSES, "cable_hits")
FRONT = ("trays", "gpus", "chips", "controllers")
PATCH_BUDGET = 16 * 1024  # bytes of json.dumps(patch.to_plotly_json())
# Measured 702 KiB (vr-nvl72, plotly's serializer, as Dash sends it); 63 KiB gzipped.
BASE_FIGURE_BUDGET = 900 * 1024


def scenario(query: str):
    return parse_query(query).scenario


def segments(x: list | tuple, y: list | tuple) -> list[tuple]:
    """The cables a spine line trace draws, over min(len(x), len(y)) points: each is out
    and back, (x2 0, y left) -> (1, y right) -> (0, y left); the steps between them run
    along x2 = 0 (under the left-edge mask)."""
    x, y = rf.as_array(x), rf.as_array(y)
    n = min(len(x), len(y))
    assert n % 3 == 0 and not np.isnan(x[:n]).any() and not np.isnan(y[:n]).any()
    out = []
    for i in range(0, n, 3):
        (a, b, c), (ya, yb, yc) = x[i : i + 3], y[i : i + 3]
        assert (a, b, c) == (0, 1, 0) and ya == yc, "not out and back along one cable"
        out.append(((a, ya), (b, yb)))
    return out


def overlay_cables(fabric_key: str, y: list) -> list[str]:
    """Cable IDs drawn by an overlay's y, matched on (left y, right y) of the geometry."""
    geo = rf.geometry(fabric_key)
    by_ends = {
        (a, b): cid
        for a, b, cid in zip(geo.y_left.tolist(), geo.y_right.tolist(), geo.cable_ids, strict=True)
    }
    assert len(by_ends) == len(geo.cable_ids), "cable ends are not unique"
    assert len(y) % 3 == 0
    return [by_ends[(y[i], y[i + 1])] for i in range(0, len(y), 3)]


def ids_of(fabric_key: str, kind: str) -> set[str]:
    return {c["id"] for c in topology(FABRICS[fabric_key])["components"] if c["kind"] == kind}
