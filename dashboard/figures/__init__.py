"""Figures: pure functions, model answers in, figure dicts or Patches out.

One way to write a figure: a plain dict, {"data": [...], "layout": {...}}, with the shared
look and helpers of base.py. One module a chart family:

    decode       decode_figure         model.workloads.throughput.decode_curves(scenario)
    breakdown    breakdown_figure      the same: the step's parts, scenario beside healthy
    goodput      goodput_figure        model.reliability.goodput.comparison()
                                       (+ comparison_label(rows, scenario))
    latency      latency_figure        model.fabric.metrics.latency_distribution(state), x3
    heatmap      heatmap_figure        a GPU x plane counter matrix
                 counters_heatmap_figure   model.telemetry.counters(scenario, t_s)
    series       link_series_figure    model.telemetry.link_series(scenario, link, ...)
    timeline     timeline_figure       model.reliability.timeline.timeline(scenario)
    l2           l2_figure             a multi-rack domain's L2 tier (+ l2_click_to_id)
    base         empty_figure          any 'no data' state, in the same template
    rack/        the rack and its spine: base figure once, a Patch a scenario
"""

from dashboard.figures import rack
from dashboard.figures.base import empty_figure, is_empty
from dashboard.figures.breakdown import breakdown_figure
from dashboard.figures.decode import decode_figure
from dashboard.figures.goodput import comparison_label, goodput_figure
from dashboard.figures.heatmap import counters_heatmap_figure, heatmap_figure
from dashboard.figures.l2 import l2_click_to_id, l2_figure
from dashboard.figures.latency import latency_figure
from dashboard.figures.series import link_series_figure
from dashboard.figures.timeline import timeline_figure

__all__ = [
    "breakdown_figure",
    "comparison_label",
    "counters_heatmap_figure",
    "decode_figure",
    "empty_figure",
    "goodput_figure",
    "heatmap_figure",
    "is_empty",
    "l2_click_to_id",
    "l2_figure",
    "latency_figure",
    "link_series_figure",
    "rack",
    "timeline_figure",
]
