"""Callbacks: thin. Read the URL, call the model (memoised), build figures, write the URL.

One callback owns the scenario: every click and control becomes a new URL, and the controls
follow the URL. Every other callback only reads the URL, so the view is always the link.
"""

from __future__ import annotations

import csv
import io
import json

from dash import Dash, Input, Output, State, ctx, dcc, html, no_update

from dashboard import ids, state, view
from dashboard.figures import charts
from dashboard.figures import rack as rack_figure
from dashboard.figures.claims import VENDOR_DECODE_RATIO, where_ratio_passes
from dashboard.layout import CLOCK_START_S, CLOCK_STEP_S
from dashboard.panels.cards import DOMAIN_COUNT_ROWS, cards, counts_table, domain_cards
from dashboard.panels.questions import answers
from dashboard.web import results
from model import telemetry
from model.errors import ScenarioError
from model.scenario import parse_query


def _features(s) -> list[str]:
    return sorted(s.features)


def clicked_id(s, click, rack: str | None) -> str | None:
    """The component a click on the rack figure names: on a multi-rack domain, the part of
    the rack on show (r03.gpu07-...)."""
    if not s.multirack:
        return rack_figure.click_to_id(s.fabric, click)
    local = rack_figure.click_to_id(state.DOMAINS[s.fabric].rack.key, click)
    return f"{rack or 'r01'}.{local}" if local else None


def on_change(
    search,
    click,
    l2_click,
    _fail,
    _repair,
    preset_value,
    fabric,
    workload,
    features,
    issu,
    typed,
    mode,
    rack,
):
    """Apply whatever changed to the scenario; the URL and the controls follow."""
    parsed = state.current(search)
    s = parsed.scenario
    trig = ctx.triggered_id
    msg = ""
    try:
        if trig in (ids.RACK, ids.L2) and (click or l2_click):
            if trig == ids.RACK:
                cid = clicked_id(s, click, rack)
            else:
                cid = charts.l2_click_to_id(s.fabric, l2_click)
            if cid is None:
                return (no_update,) * 8
            s, msg = state.toggle(s, cid, mode or "fail")
        elif trig == ids.FAIL_BTN:
            tok = (typed or "").strip()
            if not tok:
                raise ScenarioError("type a component ID first, e.g. gpu07-st3.sw2.c0", "")
            s, msg = state.toggle(s, tok, mode or "fail")
        elif trig == ids.REPAIR_ALL:
            s, msg = state.repair_all(s), "everything repaired"
        elif trig == ids.PRESET and preset_value:
            s = state.preset(preset_value)
            msg = f"preset: {state.PRESETS[preset_value][0]}"
        elif trig == ids.FABRIC and fabric and fabric != s.fabric:
            s, dropped = state.set_fabric(s, fabric)
            msg = "; ".join([f"fabric: {fabric}", *dropped])
        elif trig == ids.WORKLOAD:
            s = state.set_workload(s, workload)
        elif trig == ids.FEATURES:
            s = state.set_features(s, features)
        elif trig == ids.ISSU:
            s = state.set_update(s, issu)
        else:  # the URL itself: a link opened, or back/forward
            return (
                no_update,
                s.fabric,
                s.workload,
                _features(s),
                (s.update[0] if s.update else ""),
                None,
                "",
                no_update,
            )
    except ScenarioError as e:
        return no_update, no_update, no_update, no_update, no_update, None, e.message, ""
    return (
        state.url_of(s),
        s.fabric,
        s.workload,
        _features(s),
        (s.update[0] if s.update else ""),
        None,
        msg,
        "" if trig == ids.FAIL_BTN else no_update,
    )


def on_view(hash_, click, search, counter, link, other, mode, rack):
    """The view options (counter, link, compare, click mode, rack on show) live in the URL's
    #fragment, so a shared link opens the same charts; a cable or link click selects its
    series."""
    trig = ctx.triggered_id
    if trig == ids.URL or trig is None:
        v, problems = view.parse(hash_)
        msg = "; ".join(f"Dropped from the link: {p}" for p in problems)
        return no_update, v["counter"], v["link"], v["compare"], v["mode"], v["rack"], msg
    if trig == ids.RACK:
        s = state.current(search).scenario
        cid = clicked_id(s, click, rack)
        if s.multirack or not cid or cid.count("-") != 1:
            return (no_update,) * 7
        link = cid
    v = {"counter": counter, "link": link, "compare": other, "mode": mode, "rack": rack}
    return view.to_hash(v), no_update, link, no_update, no_update, no_update, ""


def summary(search):
    """Messages, cards, counts, events and the four questions for the URL's scenario."""
    parsed = state.current(search)
    r = results.result(parsed.scenario)
    msgs = [html.Div(f"Dropped from the link: {e}", className="msg error") for e in parsed.errors]
    if parsed.scenario.multirack:
        msgs += [html.Div(n, className="msg notice") for n in parsed.notices]
        scen = f"{r['fabric']['name']} · scenario: {r['scenario']['query']}"
        events = [html.Li(f"{cid} failed") for cid in r["scenario"]["fail"]] or [
            html.Li("nothing failed")
        ]
        qa = [
            html.P(
                "The readers' questions are answered for single racks so far: "
                "this domain's model is its data plane (docs/MULTIRACK.md)."
            )
        ]
        return (
            msgs,
            scen,
            domain_cards(r),
            counts_table(r, DOMAIN_COUNT_ROWS),
            events,
            qa,
            search or "",
        )
    msgs += [html.Div(n, className="msg notice") for n in parsed.notices]
    q = r["scenario"]["query"] or "healthy rack, all defaults"
    scen = f"{r['fabric']['name']} · scenario: {q}"
    events = [html.Li(e) for e in r["events"]]
    qa = [
        html.Details([html.Summary(question), html.P(answer)], open=True)
        for question, answer in answers(r)
    ]
    # The rack and the charts start from READY, after this: the numbers a click is for come
    # back first. (Redrawing the 5,184-cable spine holds the browser's main thread ~0.3 s.)
    return msgs, scen, cards(r), counts_table(r), events, qa, search or ""


def rack(search, rack_shown, drawn_fabric):
    """The whole base figure when the fabric changes; otherwise only a Patch of overlays.
    On a multi-rack domain, the rack on show, drawn as the NVL72 it is."""
    s = state.current(search).scenario
    if s.multirack:
        n = int((rack_shown or "r01")[1:])
        s = state.rack_scenario(s, min(max(n, 1), state.DOMAINS[s.fabric].racks))
    if drawn_fabric != s.fabric:
        return rack_figure.full_figure(s), s.fabric
    return rack_figure.overlay_patch(s), no_update


def l2_chart(search):
    """The L2 tier of a multi-rack domain (clickable), or nothing on a single rack."""
    s = state.current(search).scenario
    visible = {"display": "block"} if s.multirack else {"display": "none"}
    if not s.multirack:  # hidden: nothing to draw (a figure here costs the browser a draw)
        return no_update, visible, visible
    return charts.l2_figure(s), visible, visible


def versus(d: dict) -> str:
    """Where the modelled NVLink-vs-Ethernet ratio runs, and where the vendor's figure falls."""
    rng = d["ratio_20_200"]
    if rng is None:
        return "The job is down in this scenario: no decode curve to compare."
    at = where_ratio_passes(d["ratio_vs_eth_x72"])
    claim = (
        f"NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' (FACTS.md §4) falls at about {at:.0f} "
        "tokens/s per user on this curve"
        if at
        else f"the ratio never reaches NVIDIA's 'up to {VENDOR_DECODE_RATIO:g}x' here"
    )
    return (
        f"{d['model']}: this scenario against eth-x72 at the same per-GPU bandwidth. Between 20 "
        f"and 200 tokens/s per user (where both reach) the throughput ratio runs from "
        f"{rng['min']:.2f}x to {rng['max']:.2f}x; {claim}. The fabrics tie where a layer's "
        "compute outlasts its all-to-all; Ethernet's 3x latency caps its interactivity."
    )


NOT_YET = "Not modelled on multi-rack domains yet: their model is the data plane so far."


def cost_charts(search):
    """Decode curve, goodput comparison and latency for the URL's scenario."""
    s = state.current(search).scenario
    if s.multirack:
        e = charts.empty_figure(NOT_YET)
        return e, NOT_YET, e, e
    d = results.decode(s)
    rows = results.comparison()
    label = charts.comparison_label(rows, s)
    healthy = state.repair_all(s)
    dists = [results.latency(x) for x in (s, healthy, parse_query("fabric=eth-x72").scenario)]
    return (
        # the curves, not the scenario's name, decide the figure: identical curves share it
        results.figure(
            "decode",
            {k: v for k, v in d.items() if k != "scenario"},
            lambda: charts.decode_figure(d),
        ),
        versus(d),
        results.figure("goodput", [rows, label], lambda: charts.goodput_figure(rows, label)),
        results.figure("latency", dists, lambda: charts.latency_figure(*dists)),
    )


def timeline_chart(search, clock):
    """The newest fault's story, with the simulated clock as 'now' (the fault at its start)."""
    s = state.current(search).scenario
    if s.multirack:
        return charts.empty_figure(NOT_YET)
    tl = results.timeline(s)
    data = tl if tl.get("fault") else None
    now = float(clock or CLOCK_START_S) - CLOCK_START_S
    window = (data or {}).get("window_s")
    if not window or not window[0] <= now <= window[1]:
        now = None  # no 'now' line to draw: one figure for every tick
    return results.figure("timeline", [data, now], lambda: charts.timeline_figure(data, now_s=now))


def telemetry_charts(search, counter, link, clock):
    """The GPU-by-plane heatmap of one counter at the simulated clock, and one link's series."""
    s = state.current(search).scenario
    t = float(clock or CLOCK_START_S) % telemetry.MAX_T_S
    if s.multirack:
        e = charts.empty_figure(NOT_YET)
        return e, e, f"simulated clock: {t / 3600:.1f} h"
    if counter not in (*telemetry.METRICS, "state"):
        counter = telemetry.REPLAY
    link = (link or "").strip()
    # Keyed on what the figures depend on: a room watching one link at one clock shares them.
    heat, line = results.figure(
        "telemetry", [s.key(), counter, link, t], lambda: _telemetry_figures(s, counter, link, t)
    )
    return heat, line, f"simulated clock: {t / 3600:.1f} h since the counters were cleared"


def _telemetry_figures(s, counter: str, link: str, t: float) -> list:
    heat = charts.counters_heatmap_figure(telemetry.counters(s, t), counter)
    try:
        series = telemetry.link_series(s, link, 0.0, t, max(60.0, t / 240))
        line = charts.link_series_figure(series, counter)
    except (ScenarioError, ValueError) as e:
        line = charts.empty_figure(f"No series: {e}")
    return [heat, line]


def tick(_n, clock):
    return float(clock or CLOCK_START_S) + CLOCK_STEP_S


def pause(n):
    paused = bool(n and n % 2)
    return paused, ("Resume clock" if paused else "Pause clock")


def hover(search, hover_data, clock):
    """The hovered cable's link, GPU, chip and its telemetry now."""
    s = state.current(search).scenario
    cid = clicked_id(s, hover_data, None)
    if s.multirack and cid:
        return [html.B(cid.split(".", 1)[1]), html.Span(" in the rack on show; click to fail it")]
    if not cid:
        return "Hover a cable or a part to read it; click it to fail or repair it."
    parts = [html.B(cid)]
    if cid.count("-") == 1:
        t = float(clock or CLOCK_START_S)
        try:
            ser = telemetry.link_series(s, cid, t, t, 1.0)
        except (ScenarioError, ValueError):
            ser = None
        if ser:
            state_name = ser["state"][-1]
            parts.append(html.Span(f" · state {state_name}"))
            for m in (telemetry.REPLAY, telemetry.RECOVERY, telemetry.BER):
                if m in ser and ser[m] is not None:
                    v = ser[m][-1]
                    parts.append(html.Span(f" · {m} {v if v is not None else 'n/a'}"))
    return parts


def compare(search, other):
    """Key figures of this scenario and another, side by side."""
    a = state.current(search).scenario
    try:
        b = parse_query(other or "", strict=True).scenario
    except ScenarioError as e:
        return html.Div(f"Compare: {e.message}", className="msg error")
    ra, rb = results.result(a), results.result(b)
    rows = [
        ("fabric", lambda r: r["fabric"]["name"]),
        ("worst GPU, TB/s", lambda r: f"{r['bandwidth']['per_gpu_tbs']['min']:g}"),
        ("rack, TB/s", lambda r: f"{r['bandwidth']['aggregate_tbs']:g}"),
        ("in-network compute, TFLOPS", lambda r: f"{r['sharp_tflops']:g}"),
        ("latency p50 / p99, us", lambda r: f"{r['latency_us']['p50']} / {r['latency_us']['p99']}"),
        ("decode, tokens/s per GPU", lambda r: f"{r['decode']['tokens_per_s_per_gpu']:,}"),
        ("training step, s", lambda r: f"{r['training']['step_time_s']}"),
        ("goodput, rack-year", lambda r: f"{r['goodput']['fraction']:.2%}"),
        ("partition", lambda r: r["partition"]["state"]),
        ("job", lambda r: r["job"]["state"]),
    ]

    def cell(fn, r) -> str:
        try:
            return fn(r)
        except (KeyError, TypeError):  # a multi-rack domain: its data plane only so far
            return "n/a (multi-rack)"

    head = html.Tr([html.Th(""), html.Th(ra["scenario"]["key"]), html.Th(rb["scenario"]["key"])])
    body = [html.Tr([html.Td(n), html.Td(cell(fn, ra)), html.Td(cell(fn, rb))]) for n, fn in rows]
    return html.Table([head, *body], className="compare-table")


def export(_j, _c, search):
    """The scenario's results as JSON or CSV (a download; nothing is stored)."""
    s = state.current(search).scenario
    r = results.result(s)
    name = "fabric-twin-" + (s.key().replace("&", "_").replace("=", "-").replace(",", "+"))[:120]
    if ctx.triggered_id == ids.EXPORT_JSON:
        return dcc.send_string(json.dumps(r, indent=2, sort_keys=True), f"{name}.json")
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["key", "value"])
    for k, v in _flatten(r):
        w.writerow([k, v])
    return dcc.send_string(buf.getvalue(), f"{name}.csv")


def _flatten(obj, prefix: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list) and obj and isinstance(obj[0], dict | list):
        for i, v in enumerate(obj):
            yield from _flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, obj if not isinstance(obj, list) else ";".join(map(str, obj))


def register(app: Dash) -> None:
    app.callback(
        Output(ids.URL, "search"),
        Output(ids.FABRIC, "value"),
        Output(ids.WORKLOAD, "value"),
        Output(ids.FEATURES, "value"),
        Output(ids.ISSU, "value"),
        Output(ids.PRESET, "value"),
        Output(ids.ACTION, "children"),
        Output(ids.ID_INPUT, "value"),
        Input(ids.URL, "search"),
        Input(ids.RACK, "clickData"),
        Input(ids.L2, "clickData"),
        Input(ids.FAIL_BTN, "n_clicks"),
        Input(ids.REPAIR_ALL, "n_clicks"),
        Input(ids.PRESET, "value"),
        Input(ids.FABRIC, "value"),
        Input(ids.WORKLOAD, "value"),
        Input(ids.FEATURES, "value"),
        Input(ids.ISSU, "value"),
        State(ids.ID_INPUT, "value"),
        State(ids.CLICK_MODE, "value"),
        State(ids.RACK_SELECT, "value"),
    )(on_change)
    app.callback(
        Output(ids.URL, "hash"),
        Output(ids.COUNTER, "value"),
        Output(ids.LINK_INPUT, "value"),
        Output(ids.COMPARE_INPUT, "value"),
        Output(ids.CLICK_MODE, "value"),
        Output(ids.RACK_SELECT, "value"),
        Output(ids.VIEW_MESSAGE, "children"),
        Input(ids.URL, "hash"),
        Input(ids.RACK, "clickData"),
        State(ids.URL, "search"),
        Input(ids.COUNTER, "value"),
        Input(ids.LINK_INPUT, "value"),
        Input(ids.COMPARE_INPUT, "value"),
        Input(ids.CLICK_MODE, "value"),
        Input(ids.RACK_SELECT, "value"),
    )(on_view)
    app.callback(
        Output(ids.MESSAGES, "children"),
        Output(ids.SCENARIO, "children"),
        Output(ids.CARDS, "children"),
        Output(ids.COUNTS, "children"),
        Output(ids.EVENTS, "children"),
        Output(ids.QUESTIONS, "children"),
        Output(ids.READY, "data"),
        Input(ids.URL, "search"),
    )(summary)
    app.callback(
        Output(ids.RACK, "figure"),
        Output(ids.RACK_FABRIC, "data"),
        Input(ids.READY, "data"),
        Input(ids.RACK_SELECT, "value"),
        State(ids.RACK_FABRIC, "data"),
    )(rack)
    app.callback(
        Output(ids.L2, "figure"),
        Output(ids.L2, "style"),
        Output(ids.RACK_SELECT + "-box", "style"),
        Input(ids.READY, "data"),
    )(l2_chart)
    app.callback(
        Output(ids.DECODE, "figure"),
        Output(ids.VERSUS, "children"),
        Output(ids.GOODPUT, "figure"),
        Output(ids.LATENCY, "figure"),
        Input(ids.READY, "data"),
    )(cost_charts)
    app.callback(
        Output(ids.TIMELINE, "figure"), Input(ids.READY, "data"), Input(ids.CLOCK, "data")
    )(timeline_chart)
    app.callback(
        Output(ids.HEATMAP, "figure"),
        Output(ids.SERIES, "figure"),
        Output(ids.CLOCK_TEXT, "children"),
        Input(ids.READY, "data"),
        Input(ids.COUNTER, "value"),
        Input(ids.LINK_INPUT, "value"),
        Input(ids.CLOCK, "data"),
    )(telemetry_charts)
    app.callback(
        Output(ids.CLOCK, "data"), Input(ids.TICK, "n_intervals"), State(ids.CLOCK, "data")
    )(tick)
    app.callback(
        Output(ids.TICK, "disabled"), Output(ids.PAUSE, "children"), Input(ids.PAUSE, "n_clicks")
    )(pause)
    app.callback(
        Output(ids.HOVER, "children"),
        Input(ids.URL, "search"),
        Input(ids.RACK, "hoverData"),
        State(ids.CLOCK, "data"),
    )(hover)
    app.callback(
        Output(ids.COMPARE, "children"), Input(ids.READY, "data"), Input(ids.COMPARE_INPUT, "value")
    )(compare)
    app.callback(
        Output(ids.DOWNLOAD, "data"),
        Input(ids.EXPORT_JSON, "n_clicks"),
        Input(ids.EXPORT_CSV, "n_clicks"),
        State(ids.URL, "search"),
        prevent_initial_call=True,
    )(export)
