"""The telemetry panel's forecast and import box (dashboard/panels/telemetry.py): thin, text
only, the model's numbers."""

import base64
import json
from pathlib import Path

import pytest
from dash import dcc, html

from dashboard import view
from dashboard.panels import fragment
from dashboard.panels import telemetry as panel
from model import telemetry
from model.parts import default_link
from model.scenario import Scenario, rack_fabric

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


def test_a_default_scrape_shows_its_erring_gpu_not_a_healthy_rack():
    """The import box shows the model's sentence for the erring GPU and its confidence, and
    does not call the rack healthy."""
    two = SAMPLE.parent / "dcgm-exporter-gb200-default-two-readings.prom"
    enc = base64.b64encode(two.read_bytes()).decode()
    res = panel.read_file(0, f"data:text/plain;base64,{enc}", None)["result"]
    texts = _texts(res)
    got = panel.import_text(two.read_bytes())
    (x,) = got.erring_gpus
    assert f"{x['summary']}. How sure: {x['confidence']}." in texts
    assert "1,234 replays in 5.0 min (4.11/s)" in x["summary"] and "on ct07" in x["summary"]
    assert not any("a healthy rack" in t for t in texts)


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


def _title(fig: dict) -> str:
    return (fig.get("layout", {}).get("title") or {}).get("text", "")


@pytest.mark.parametrize("fabric", ["vr-nvl72", "gb200-nvl72", "eth-x72", "vr-nvl576"])
def test_every_fabric_opens_its_link_panel_on_a_link_it_has(fabric: str) -> None:
    """Issue 28 (3): a GB200 page opened with 'No series: gpu07-st3.sw2: gb200-nvl72 has no
    chip sw2'; the default link is now each fabric's own (view.link_for)."""
    f = rack_fabric(Scenario(fabric=fabric))
    out = panel.telemetry_charts(f"?fabric={fabric}", None, view.DEFAULTS["link"], 3600.0)
    line = out["series"]
    assert "No series" not in json.dumps(line)
    assert default_link(f) in _title(line), _title(line)  # a domain's: "rack r01: <link>: ..."
    # a link the user chose is kept, and one the fabric lacks is still named as such
    chosen = panel.telemetry_charts(f"?fabric={fabric}", None, "gpu20-st5.sw1", 3600.0)
    assert "gpu20-st5.sw1" in _title(chosen["series"])
    if f.chips_per_tray < 3:
        wrong = panel.telemetry_charts(f"?fabric={fabric}", None, "gpu20-st5.sw2", 3600.0)
        assert "No series" in json.dumps(wrong["series"]) and "sw2" in json.dumps(wrong["series"])


class _Opened:
    triggered_id = None  # the page opening: no input has changed yet


def test_the_fragment_shows_the_fabrics_own_default_link(monkeypatch) -> None:
    monkeypatch.setattr(fragment, "ctx", _Opened())
    out = fragment.on_view(None, None, "?fabric=gb200-nvl72", None, None, None, None, None)
    assert out["link"] == "gpu07-st3.sw1"
    out = fragment.on_view("#link=gpu20-st5.sw1", None, "?fabric=gb200-nvl72", *[None] * 5)
    assert out["link"] == "gpu20-st5.sw1"
    assert fragment.on_view(None, None, "", *[None] * 5)["link"] == "gpu07-st3.sw2"
