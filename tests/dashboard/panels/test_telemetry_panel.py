"""The telemetry panel's forecast and import box (dashboard/panels/telemetry.py): thin, text
only, the model's numbers."""

import base64
from pathlib import Path

from dash import dcc, html

from dashboard.panels import telemetry as panel
from model import telemetry

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "telemetry"
SAMPLE = SAMPLE / "dcgm-exporter-gb200-two-trays.prom"


def _texts(node) -> list[str]:
    out = []
    if isinstance(node, str):
        return [node]
    if isinstance(node, list | tuple):
        for x in node:
            out += _texts(x)
        return out
    children = getattr(node, "children", None)
    return out + (_texts(children) if children is not None else [])


def test_pasted_file_is_read_and_linked():
    res = panel.read_file(1, None, SAMPLE.read_text())["result"]
    links = [x for x in res if isinstance(x, dcc.Link)]
    assert links and links[0].href.startswith("/?fabric=gb200-nvl72&fail=gpu02-st3.sw1")
    assert any("gpu01-st2.sw1" in t for t in _texts(res))


def test_uploaded_file_and_a_refused_one():
    enc = base64.b64encode(SAMPLE.read_bytes()).decode()
    res = panel.read_file(0, f"data:text/plain;base64,{enc}", None)["result"]
    assert any(isinstance(x, dcc.Link) for x in res)
    bad = panel.read_file(1, None, "<b>not a scrape</b>")["result"]
    assert isinstance(bad, html.P) and bad.children.startswith("Not imported: line 1:")
    assert "<b>" in bad.children  # shown as text, never parsed as HTML
    torn = panel.read_file(0, "data:text/plain;base64,@@@", None)["result"]
    assert torn.children.startswith("The upload")


def test_the_worked_example_is_the_models_forecast():
    text = panel._worked_example()
    f = panel._case_forecast()
    assert f["action"] == "drain now" and "drain now" in text
    assert f"{f['recoveries']} recoveries" in text


def test_the_charts_carry_the_links_forecast():
    out = panel.telemetry_charts(
        "?flaky=gpu07-st3.sw2", telemetry.RECOVERY, "gpu07-st3.sw2", 3 * 86400.0
    )
    assert any("drain now" in t for t in _texts(out["forecast"]))


def test_nothing_is_drawn_until_the_page_below_is_seen():
    """The charts follow the URL (not READY, after the cards), and answer nothing until the
    page below the first screen has been seen: a press sets their link at once."""
    import pytest
    from dash.exceptions import PreventUpdate

    with pytest.raises(PreventUpdate):
        panel.telemetry_charts("?fail=st3", None, "gpu07-st3.sw2.c0", None, None, seen=None)
    drawn = panel.telemetry_charts("", None, "gpu07-st3.sw2.c0", None, None, seen=True)
    assert drawn["heatmap"]["data"] and drawn["series"]["data"]  # the healthy rack's: ''
