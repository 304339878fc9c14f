"""The rack panel's hover line: the part's own state, numbers for people, the hint again."""

from dashboard.figures import rack as rf
from dashboard.panels import rack


def _hover_at(cid: str) -> dict:
    curve = rf.TRACES["cable_hits"]
    n = rf.point_ids("vr-nvl72")[curve].index(cid)
    return {"points": [{"curveNumber": curve, "pointNumber": n}]}


def _text(children) -> str:
    return "".join(c if isinstance(c, str) else str(c.children) for c in children)


def test_a_cable_of_a_failed_tray_reads_failed_not_active():
    out = rack.hover("?fail=st3", _hover_at("gpu07-st3.sw2.c0"), None)["details"]
    text = _text(out)
    assert text.startswith("gpu07-st3.sw2.c0 · failed") and "ACTIVE" not in text
    assert text.endswith("BER n/a (down)")


def test_numbers_for_people_and_the_hint_when_nothing_is_hovered():
    assert rack.ber_text(2.95e-18) == "3e-18" and rack.ber_text(0.0) == "0"
    assert rack.ber_text(None) == "n/a" and rack.ber_text(float("nan")) == "n/a"
    assert rack.hover("?fail=st3", None, None)["details"] == rack.HOVER_HINT


def test_the_l2_tier_answers_nothing_on_a_single_rack_once_hidden():
    """The L2 callback follows the URL beside the cards (a press's round trip less); on a
    single rack whose L2 chart is hidden already it sends nothing, so a press redraws none
    of it; leaving a domain hides it, and a domain draws it."""
    import pytest
    from dash.exceptions import PreventUpdate

    with pytest.raises(PreventUpdate):
        rack.l2_chart("?fail=st3", "", {"display": "none"})
    back = rack.l2_chart("?fail=st3", "", {"display": "block", "height": "520px"})
    assert back["style"] == {"display": "none"} and back["picker"] == {"display": "none"}
    domain = rack.l2_chart("?fabric=vr-nvl576", "", {"display": "none"})
    assert domain["style"]["display"] == "block" and domain["figure"]["data"]


def test_the_rack_and_its_l2_tier_are_one_answer():
    """rack_and_l2: the drawing's answer and the L2 tier's, by name (l2_*), in one response;
    on a single rack with the tier hidden, the tier's outputs send nothing, and a press's
    scenario still redraws the rack; nothing at all when neither has anything to send."""
    import pytest
    from dash import no_update
    from dash.exceptions import PreventUpdate

    hidden = {"display": "none"}
    out = rack.rack_and_l2("?fail=st3", None, "", None, None, hidden)
    assert set(out) == set(rack.RACK_OUTPUTS) | {f"l2_{k}" for k in rack.L2_OUTPUTS}
    assert all(out[f"l2_{k}"] is no_update for k in rack.L2_OUTPUTS)
    assert out["figure"] is not no_update and out["drawn"] == "vr-nvl72"
    single = rack.rack("?fail=st3", None, "", None, None)
    assert {k: single[k] for k in rack.RACK_OUTPUTS if k != "figure"} == {
        k: out[k] for k in rack.RACK_OUTPUTS if k != "figure"
    }
    domain = rack.rack_and_l2("?fabric=vr-nvl576", None, "", None, None, hidden)
    assert domain["l2_style"]["display"] == "block" and domain["l2_figure"]["data"]
    with pytest.raises(PreventUpdate):  # what it would draw is drawn, the tier hidden
        rack.rack_and_l2("?fail=st3", None, "", out["drawn"], out["view"], hidden)


def _applied(figure: dict, patch) -> dict:
    """A figure (as JSON sends it) with a dash.Patch's assignments made, as the browser makes
    them."""
    import json

    from plotly.utils import PlotlyJSONEncoder

    out = json.loads(json.dumps(figure, cls=PlotlyJSONEncoder))
    ops = json.loads(json.dumps(patch.to_plotly_json(), cls=PlotlyJSONEncoder))["operations"]
    for op in ops:
        assert op["operation"] == "Assign", op
        *path, last = op["location"]
        target = out
        for key in path:
            target = target[key]
        target[last] = op["params"]["value"]
    return out


def test_a_press_patch_makes_the_drawn_figure_the_fresh_one_sending_only_what_changed():
    """The rack's and the map's Patch for a press, applied to what is drawn, gives the labels
    and cells a fresh draw of the new scenario has; only the changed ones travel (a GPU's
    cables, not 5,184 labels)."""
    import json

    from plotly.utils import PlotlyJSONEncoder

    first = rack.rack("?fail=st3", None, "", None, None)
    press = rack.rack("?fail=st3,gpu07", None, "", first["drawn"], first["view"])
    fresh = rack.rack("?fail=st3,gpu07", None, "", None, None)
    for key in ("figure", "map"):
        got, want = _applied(first[key], press[key]), _applied(fresh[key], type(press[key])())
        assert [t.get("hovertext") for t in got["data"]] == [
            t.get("hovertext") for t in want["data"]
        ]
        assert [(t.get("z"), t.get("text")) for t in got["data"]] == [
            (t.get("z"), t.get("text")) for t in want["data"]
        ]
    sent = len(json.dumps(press["figure"].to_plotly_json(), cls=PlotlyJSONEncoder))
    whole = len(json.dumps(fresh["figure"], cls=PlotlyJSONEncoder))  # ~560 KB with labels
    assert first["view"] != press["view"] and sent < 40_000 < whole // 10
