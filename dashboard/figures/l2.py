"""The L2 tier of a multi-rack domain: one marker per L2 switch chip (plane x index), failed
ones marked; a click on one fails or repairs it. Plain SVG: only the spine uses WebGL."""

from __future__ import annotations

from dashboard.figures.base import COLORS, figure
from model.errors import ScenarioError
from model.multirack.domains import DOMAINS, l2_id, l2_tray_chips, parse_part
from model.scenario import Scenario

SELECTED = "#ffffff"  # the ring round a found or inspected part's L2 chips (as the rack's)


def _l2_ids(fabric_key: str) -> list[str]:
    d = DOMAINS[fabric_key]
    return [l2_id(p, k) for p in range(d.planes) for k in range(d.l2_per_plane)]


def selected_chips(fabric_key: str, cid: str | None) -> list[tuple[int, int]]:
    """(plane, index) of the L2 chips a found or inspected part names: an L2 chip itself, an
    L2 tray's chips, a trunk's L2 end; none for anything else (a rack's own parts are
    shown in the rack's drawing)."""
    if not cid:
        return []
    d = DOMAINS[fabric_key]
    try:
        part = parse_part(cid, d)
    except ScenarioError:
        return []
    if part.trunk is not None:
        return [(part.trunk[1], part.trunk[2])]
    if part.l2_tray is not None:
        return list(l2_tray_chips(d, part.l2_tray))
    return [part.l2] if part.l2 is not None else []


def l2_figure(scenario: Scenario, selected: str | None = None) -> dict:
    """The L2 tier of a multi-rack domain: one marker per L2 chip (plane x index), failed
    ones marked, the selected part's chips ringed; a click fails or repairs it. Plain SVG:
    only the spine uses WebGL."""
    d = DOMAINS[scenario.fabric]
    ids_ = _l2_ids(scenario.fabric)
    failed = set(scenario.fail)
    x = [p for p in range(d.planes) for _ in range(d.l2_per_plane)]
    y = [k for _ in range(d.planes) for k in range(d.l2_per_plane)]
    down = [cid in failed for cid in ids_]
    fig = figure(
        f"The L2 tier: {d.l2_chips} switch chips, {d.l2_per_plane} per plane [A]",
        "every rack's chip of plane p sends its 72 trunks to plane p's L2 chips "
        "(docs/MULTIRACK.md); click one to fail or repair it",
        "l2",
        margin={"b": 40},
    )
    fig["data"].append(
        {
            "type": "scatter",
            "x": x,
            "y": y,
            "mode": "markers",
            "customdata": ids_,
            "hovertemplate": "%{customdata}<extra></extra>",
            "marker": {
                "symbol": ["x" if f else "square" for f in down],
                "size": 12,
                "color": [COLORS["failed"] if f else COLORS["ok"] for f in down],
            },
            "showlegend": False,
        }
    )
    ring = selected_chips(scenario.fabric, selected)
    fig["data"].append(
        {
            "type": "scatter",
            "name": "selected",
            "x": [p for p, _ in ring],
            "y": [k for _, k in ring],
            "mode": "markers",
            "marker": {"symbol": "circle-open", "size": 20, "color": SELECTED},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    )
    fig["layout"]["xaxis"] = {
        "title": {"text": "plane (0-35: st1.sw0 .. st9.sw3 in every rack)"},
        "dtick": 4,
    }
    fig["layout"]["yaxis"] = {"title": {"text": "L2 chip of the plane"}, "dtick": 1}
    return fig


def l2_click_to_id(fabric_key: str, click_data: dict | None) -> str | None:
    """The L2 chip a click names (by point number, checked), or None."""
    if fabric_key not in DOMAINS or not isinstance(click_data, dict):
        return None
    points = click_data.get("points")
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        return None
    n = points[0].get("pointNumber")
    table = _l2_ids(fabric_key)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < len(table):
        return None
    return table[n]
