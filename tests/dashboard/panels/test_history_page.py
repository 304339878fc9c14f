"""The /fleet page's link and answer (issue 30), without a browser: the controls and the
link in step, one reader for the page and the API, a bad value named, the words at t."""

from __future__ import annotations

import pytest

from dashboard.infra.history_query import read_history
from dashboard.panels.history_answer import at_time, page_answer, rack_events
from dashboard.panels.history_page import link_of, link_values
from model.errors import ScenarioError


def test_the_link_keeps_its_scenario_and_writes_only_what_is_not_a_default():
    search = "?fail=st3&racks=40&against=off%3Dreroute"
    v = link_values(search)
    assert v == {
        "racks": "40",
        "days": "365",
        "seed": "1",
        "spares": "0",
        "policy": "",
        "against": "off=reroute",
    }
    assert link_of(search, v) == "?fail=st3&racks=40&against=off%3Dreroute"
    assert link_of(search, v | {"days": "30", "against": ""}) == "?fail=st3&racks=40&days=30"
    assert link_of("", link_values("")) == ""


@pytest.mark.parametrize(
    "query,token",
    [
        ("racks=0", "racks"),
        ("racks=2001", "racks"),
        ("days=0.5", "days"),
        ("seed=-1", "seed"),
        ("spares=2", "spares"),
        ("policy=often", "policy"),
        ("against=off%3Dnope", "against"),
        ("fail=zz9", "zz9"),
        ("racks=3&racks=4", "racks"),
    ],
)
def test_a_bad_value_is_named(query, token):
    with pytest.raises(ScenarioError) as e:
        read_history(query)
    assert e.value.token == token


def test_the_page_and_the_api_answer_one_link_alike(client):
    link = "racks=30&days=60&seed=4&spares=1&against=fabric%3Dgb200-nvl72"
    api = client.get("/api/v1/history?" + link).get_json()
    with client.application.test_request_context("/"):
        out = page_answer("?" + link, 365)
        now, _, _ = at_time("?" + link, 365)
    error, summary, links, store = (out[k] for k in ("error", "summary", "links", "data"))
    assert error == ""
    assert f"kept {api['history']['fraction']:.1%} goodput" in summary
    assert f"{api['history']['link_stops']['link_faults']} single links" in links
    assert store["a"] == api["history"]["rack_states"]
    assert store["b"] == api["against"]["rack_states"]
    assert "Against fabric=gb200-nvl72" in now


def test_a_bad_link_gives_the_message_not_an_error(client):
    with client.application.test_request_context("/"):
        out = page_answer("?racks=0", 0)
    assert (
        out["error"]
        == "This link cannot be played. racks: racks '0' must be a number from 1 to 2000"
    )


def test_a_picked_rack_lists_its_own_events(client):
    link = "?racks=20&days=90&seed=2"
    with client.application.test_request_context("/"):
        from dashboard.panels.history_answer import answer

        _, h, _, _ = answer(link)
        rack = h["events"]["rack"][0]
        out = rack_events(link, {"points": [{"customdata": rack, "curveNumber": 0}]})
    mine = sum(1 for r in h["events"]["rack"] if r == rack)
    assert out[0].children.startswith(f"Rack {rack} under fabric=vr-nvl72: {mine} event")
    assert len(out[1].children) == min(mine, 40)


def test_the_controls_and_the_link_keep_in_step():
    from dashboard.panels.history_page import in_step

    shown = in_step("?fail=st3&racks=40&spares=1", {}, from_link=True)
    assert shown["racks"] == "40" and shown["spares"] == ["1"] and shown["against"] == ""
    given = {
        "racks": "40",
        "days": "30",
        "seed": "1",
        "policy": "",
        "spares": [],
        "against": "fabric=gb200-nvl72",
    }
    out = in_step("?fail=st3&racks=40&spares=1", given, from_link=False)
    assert out["search"] == "?fail=st3&racks=40&days=30&against=fabric%3Dgb200-nvl72"
    assert out["spares"] == [] and out["days"] == "30"


def test_the_page_preloads_plotly_from_where_dash_loads_it(client):
    """plotly.js is fetched from the page's first bytes (a preload in its head), at the very
    URL Dash's renderer later loads it from (window._dashPlotlyJSURL, served locally), so
    the graph's loader runs it from the cache: on a first visit the drawing no longer waits
    after the answer for plotly.js to download (bench/README.md, fleet)."""
    html = client.get("/fleet?racks=16").get_data(as_text=True)
    url = "/fleet/_dash-component-suites/plotly/package_data/plotly.min.js"
    head = html[: html.index("</head>")]
    assert f'<link rel="preload" as="script" href="{url}">' in head
    r = client.get(url)
    assert r.status_code == 200 and b"plotly" in r.get_data()[:2000].lower()
