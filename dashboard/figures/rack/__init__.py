"""The rack-and-spine figure: the front view of the rack and its 5,184-cable NVLink spine.

Pure functions, data in and figure or Patch out (docs/ARCHITECTURE.md, "Fast and exact"):

- `base_figure(fabric_key)`: the static figure as a plain dict, built once per fabric
  (figure.py, from the spine's traces in spine.py and the front view's in front.py).
- `overlay_data(scenario)` / `overlay_patch(scenario)`: what a scenario changes, as plain data
  and as a `dash.Patch`: the cable overlays' y arrays, the base spine's colour and the
  front-view markers' colours and symbols. `full_figure(scenario)`: both at once, for the
  first render or a change of fabric (a new base). (overlay.py)
- `click_to_id(fabric_key, click_data)`: a Dash clickData to a component ID, or None; the
  geometry and the look (geometry.py).
"""

from dashboard.figures.rack.figure import base_figure, graph_config
from dashboard.figures.rack.geometry import (
    BASE_LINE_WIDTH,
    CLICKABLE,
    DENSITY_WIDTH,
    FAILED_SYMBOL,
    GPU_SYMBOL,
    LEADER_SYMBOL,
    PANEL_BG,
    PART_COLORS,
    PART_DRAINED,
    PART_FAILED,
    PART_FLAKY,
    PART_OK,
    PART_REROUTED,
    POWER_FILL,
    SPINE_LEFT,
    STATUS_COLORS,
    STATUS_WIDTHS,
    STATUSES,
    TEXT,
    TRACES,
    Geometry,
    click_to_id,
    down_width,
    geometry,
    point_ids,
)
from dashboard.figures.rack.overlay import (
    cable_statuses,
    full_figure,
    label_data,
    label_patch,
    overlay_data,
    overlay_patch,
    part_state,
)
from dashboard.figures.rack.selection import selection_data
from dashboard.figures.rack.spine import as_array

__all__ = [
    "BASE_LINE_WIDTH",
    "CLICKABLE",
    "DENSITY_WIDTH",
    "FAILED_SYMBOL",
    "GPU_SYMBOL",
    "LEADER_SYMBOL",
    "PANEL_BG",
    "PART_COLORS",
    "PART_DRAINED",
    "PART_FAILED",
    "PART_FLAKY",
    "PART_OK",
    "PART_REROUTED",
    "POWER_FILL",
    "SPINE_LEFT",
    "STATUSES",
    "STATUS_COLORS",
    "STATUS_WIDTHS",
    "TEXT",
    "TRACES",
    "Geometry",
    "as_array",
    "base_figure",
    "cable_statuses",
    "click_to_id",
    "down_width",
    "full_figure",
    "geometry",
    "graph_config",
    "label_data",
    "label_patch",
    "overlay_data",
    "overlay_patch",
    "part_state",
    "point_ids",
    "selection_data",
]
