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
    from dashboard.panels.common import NOT_YET

    fig = costs.timeline_chart(search="?fabric=vr-nvl576&fail=r02.st3", clock=None)["figure"]
    assert fig["data"] and NOT_YET not in str(fig["layout"])


def test_what_a_domain_does_not_model_is_said_in_one_place() -> None:
    """The cost, timeline and telemetry callbacks never branch on a domain: single_rack does,
    and every output on a domain carries the one message."""
    from dashboard.panels import costs
    from dashboard.panels import telemetry as telemetry_panel
    from dashboard.panels.common import NOT_YET

    def says_not_yet(out: dict) -> bool:
        texts = [v if isinstance(v, str) else str(v.get("layout", {})) for v in out.values()]
        return all(NOT_YET in t or NOT_YET.replace("\n", "<br>") in t for t in texts)

    for fn, extra in (
        (costs.cost_charts, {}),
        (telemetry_panel.telemetry_charts, {"counter": None, "link": None, "clock_s": None}),
    ):
        assert says_not_yet(fn(search="?fabric=vr-nvl576", **extra)), fn.__name__
        assert not says_not_yet(fn(search="?fail=st3", **extra)), fn.__name__


def test_no_chart_config_uploads_anywhere():
    from dashboard.figures import rack as rack_figure
    from dashboard.panels.common import graph_config

    for cfg in (graph_config(), rack_figure.graph_config()):
        assert cfg["showSendToCloud"] is False and cfg["plotlyServerURL"] == ""
        assert {"sendChartToCloud", "sendDataToCloud"} <= set(cfg["modeBarButtonsToRemove"])
