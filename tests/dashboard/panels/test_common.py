"""What every panel shares: outputs by name."""

from __future__ import annotations

import pytest
from dash import no_update

from dashboard.panels import common


class TestChanges:
    def test_names_what_changed_and_leaves_the_rest(self):
        out = common.changes(("a", "b", "c"), b=2)
        assert list(out) == ["a", "b", "c"]
        assert out["b"] == 2 and out["a"] is no_update and out["c"] is no_update

    def test_refuses_an_output_that_does_not_exist(self):
        with pytest.raises(KeyError, match="typo"):
            common.changes(("a",), typo=1)


def test_a_domains_timeline_is_drawn() -> None:
    """The newest fault's timeline answers on a domain (model/multirack): drawn, not refused."""
    from dashboard.panels import costs

    fig = costs.timeline_chart(search="?fabric=vr-nvl576&fail=r02.st3", clock=None)["figure"]
    assert fig["data"] and "Not modelled" not in str(fig["layout"])


def test_every_chart_panel_draws_a_domain() -> None:
    """Issue 16: the cost charts, the telemetry charts (of the rack on show) and what each
    feature buys answer on a domain with the domain's own numbers, nothing refused."""
    from dashboard.panels import buys, costs
    from dashboard.panels import telemetry as telemetry_panel

    q = "?fabric=vr-nvl576&fail=r02.st3&flaky=r02.gpu07-st1.sw2"
    out = costs.cost_charts(search=q)
    for name in ("decode", "breakdown", "goodput", "latency"):
        assert out[name]["data"], name
    assert "vr-nvl576-year" in str(out["goodput"]["layout"])  # the domain's own features
    assert "vr-nvl72 (the same Rubin GPUs as single NVL72 racks)" in out["versus"]
    tel = telemetry_panel.telemetry_charts(q, None, "r02.gpu07-st1.sw2", None, "r02")
    assert tel["heatmap"]["data"] and tel["series"]["data"]
    assert tel["heatmap"]["layout"]["title"]["text"].startswith("rack r02:")
    assert "gpu07-st1.sw2" in str(tel["forecast"])  # the flaky link's forecast, in r02
    lost = telemetry_panel.telemetry_charts("?fabric=vr-nvl576&fail=r03", None, "", None, "r03")
    assert "r03 is lost" in str(lost["heatmap"]["layout"])
    table = buys.table(q, 1, ["spares"], "scenario", [], "", 8.5)
    assert "vr-nvl576 with all seven features" in str(table["table"])
    assert "vr-nvl576 domain" in str(table["policy"])


def test_no_chart_config_uploads_anywhere():
    from dashboard.figures import rack as rack_figure
    from dashboard.panels.common import graph_config

    for cfg in (graph_config(), rack_figure.graph_config()):
        assert cfg["showSendToCloud"] is False and cfg["plotlyServerURL"] == ""
        assert {"sendChartToCloud", "sendDataToCloud"} <= set(cfg["modeBarButtonsToRemove"])


def test_the_gain_over_ethernet_leads_the_decode_words_on_a_line_of_its_own() -> None:
    """Issue 28 (6): the decode gain over Ethernet and its interactivity in one sentence (the
    model's vendor_claim), first and set apart; the rest of the comparison after it."""
    from dash import html

    from dashboard.figures.claims import with_claim
    from dashboard.infra.results import decode
    from dashboard.panels import costs
    from model import parse_query

    s = parse_query("at=100").scenario
    d = with_claim(s, decode(s))
    kids = costs.cost_charts(search="?at=100")["versus"]
    assert isinstance(kids[0], html.Strong) and kids[0].children == d["vendor_claim"]["sentence"]
    assert "at 100 tokens/s per user" in kids[0].children
    assert " ".join([kids[0].children, kids[2]]) == costs.versus(d)
