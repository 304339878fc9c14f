"""Figures: pure functions, model answers in, figure dicts or Patches out."""

from dashboard.figures import rack  # noqa: F401
from dashboard.figures.charts import (  # noqa: F401
    comparison_label,
    counters_heatmap_figure,
    decode_figure,
    empty_figure,
    goodput_figure,
    heatmap_figure,
    is_empty,
    l2_click_to_id,
    l2_figure,
    latency_figure,
    link_series_figure,
    timeline_figure,
)
