"""decode_figure: the model's curves, plotly's make_subplots axes, the reference lines."""

from __future__ import annotations

import pytest
from plotly.subplots import make_subplots

from dashboard import figures as charts
from dashboard.figures import base
from dashboard.figures.claims import VENDOR_DECODE_RATIO
from model.workloads.decode_params import REFERENCE_TOKENS_PER_S_PER_USER
from model.workloads.throughput import decode_curves
from tests.dashboard.figures.helpers import (
    SCENARIOS,
    as_go,
    check_common,
    scenario,
    trace,
)


@pytest.mark.parametrize("q", SCENARIOS)
def test_decode_figure_draws_the_model_curves(q):
    d = decode_curves(scenario(q))
    raw = charts.decode_figure(d)
    fig = as_go(raw)
    if not d["job_runs"]:  # st3 without rerouting: the job aborts until the repair
        assert charts.is_empty(raw) and "down" in fig.layout.meta["message"]
        return
    check_common(raw)
    for key, name in (("scenario", "this scenario"), ("healthy", "healthy rack")):
        t = trace(fig, name)
        pts = d["curves"][key]
        assert list(t.x) == [p["tokens_per_s_per_user"] for p in pts]
        assert list(t.y) == [p["tokens_per_s_per_gpu"] for p in pts]
        assert [c[0] for c in t.customdata] == [p["batch_per_gpu"] for p in pts]
        assert [c[1] for c in t.customdata] == [p["deployment"] for p in pts]
    for key, name in (("scenario", "this scenario"), ("healthy", "healthy")):
        marks = d["deployment_changes"][key]
        assert marks  # the deployment changes somewhere along every curve
        t = trace(fig, f"deployment changes ({name})")
        assert list(t.x) == [c["tokens_per_s_per_user"] for c in marks]
        assert list(t.text) == [c["line"] for c in marks]  # the model's words, drawn as-is
    moved = d["fault_changes"]
    names = [t.name for t in fig.data]
    assert ("the fault moves the deployment" in names) == bool(moved)
    if moved:
        t = trace(fig, "the fault moves the deployment")
        assert list(t.x) == [c["tokens_per_s_per_user"] for c in moved]
        assert list(t.text) == [c["line"] for c in moved]
    ratio = trace(fig, f"this scenario ÷ {d['baseline']}")
    assert list(ratio.y) == [p["ratio"] for p in d["ratio_vs_baseline"]]
    assert ratio.xaxis == "x2" and ratio.yaxis == "y2"
    assert fig.layout.xaxis.type == fig.layout.xaxis2.type == "log"
    assert any(
        s.x0 == s.x1 == REFERENCE_TOKENS_PER_S_PER_USER and s.line.dash == "dot"
        for s in fig.layout.shapes
    )


def test_decode_figure_when_the_job_is_down_is_empty():
    d = decode_curves(scenario("fail=gpu05&off=partial-rack"))
    assert d["curves"]["scenario"] == []
    raw = charts.decode_figure(d)
    assert charts.is_empty(raw) and not as_go(raw).data
    assert charts.is_empty(charts.decode_figure({}))
    as_go(charts.decode_figure({}))


def _decode_axes_and_lines(d: dict) -> tuple[dict, list, list]:
    lay = as_go(charts.decode_figure(d)).to_plotly_json()["layout"]
    return lay, lay.get("shapes", []), lay.get("annotations", [])


def test_decode_figure_is_plotlys_make_subplots_with_lines_on_the_panels_that_have_data():
    """As the go-built figure was (checked once against it): make_subplots' axes, add_hline
    on row 2, add_vline on every panel with traces."""
    d = decode_curves(scenario("fail=st3"))
    lay, shapes, notes = _decode_axes_and_lines(d)
    grid = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.64, 0.36], vertical_spacing=0.06
    ).to_plotly_json()["layout"]
    for key in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert {k: lay[key][k] for k in grid[key]} == grid[key], key
    assert lay["xaxis"]["matches"] == "x2" and lay["xaxis"]["showticklabels"] is False
    ref, vendor = REFERENCE_TOKENS_PER_S_PER_USER, VENDOR_DECODE_RATIO
    muted = {"color": base.MUTED, "width": 1}
    vline = {"type": "line", "x0": ref, "x1": ref, "y0": 0, "y1": 1}
    vline["line"] = {"color": base.FG, "width": 1, "dash": "dot"}
    assert shapes == [
        {"type": "line", "x0": 0, "x1": 1, "y0": 1.0, "y1": 1.0, "line": muted}
        | {"xref": "x2 domain", "yref": "y2"},
        {"type": "line", "x0": 0, "x1": 1, "y0": vendor, "y1": vendor}
        | {"line": muted | {"dash": "dot"}, "xref": "x2 domain", "yref": "y2"},
        vline | {"xref": "x", "yref": "y domain"},
        vline | {"xref": "x2", "yref": "y2 domain"},
    ]
    assert [(a["xref"], a["yref"]) for a in notes] == [("x2 domain", "y2")]
    # No ratio: row 2 is empty, so the reference line is drawn on row 1 only.
    lay, shapes, notes = _decode_axes_and_lines(d | {"ratio_vs_baseline": []})
    assert shapes == [vline | {"xref": "x", "yref": "y domain"}]
    assert [(a["xref"], a["yref"], a["x"], a["y"]) for a in notes] == [
        ("x2 domain", "y2 domain", 0.5, 0.5)
    ]
