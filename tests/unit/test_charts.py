"""The chart figure builders on real model outputs: SVG traces only, unit-bearing axis titles,
data equal to the model's, 'no data' states as empty figures, and small JSON."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard import charts
from model import parse_query
from model import telemetry as tm
from model.decode import REFERENCE_TOKENS_PER_S_PER_USER
from model.faults import build_state
from model.goodput import comparison
from model.ids import link_id
from model.metrics import latency, latency_distribution
from model.throughput import decode_curves
from model.timeline import timeline

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


def check_common(fig: go.Figure) -> None:
    """SVG traces only, the shared template, every axis that shows data titled with a unit."""
    assert isinstance(fig, go.Figure)
    types = {t.type for t in fig.data}
    assert types <= SVG_TYPES, types
    assert not any("gl" in t for t in types)
    lay = fig.layout
    assert lay.template.layout.paper_bgcolor == charts.BG
    assert lay.template.layout.font.color == charts.FG
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


def trace(fig: go.Figure, name: str):
    return next(t for t in fig.data if t.name == name)


# --- decode -----------------------------------------------------------------------------------
@pytest.mark.parametrize("q", SCENARIOS)
def test_decode_figure_draws_the_model_curves(q):
    d = decode_curves(scenario(q))
    fig = charts.decode_figure(d)
    if not d["job_runs"]:  # st3 without rerouting: the job aborts until the repair
        assert charts.is_empty(fig) and "down" in fig.layout.meta["message"]
        return
    check_common(fig)
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
    fig = charts.decode_figure(d)
    assert charts.is_empty(fig) and not fig.data
    assert charts.is_empty(charts.decode_figure({}))


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
    fig = charts.goodput_figure(r, current)
    check_common(fig)
    bars = [t for t in fig.data if t.type == "bar"]
    assert fig.layout.barmode == "stack" and all(b.orientation == "h" for b in bars)
    # Each cause in its fixed colour; the legend names it.
    for b in bars:
        cause = next(c for c, (short, _) in charts.CAUSE_NAMES.items() if short == b.name)
        assert b.marker.color == charts.CAUSE_COLORS[cause]
    # The stack adds up to each row's badput; rows run from most badput (bottom) to least.
    by_label = {charts._short_label(x["label"]): x for x in r}
    total = np.sum([np.asarray(b.x) for b in bars], axis=0)
    want = [sum(by_label[y]["badput_hours_per_rack_year"].values()) for y in bars[0].y]
    assert total == pytest.approx(want)
    assert list(total) == sorted(total, reverse=True)
    assert len(bars[0].y) == len(r)
    marked = [t for t in fig.layout.yaxis.ticktext if t.startswith("<b>▶")]
    assert len(marked) == (label is not None)
    assert len(fig.layout.shapes) == (label is not None)


def test_goodput_figure_without_rows_is_empty():
    assert charts.is_empty(charts.goodput_figure([], None))


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
    fig = charts.latency_figure(cur, healthy)
    check_common(fig)
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
    assert charts.is_empty(charts.latency_figure(d, healthy_of("")))


# --- heatmap ----------------------------------------------------------------------------------
@pytest.mark.parametrize("q", SCENARIOS)
@pytest.mark.parametrize("name", ["state", tm.REPLAY, tm.BER, tm.BANDWIDTH])
def test_heatmap_is_gpus_by_planes_with_inactive_links_apart(q, name):
    s = scenario(q)
    c = tm.counters(s, 3600.0)
    fig = charts.counters_heatmap_figure(c, name)
    if name != "state" and not c.telemetry:  # gb200-nvl72 ships with link telemetry off
        assert charts.is_empty(fig)
        return
    check_common(fig)
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
    ber = charts.counters_heatmap_figure(c, tm.BER)
    assert "log colour" in ber.layout.title.subtitle.text
    ticks = ber.data[0].colorbar.tickvals
    assert (
        all(float(k).is_integer() for k in ticks) and "10<sup>" in ber.data[0].colorbar.ticktext[0]
    )
    rep = charts.counters_heatmap_figure(c, tm.REPLAY)
    assert "log10(1 + n)" in rep.layout.title.subtitle.text
    z = np.asarray(rep.data[0].z, dtype=float)
    assert z[7, 5] == pytest.approx(np.log10(1 + c.heatmap(tm.REPLAY)[7, 5]), rel=1e-6)
    # The stale tray's columns are marked above the map.
    assert sum(s.type == "rect" for s in rep.layout.shapes) == int(c.stale.sum())


def test_heatmap_figure_takes_nan_as_inactive_and_checks_its_labels():
    m = np.ones((4, 2))
    m[1, 1] = np.nan
    fig = charts.heatmap_figure(m, "x", "GB/s", ["g0", "g1", "g2", "g3"], ["st1.sw0", "st1.sw1"])
    assert np.isnan(np.asarray(fig.data[1].z, dtype=float)).sum() == 7
    with pytest.raises(ValueError):
        charts.heatmap_figure(m, "x", "GB/s", ["g0"], ["st1.sw0", "st1.sw1"])


# --- link series ------------------------------------------------------------------------------
FLAKY = "fail=st3&flaky=gpu07-st2.sw1"


@pytest.mark.parametrize("metric", [tm.REPLAY, tm.RECOVERY, tm.BER, tm.BANDWIDTH_GBS, "state"])
def test_link_series_figure_plots_the_series_and_marks_the_failure(metric):
    ser = tm.link_series(scenario(FLAKY), "gpu07-st2.sw1", 0, 7 * 86400, 3600)
    fig = charts.link_series_figure(ser, metric)
    check_common(fig)
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
    fig = charts.link_series_figure(ser, tm.REPLAY)
    check_common(fig)
    assert "telemetry is off" in fig.layout.title.subtitle.text
    assert fig.layout.yaxis.title.text == "link state"
    assert "hours" in fig.layout.xaxis.title.text


def test_link_series_without_samples_is_empty():
    assert charts.is_empty(charts.link_series_figure({"id": "gpu00-st1.sw0", "t_s": []}, "BER"))


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
    fig = charts.timeline_figure(tl)
    check_common(fig)
    ser = tl["series"]
    delivered = trace(fig, "work delivered")
    assert len(delivered.x) == len(delivered.y) == len(ser)
    assert list(delivered.y) == [100 * p["delivered"] for p in ser]
    assert delivered.line.shape == "hv"
    assert np.all(np.diff(np.asarray(delivered.x)) >= 0)
    # Goodput is continuous between the model's points and equals them at the points.
    good = trace(fig, "goodput so far")
    ax = charts.TimeAxis(
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
    ax = charts.TimeAxis(et, lead_s=10.0, end_s=tl["window_s"][1])
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
    fig = charts.timeline_figure(tl)
    assert charts.is_empty(fig) and not fig.data
    assert "fail a part" in fig.layout.annotations[0].text


# --- the empty figure -------------------------------------------------------------------------
def test_empty_figure_shares_the_template_and_shows_the_message():
    fig = charts.empty_figure("nothing to show here", "A title")
    assert charts.is_empty(fig) and not fig.data
    assert fig.layout.template.layout.plot_bgcolor == charts.BG
    assert fig.layout.annotations[0].text == "nothing to show here"
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert not charts.is_empty(charts.decode_figure(decode_curves(scenario("fail=st3"))))


def test_heatmap_shows_links_drained_for_an_update_apart_from_failed_ones():
    c = tm.counters(scenario("update=st2&fail=gpu09"), 3600.0)
    fig = charts.counters_heatmap_figure(c, tm.BANDWIDTH_GBS)
    check_common(fig)
    drained = next(t for t in fig.data if t.name == "INACTIVE, drained")
    failed = next(t for t in fig.data if t.name == "INACTIVE")
    dz = ~np.isnan(np.asarray(drained.z, dtype=float))
    fz = ~np.isnan(np.asarray(failed.z, dtype=float))
    assert np.array_equal(dz | fz, c.state == tm.INACTIVE) and not (dz & fz).any()
    assert dz[:, c.planned].all() and not dz[:, ~c.planned].any()
