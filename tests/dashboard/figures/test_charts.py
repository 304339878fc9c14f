"""The chart figure builders on real model outputs: SVG traces only, unit-bearing axis titles,
data equal to the model's, 'no data' states as empty figures, and small JSON.

The builders return plain dicts (dashboard/figures/base.py); as_go wraps each in go.Figure, so
plotly validates every property of every figure a test builds, and checks that the dict as
sent is what plotly makes of it (no property plotly would rename, expand or coerce)."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from functools import cache

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.io.json import to_json_plotly
from plotly.subplots import make_subplots

from dashboard import figures as charts
from dashboard.figures import base
from dashboard.figures import goodput as goodput_fig
from dashboard.figures import timeline as timeline_fig
from dashboard.figures.claims import VENDOR_DECODE_RATIO
from dashboard.web import results
from model import parse_query
from model import telemetry as tm
from model.fabric.metrics import latency, latency_distribution
from model.fabric.state import build_state
from model.ids import link_id
from model.reliability.goodput import comparison
from model.reliability.timeline import timeline
from model.workloads.decode import REFERENCE_TOKENS_PER_S_PER_USER
from model.workloads.throughput import decode_curves


def lists(o):
    """JSON with plotly's base64 typed arrays ({'dtype', 'bdata'}) read back as lists."""
    if isinstance(o, dict) and "bdata" in o:
        a = np.frombuffer(base64.b64decode(o["bdata"]), dtype=np.dtype(o["dtype"]))
        if "shape" in o:
            a = a.reshape([int(n) for n in o["shape"].split(",")])
        return json.loads(to_json_plotly(a))
    if isinstance(o, dict):
        return {k: lists(v) for k, v in o.items()}
    if isinstance(o, list):
        return [lists(v) for v in o]
    return o


SCENARIOS = [
    "",
    "fail=st3",
    "fail=st3&off=reroute",
    "fabric=gb200-nvl72",
    "fabric=eth-x72",
]
SVG_TYPES = {"scatter", "bar", "heatmap"}
# Quantitative axes must name a unit; categorical ones (configuration, GPU, plane) a quantity.
UNITS = ("tokens/s", "×", "hours", "µs", "%", "GB/s", "count", "bytes", "errors/bit", "days")
UNITS += ("minutes", "time since", "link state", "configuration", "GPU", "plane")


def scenario(q: str):
    return parse_query(q).scenario


@cache
def rows() -> list[dict]:
    return comparison()


def lat(q: str) -> dict:
    return latency_distribution(build_state(scenario(q)))


def healthy_of(q: str) -> dict:
    s = scenario(q)
    return latency_distribution(build_state(replace(s, fail=(), flaky=(), update=())))


PLAIN = (dict, list, str, int, float, bool, type(None), np.ndarray, np.generic)


def assert_plain(o: object, path: str = "") -> None:
    """Nothing but dicts, lists, scalars and numpy arrays: no plotly object anywhere."""
    assert isinstance(o, PLAIN), (path, type(o))
    if isinstance(o, dict):
        for k, v in o.items():
            assert isinstance(k, str), (path, k)
            assert_plain(v, f"{path}.{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            assert_plain(v, f"{path}[{i}]")


def as_go(d: dict) -> go.Figure:
    """A builder's figure: a plain {'data', 'layout'} dict, which go.Figure validates (an
    invalid property raises) and takes as is: its own JSON, what Dash sends, is the validated
    figure's (numpy arrays as lists there, base64 in plotly's)."""
    assert isinstance(d, dict) and set(d) == {"data", "layout"}
    assert_plain(d)
    fig = go.Figure(d)
    assert json.loads(to_json_plotly(d)) == lists(json.loads(fig.to_json()))
    return fig


def check_common(d: dict) -> go.Figure:
    """SVG traces only, the shared template, every axis that shows data titled with a unit;
    the figure as a go.Figure."""
    fig = as_go(d)
    types = {t.type for t in fig.data}
    assert types <= SVG_TYPES, types
    assert not any("gl" in t for t in types)
    lay = fig.layout
    assert lay.template.layout.paper_bgcolor == base.BG
    assert lay.template.layout.font.color == base.FG
    assert lay.title.text and lay.title.subtitle.text
    used = {t.xaxis or "x" for t in fig.data} | {t.yaxis or "y" for t in fig.data}
    for ref in used:
        axis = lay[ref[0] + "axis" + ref[1:]]
        title = axis.title.text
        if title is None:  # a shared x axis is titled once, on the bottom panel
            assert axis.matches and lay[ref[0] + "axis" + axis.matches[1:]].title.text
            continue
        assert any(u in title for u in UNITS), (ref, title)
    assert len(fig.to_json()) < 90_000  # keep figures small
    assert len(to_json_plotly(d)) < 90_000  # as Dash sends the dict
    return fig


def trace(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)


# --- decode -----------------------------------------------------------------------------------
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
        assert list(t.customdata) == [p["batch_per_gpu"] for p in pts]
    ratio = trace(fig, "this scenario ÷ eth-x72")
    assert list(ratio.y) == [p["ratio"] for p in d["ratio_vs_eth_x72"]]
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


# --- goodput ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "q, label",
    [
        ("", "vr-nvl72, all seven features"),
        ("fail=st3", "vr-nvl72, all seven features"),
        ("fail=st3&off=reroute", "vr-nvl72, reroute off"),
        ("fabric=gb200-nvl72", "gb200-nvl72, defaults"),
        ("fabric=eth-x72&workload=train", "eth-x72, defaults"),
        ("off=reroute,telemetry", None),
    ],
)
def test_goodput_figure_stacks_badput_by_cause_and_marks_the_current_configuration(q, label):
    r = rows()
    current = charts.comparison_label(r, scenario(q))
    assert current == label
    fig = check_common(charts.goodput_figure(r, current))
    bars = [t for t in fig.data if t.type == "bar"]
    assert fig.layout.barmode == "stack" and all(b.orientation == "h" for b in bars)
    # Each cause in its fixed colour; the legend names it.
    for b in bars:
        cause = next(c for c, (short, _) in goodput_fig.CAUSE_NAMES.items() if short == b.name)
        assert b.marker.color == goodput_fig.CAUSE_COLORS[cause]
    # The stack adds up to each row's badput; rows run from most badput (bottom) to least.
    by_label = {goodput_fig.short_label(x["label"]): x for x in r}
    total = np.sum([np.asarray(b.x) for b in bars], axis=0)
    want = [sum(by_label[y]["badput_hours_per_rack_year"].values()) for y in bars[0].y]
    assert total == pytest.approx(want)
    assert list(total) == sorted(total, reverse=True)
    assert len(bars[0].y) == len(r)
    marked = [t for t in fig.layout.yaxis.ticktext if t.startswith("<b>▶")]
    assert len(marked) == (label is not None)
    assert len(fig.layout.shapes) == (label is not None)


def test_goodput_figure_without_rows_is_empty():
    raw = charts.goodput_figure([], None)
    assert charts.is_empty(raw) and not as_go(raw).data


# --- latency ----------------------------------------------------------------------------------
@pytest.mark.parametrize("q", SCENARIOS + ["fail=st3,st4,st5"])
def test_latency_distribution_is_latencys_own_mixture(q):
    st = build_state(scenario(q))
    d, ref = latency_distribution(st), latency(st)
    assert (d["p50"], d["p99"]) == (ref["p50"], ref["p99"])
    cdf = np.asarray(d["cdf"])
    assert np.all(np.diff(cdf) >= 0) and cdf[-1] == pytest.approx(0.9999, abs=1e-6)
    assert cdf[0] == pytest.approx(d["no_wait_share"], abs=1e-6)
    assert d["latency_us"][0] == pytest.approx(ref["unloaded_us"])


@pytest.mark.parametrize("q", SCENARIOS)
def test_latency_figure_draws_the_distribution_with_p50_and_p99(q):
    cur, healthy = lat(q), healthy_of(q)
    fig = check_common(charts.latency_figure(cur, healthy))
    assert fig.layout.yaxis.type == "log"
    line = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "lines")
    assert list(line.x[2:]) == cur["latency_us"]
    assert np.asarray(line.y[2:]) == pytest.approx(100 * (1 - np.asarray(cur["cdf"])))
    marks = next(t for t in fig.data if t.legendgroup == "scenario" and t.mode == "markers")
    assert list(marks.x) == [cur["p50"], cur["p99"]] and list(marks.y) == [50.0, 1.0]
    assert any(t.legendgroup == "healthy" for t in fig.data)


def test_latency_figure_with_no_traffic_is_empty():
    d = lat("update=st2&off=issu")  # a maintenance window: nothing flows
    assert d["latency_us"] == [] and d["p50"] is None
    raw = charts.latency_figure(d, healthy_of(""))
    assert charts.is_empty(raw) and not as_go(raw).data


# --- heatmap ----------------------------------------------------------------------------------
@pytest.mark.parametrize("q", SCENARIOS)
@pytest.mark.parametrize("name", ["state", tm.REPLAY, tm.BER, tm.BANDWIDTH])
def test_heatmap_is_gpus_by_planes_with_inactive_links_apart(q, name):
    s = scenario(q)
    c = tm.counters(s, 3600.0)
    raw = charts.counters_heatmap_figure(c, name)
    if name != "state" and not c.telemetry:  # gb200-nvl72 ships with link telemetry off
        assert charts.is_empty(raw) and not as_go(raw).data
        return
    fig = check_common(raw)
    f = c.fabric
    main = fig.data[0]
    assert main.type == "heatmap"
    assert np.asarray(main.z).shape == (72, f.planes)
    # Hover names the link: the row label, '-', the column label is the model's link ID.
    assert main.hovertemplate.startswith("%{y}-%{x}")
    assert f"{main.y[7]}-{main.x[9]}" == link_id(f, 7, 9)
    down = c.state == tm.INACTIVE
    overlay = [t for t in fig.data if t.type == "heatmap" and t.name == "INACTIVE"]
    assert len(overlay) == int(down.any())
    if down.any():
        assert np.array_equal(~np.isnan(np.asarray(overlay[0].z)), down)
    z = np.asarray(main.z, dtype=float)
    assert np.isnan(z[down]).all() and not np.isnan(z[~down]).any()
    if name != "state":
        raw = c.heatmap(name)[~down]
        shown = np.asarray(main.customdata if main.customdata is not None else main.z)[~down]
        assert shown == pytest.approx(raw, rel=1e-6)


def test_heatmap_uses_a_log_colour_scale_across_decades_and_says_so():
    c = tm.counters(scenario("fail=st3&flaky=gpu07-st2.sw1"), 3600.0)
    ber = as_go(charts.counters_heatmap_figure(c, tm.BER))
    assert "log colour" in ber.layout.title.subtitle.text
    ticks = ber.data[0].colorbar.tickvals
    assert (
        all(float(k).is_integer() for k in ticks) and "10<sup>" in ber.data[0].colorbar.ticktext[0]
    )
    rep = as_go(charts.counters_heatmap_figure(c, tm.REPLAY))
    assert "log10(1 + n)" in rep.layout.title.subtitle.text
    z = np.asarray(rep.data[0].z, dtype=float)
    assert z[7, 5] == pytest.approx(np.log10(1 + c.heatmap(tm.REPLAY)[7, 5]), rel=1e-6)
    # The stale tray's columns are marked above the map.
    assert sum(s.type == "rect" for s in rep.layout.shapes) == int(c.stale.sum())


def test_heatmap_figure_takes_nan_as_inactive_and_checks_its_labels():
    m = np.ones((4, 2))
    m[1, 1] = np.nan
    fig = as_go(
        charts.heatmap_figure(m, "x", "GB/s", ["g0", "g1", "g2", "g3"], ["st1.sw0", "st1.sw1"])
    )
    assert np.isnan(np.asarray(fig.data[1].z, dtype=float)).sum() == 7
    with pytest.raises(ValueError):
        charts.heatmap_figure(m, "x", "GB/s", ["g0"], ["st1.sw0", "st1.sw1"])


# --- link series ------------------------------------------------------------------------------
FLAKY = "fail=st3&flaky=gpu07-st2.sw1"


@pytest.mark.parametrize("metric", [tm.REPLAY, tm.RECOVERY, tm.BER, tm.BANDWIDTH_GBS, "state"])
def test_link_series_figure_plots_the_series_and_marks_the_failure(metric):
    ser = tm.link_series(scenario(FLAKY), "gpu07-st2.sw1", 0, 7 * 86400, 3600)
    fig = check_common(charts.link_series_figure(ser, metric))
    line = next(t for t in fig.data if t.mode == "lines")
    assert np.asarray(line.x) == pytest.approx(np.asarray(ser["t_s"]) / 86400)
    assert "days" in fig.layout.xaxis.title.text
    if metric == "state":
        assert list(line.y) == [float(s == "ACTIVE") for s in ser["state"]]
    else:
        want = np.array(ser[metric], dtype=float)
        assert np.array_equal(np.asarray(line.y), want, equal_nan=True)
    # The degrading link fails five days in: one state change, and the INACTIVE span shaded.
    change = trace(fig, "state change")
    assert len(change.x) == 1 and change.x[0] == pytest.approx(tm.FLAKY_TTF_S / 86400, abs=0.05)
    assert list(change.customdata) == ["ACTIVE → INACTIVE"]
    assert any(s.type == "rect" for s in fig.layout.shapes)
    if metric == tm.BER:
        assert fig.layout.yaxis.type == "log"


def test_link_series_with_telemetry_off_shows_the_state_and_says_why():
    ser = tm.link_series(scenario(FLAKY + "&off=telemetry"), "gpu07-st2.sw1", 0, 86400, 600)
    fig = check_common(charts.link_series_figure(ser, tm.REPLAY))
    assert "telemetry is off" in fig.layout.title.subtitle.text
    assert fig.layout.yaxis.title.text == "link state"
    assert "hours" in fig.layout.xaxis.title.text


def test_link_series_without_samples_is_empty():
    raw = charts.link_series_figure({"id": "gpu00-st1.sw0", "t_s": []}, "BER")
    assert charts.is_empty(raw) and not as_go(raw).data


# --- timeline ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "q",
    [
        "fail=st3",
        "fail=st3&off=reroute",
        "fabric=gb200-nvl72&fail=st3",
        "fabric=eth-x72&fail=st3",
        "fail=gpu05&off=partial-rack",
        "fail=st1.mc&off=cp-resilience",
        "fail=gpu07-st3.sw2.c0&off=reroute,telemetry",
    ],
)
def test_timeline_figure_steps_through_the_faults_story(q):
    tl = timeline(scenario(q))
    fig = check_common(charts.timeline_figure(tl))
    ser = tl["series"]
    delivered = trace(fig, "work delivered")
    assert len(delivered.x) == len(delivered.y) == len(ser)
    assert list(delivered.y) == [100 * p["delivered"] for p in ser]
    assert delivered.line.shape == "hv"
    assert np.all(np.diff(np.asarray(delivered.x)) >= 0)
    # Goodput is continuous between the model's points and equals them at the points.
    good = trace(fig, "goodput so far")
    ax = timeline_fig.TimeAxis(
        np.array([p["t_s"] for p in ser] + [e["t_s"] for e in tl["events"]]),
        lead_s=-tl["window_s"][0],
        end_s=tl["window_s"][1],
    )
    t_good = ax.inverse(np.asarray(good.x))
    for p in ser:
        i = int(np.argmin(np.abs(t_good - p["t_s"])))
        assert good.y[i] == pytest.approx(100 * p["goodput"], abs=1e-3)
    events = trace(fig, "events")
    assert len(events.x) == len({e["t_s"] for e in tl["events"]})
    text = " ".join(events.customdata)
    assert all(e["event"].split()[0] in text for e in tl["events"])
    assert fig.layout.xaxis.ticktext[1] == "0"  # the fault


def test_time_axis_is_monotone_invertible_and_puts_every_event_on_a_readable_part():
    tl = timeline(scenario("fail=st3&off=reroute"))
    et = np.array([e["t_s"] for e in tl["events"]])
    ax = timeline_fig.TimeAxis(et, lead_s=10.0, end_s=tl["window_s"][1])
    t = np.concatenate([np.linspace(-10, 0, 50), np.geomspace(1e-6, tl["window_s"][1], 400)])
    x = ax(t)
    assert np.all(np.diff(x) > 0)
    assert ax.inverse(x) == pytest.approx(t, rel=1e-9, abs=1e-12)
    assert (et[et > 0] >= ax.tau).all()
    # The repair and the restart 40 minutes later stay apart (they touch on a pure log axis).
    repair, back = sorted(set(et[et >= 86400]))[:2]
    assert ax(back) - ax(repair) > 0.5


@pytest.mark.parametrize("tl", [None, timeline(parse_query("").scenario), {"series": []}])
def test_timeline_without_a_fault_is_empty(tl):
    raw = charts.timeline_figure(tl)
    fig = as_go(raw)
    assert charts.is_empty(raw) and not fig.data
    assert "fail a part" in fig.layout.annotations[0].text


# --- the empty figure -------------------------------------------------------------------------
def test_empty_figure_shares_the_template_and_shows_the_message():
    raw = charts.empty_figure("nothing to show here", "A title")
    fig = as_go(raw)
    assert charts.is_empty(raw) and not fig.data
    assert fig.layout.template.layout.plot_bgcolor == base.BG
    assert fig.layout.annotations[0].text == "nothing to show here"
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert not charts.is_empty(charts.decode_figure(decode_curves(scenario("fail=st3"))))


def test_heatmap_shows_links_drained_for_an_update_apart_from_failed_ones():
    c = tm.counters(scenario("update=st2&fail=gpu09"), 3600.0)
    fig = check_common(charts.counters_heatmap_figure(c, tm.BANDWIDTH_GBS))
    drained = next(t for t in fig.data if t.name == "INACTIVE, drained")
    failed = next(t for t in fig.data if t.name == "INACTIVE")
    dz = ~np.isnan(np.asarray(drained.z, dtype=float))
    fz = ~np.isnan(np.asarray(failed.z, dtype=float))
    assert np.array_equal(dz | fz, c.state == tm.INACTIVE) and not (dz & fz).any()
    assert dz[:, c.planned].all() and not dz[:, ~c.planned].any()


# --- every builder: a plain dict, what the go-built figures were -------------------------------
def realistic() -> dict:
    """Each builder on the inputs dashboard/panels/callbacks.py gives it for '?fail=st3'."""
    s = scenario("fail=st3")
    rows_ = rows()
    dists = [lat("fail=st3"), healthy_of("fail=st3"), lat("fabric=eth-x72")]
    tl = timeline(s)
    snap = tm.counters(s, 10800.0)
    ser = tm.link_series(s, "gpu07-st3.sw2", 0.0, 10800.0, 60.0)
    return {
        "decode": lambda: charts.decode_figure(decode_curves(s)),
        "goodput": lambda: charts.goodput_figure(rows_, charts.comparison_label(rows_, s)),
        "latency": lambda: charts.latency_figure(*dists),
        "counters_heatmap": lambda: charts.counters_heatmap_figure(snap, tm.REPLAY),
        "link_series": lambda: charts.link_series_figure(ser, tm.REPLAY),
        "timeline": lambda: charts.timeline_figure(tl, now_s=7200.0),
        "l2": lambda: charts.l2_figure(scenario("fabric=vr-nvl576&fail=l2.p03.s1")),
    }


@pytest.mark.parametrize("name", list(realistic()))
def test_every_builder_returns_a_plain_dict_plotly_validates_and_takes_as_is(name):
    raw = realistic()[name]()
    fig = check_common(raw)  # as_go: plain, valid, unchanged by plotly
    assert fig.layout.meta["chart"] == name.removeprefix("counters_")
    assert not charts.is_empty(raw)
    # What results.figure caches and hands out: plotly's JSON of the dict (numpy included).
    assert results.figure(name, [name], lambda: raw) == json.loads(to_json_plotly(raw))


def test_l2_figure_marks_failed_chips():
    fig = check_common(charts.l2_figure(scenario("fabric=vr-nvl576&fail=l2.p03.s1")))
    pts = fig.data[0]
    i = list(pts.customdata).index("l2.p03.s1")
    assert pts.marker.symbol[i] == "x" and pts.marker.color[i] == base.COLORS["failed"]
    assert list(pts.marker.symbol).count("x") == 1


def test_the_template_is_plain_plotlys_viridis_and_not_shared_between_figures():
    assert base.viridis() == [list(p) for p in go.Heatmap(colorscale="Viridis").colorscale]
    t = as_go(charts.empty_figure("a")).layout.template
    assert [list(p) for p in t.layout.colorscale.sequential] == base.viridis()
    a = charts.empty_figure("a")
    a["layout"]["template"]["layout"]["font"]["size"] = 99
    assert charts.empty_figure("b")["layout"]["template"]["layout"]["font"]["size"] == 12
    assert base.template()["layout"]["font"]["size"] == 12


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
    lay, shapes, notes = _decode_axes_and_lines(d | {"ratio_vs_eth_x72": []})
    assert shapes == [vline | {"xref": "x", "yref": "y domain"}]
    assert [(a["xref"], a["yref"], a["x"], a["y"]) for a in notes] == [
        ("x2 domain", "y2 domain", 0.5, 0.5)
    ]


def test_timeline_figure_shades_the_lead_and_marks_fault_knee_and_now_as_plotly_does():
    tl = timeline(scenario("fail=st3"))
    lay = as_go(charts.timeline_figure(tl, now_s=7200.0)).to_plotly_json()["layout"]
    t = np.array([p["t_s"] for p in tl["series"]] + [e["t_s"] for e in tl["events"]])
    ax = timeline_fig.TimeAxis(t, lead_s=-tl["window_s"][0], end_s=tl["window_s"][1])
    now = float(ax(np.array([7200.0]))[0])
    span = {"type": "line", "y0": 0, "y1": 1, "xref": "x", "yref": "y domain"}
    assert lay["shapes"] == [
        {"type": "rect", "x0": ax.zero - timeline_fig.LEAD_WIDTH, "x1": ax.zero, "y0": 0, "y1": 1}
        | {"xref": "x", "yref": "y domain", "fillcolor": base.COLORS["neutral"]}
        | {"opacity": 0.1, "line": {"width": 0}, "layer": "below"},
        span
        | {"x0": ax.zero, "x1": ax.zero}
        | {"line": {"color": base.COLORS["failed"], "width": 1.5, "dash": "dot"}},
        span
        | {"x0": np.log10(ax.knee), "x1": np.log10(ax.knee)}
        | {"line": {"color": base.MUTED, "width": 1, "dash": "dash"}},
        span | {"x0": now, "x1": now, "line": {"color": "#F0E442", "width": 1, "dash": "dot"}},
    ]
    assert lay["annotations"] == [
        {"text": "now", "font": {"color": "#F0E442", "size": 10}, "showarrow": False}
        | {"x": now, "xanchor": "left", "xref": "x", "y": 1, "yanchor": "top", "yref": "y domain"}
    ]


def test_heatmap_marks_stale_and_drained_planes_above_their_columns_as_before():
    m = np.arange(1.0, 17.0).reshape(4, 4)
    down = np.zeros((4, 4), bool)
    down[0, 0] = down[1, 1] = True  # plane 0 drained on purpose; (1, 1) failed
    planes = ["st1.sw0", "st1.sw1", "st2.sw0", "st2.sw1"]
    raw = charts.heatmap_figure(
        m,
        "x",
        "GB/s",
        ["g0", "g1", "g2", "g3"],
        planes,
        inactive=down,
        stale_planes=np.array([False, False, True, True]),
        drained_planes=np.array([True, False, False, False]),
    )
    fig = check_common(raw)
    assert [t.name for t in fig.data] == [
        "x",
        "INACTIVE",
        "INACTIVE, drained",
        "INACTIVE: 1 links",
        "stale: controller down",
        "drained for an update: 1 links",
    ]
    assert [list(p) for p in fig.data[0].colorscale] == base.viridis()
    assert np.flatnonzero(~np.isnan(np.asarray(fig.data[1].z, float))).tolist() == [5]
    assert np.flatnonzero(~np.isnan(np.asarray(fig.data[2].z, float))).tolist() == [0]

    def mark(i: int, color: str) -> dict:
        return {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": i - 0.5,
            "x1": i + 0.5,
            "y0": 1.0,
            "y1": 1.025,
            "fillcolor": color,
            "line": {"width": 0},
        }

    assert fig.to_plotly_json()["layout"]["shapes"] == [
        {"type": "line", "xref": "x", "yref": "paper", "x0": 1.5, "x1": 1.5, "y0": 0, "y1": 1}
        | {"line": {"color": base.BG, "width": 2}},
        mark(2, base.COLORS["neutral"]),
        mark(3, base.COLORS["neutral"]),
        mark(0, "#0072B2"),
    ]
    assert list(fig.layout.xaxis.tickvals) == [0.5, 2.5]
    assert list(fig.layout.xaxis.ticktext) == ["st1", "st2"]
