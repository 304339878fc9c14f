"""The L2 tier of a multi-rack domain: one marker per L2 switch chip (plane x index), failed
ones marked, and below it the trunk map, one cell per trunk bundle (a rack's L1 chip of a
plane to one of the plane's L2 chips) coloured by its state; a click on either fails or
repairs what it hits. Plain SVG, as every chart of the page."""

from __future__ import annotations

from types import MappingProxyType

from dashboard.figures.base import COLORS, figure
from model.assess import assess
from model.errors import ScenarioError
from model.kinds import DomainKind
from model.multirack.assess import TRUNK_STATUSES
from model.multirack.domains import DOMAINS, l2_chips_of, l2_id, rack_id, trunk_port
from model.parts import part
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
    try:
        return list(l2_chips_of(DOMAINS[fabric_key], cid))
    except ScenarioError:
        return []


# the trunk map's colours, by the model's trunk statuses (DomainAssessment.trunk_status)
_TRUNK_COLORS = MappingProxyType(
    {"up": COLORS["ok"], "failed": COLORS["failed"], "idle": COLORS["neutral"], "flaky": "#F0E442"}
)
TRUNK_STATES = tuple((name, _TRUNK_COLORS[name]) for name in TRUNK_STATUSES)


def _trunk_columns(fabric_key: str) -> list[str]:
    """The trunk map's columns: a plane's L1 chip to each of its L2 chips, as the part of a
    trunk ID after the rack ('st3.sw2-l2.s1')."""
    d = DOMAINS[fabric_key]
    return [trunk_port(d, p, k) for p in range(d.planes) for k in range(d.l2_per_plane)]


def _trunk_trace(scenario: Scenario) -> dict:
    """The trunk map: a row a rack, a column a (plane, L2 chip) bundle; hover names the
    trunk (rNN.stK.swJ-l2.sS) and its state, a click fails or repairs it."""
    d = DOMAINS[scenario.fabric]
    r, p, k = d.racks, d.planes, d.l2_per_plane
    z = assess(scenario).trunk_status.reshape(r, p * k)
    n = len(TRUNK_STATES)
    scale = [[edge, c] for i, (_, c) in enumerate(TRUNK_STATES) for edge in (i / n, (i + 1) / n)]
    names = [name for name, _ in TRUNK_STATES]
    return {
        "type": "heatmap",
        "name": "trunks",
        "x": _trunk_columns(scenario.fabric),
        "y": [rack_id(i) for i in range(r)],
        "z": z.tolist(),
        "text": [[names[v] for v in row] for row in z.tolist()],
        "zmin": -0.5,
        "zmax": n - 0.5,
        "colorscale": scale,
        "showscale": False,
        "xgap": 1,
        "ygap": 1,
        "xaxis": "x2",
        "yaxis": "y2",
        "hovertemplate": "%{y}.%{x}: %{text}<extra>trunk bundle</extra>",
    }


def l2_figure(scenario: Scenario, selected: str | None = None) -> dict:
    """The L2 tier of a multi-rack domain: one marker per L2 chip (plane x index), failed
    ones marked, the selected part's chips ringed; a click fails or repairs it. Plain SVG,
    as every chart of the page."""
    d = DOMAINS[scenario.fabric]
    ids_ = _l2_ids(scenario.fabric)
    failed = set(scenario.fail)
    x = [p for p in range(d.planes) for _ in range(d.l2_per_plane)]
    y = [k for _ in range(d.planes) for k in range(d.l2_per_plane)]
    down = [cid in failed for cid in ids_]
    fig = figure(
        f"The L2 tier: {d.l2_chips} switch chips, {d.l2_per_plane} per plane [A]",
        "every rack's chip of plane p sends its 72 trunks to plane p's L2 chips "
        "(docs/MULTIRACK.md); click a chip, or a trunk below, to fail or repair it",
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
    fig["data"].append(_trunk_trace(scenario))
    fig["layout"]["xaxis"] = {
        "title": {"text": "plane (0-35: st1.sw0 .. st9.sw3 in every rack)"},
        "dtick": 4,
    }
    fig["layout"]["yaxis"] = {
        "title": {"text": "L2 chip of the plane"},
        "dtick": 1,
        "domain": [0.6, 1.0],
    }
    fig["layout"]["xaxis2"] = {
        "anchor": "y2",
        "title": {
            "text": "trunk map: a row a rack, a column a plane's L1 chip to one of its L2 chips; "
            "green up, red failed, grey idle (an end out of service), yellow flaky",
            "font": {"size": 10},
        },
        "showticklabels": False,
    }
    fig["layout"]["yaxis2"] = {
        "anchor": "x2",
        "domain": [0.0, 0.45],
        "autorange": "reversed",
        "title": {"text": "rack"},
    }
    return fig


def l2_click_to_id(fabric_key: str, click_data: dict | None) -> str | None:
    """The L2 chip (by point number) or the trunk bundle (by its row and column) a click
    names, checked against the domain's IDs, or None."""
    if fabric_key not in DOMAINS or not isinstance(click_data, dict):
        return None
    points = click_data.get("points")
    if not isinstance(points, list) or not points or not isinstance(points[0], dict):
        return None
    pt = points[0]
    if pt.get("curveNumber") == 2:  # the trunk map
        rack, col = pt.get("y"), pt.get("x")
        if not isinstance(rack, str) or not isinstance(col, str):
            return None
        cid = f"{rack}.{col}"
        try:
            kind = part(Scenario(fabric=fabric_key), cid).kind
        except ScenarioError:
            return None
        return cid if kind is DomainKind.TRUNK else None
    n = pt.get("pointNumber")
    table = _l2_ids(fabric_key)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < len(table):
        return None
    return table[n]
