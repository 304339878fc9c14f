"""The scenario's owner: every control and click becomes a URL; the #fragment holds the view."""

from __future__ import annotations

import pytest
from dash import no_update

from dashboard import ids, view
from dashboard.panels import fragment, scenario


class Ctx:
    def __init__(self, triggered_id: str | None) -> None:
        self.triggered_id = triggered_id
        prop = "data" if triggered_id == ids.RACK_PRESS else "value"
        self.triggered_prop_ids = {f"{triggered_id}.{prop}": triggered_id} if triggered_id else {}


def on_change(monkeypatch, trig: str | None, search: str = "", **kw) -> dict:
    monkeypatch.setattr(scenario, "ctx", Ctx(trig))
    monkeypatch.setattr(fragment, "ctx", Ctx(trig))  # the #fragment's owner reads it too
    args = dict.fromkeys(
        (
            "click",
            "l2_click",
            "fail_clicks",
            "submits",
            "repair_clicks",
            "preset",
            "fabric",
            "workload",
            "at",
            "eth",
        )
        + ("features", "update", "typed", "mode", "rack")
    )
    args.update(kw)
    out = scenario.on_change(search, **args)
    assert tuple(out) == scenario.CHANGE_OUTPUTS
    return out


class TestScenario:
    def test_a_link_opened_sets_the_controls_and_keeps_the_url(self, monkeypatch):
        out = on_change(monkeypatch, ids.URL, "?fabric=gb200-nvl72&update=st3")
        assert out["search"] is no_update and out["typed"] is no_update
        assert out["fabric"] == "gb200-nvl72" and out["update"] == "st3"
        assert out["message"] == "" and out["preset"] is None

    def test_a_typed_id_fails_it_and_clears_the_box(self, monkeypatch):
        out = on_change(monkeypatch, ids.FAIL_BTN, "?fail=st3", typed=" gpu07-st1.sw0 ")
        assert out["search"] == "?fail=st3,gpu07-st1.sw0"
        assert out["message"] == "gpu07-st1.sw0 failed" and out["typed"] == ""

    def test_a_bad_id_is_named_and_the_url_kept(self, monkeypatch):
        out = on_change(monkeypatch, ids.FAIL_BTN, "?fail=st3", typed="st10")
        assert out["search"] is no_update and out["fabric"] is no_update
        assert "st10" in out["message"] and out["typed"] is no_update  # kept, to correct

    def test_enter_in_the_box_finds_an_id_in_any_case_and_fails_nothing(self, monkeypatch):
        for mode in ("fail", "flaky", "inspect"):
            out = on_change(
                monkeypatch, ids.ID_INPUT, "?fail=st3", typed="GPU07-ST1.SW0 ", mode=mode
            )
            assert out["search"] is no_update and out["typed"] is no_update  # kept, to apply
            assert out["message"].startswith("gpu07-st1.sw0 found: highlighted")
            v = dict(view.DEFAULTS)
            args = ("?fail=st3", v["counter"], v["link"], v["compare"], mode, "r01")
            hashed = fragment.on_view("", None, *args, typed="GPU07-ST1.SW0 ")
            assert view.parse(hashed["hash"])[0]["sel"] == "gpu07-st1.sw0"
        out = on_change(monkeypatch, ids.ID_INPUT, "", typed="st10")
        assert out["search"] is no_update and "st10" in out["message"]  # named, not found

    def test_the_find_box_suggests_every_kind_of_part_in_any_case(self):
        from dashboard import find
        from dashboard.panels import finder

        assert len(find.every_id("vr-nvl72")) == 5184 + 2592 + 72 + 18 + 9 + 36 + 9
        got = [o.value for o in finder.suggestions("GPU07-ST3.SW2", "")["options"]]
        assert got == ["gpu07-st3.sw2", "gpu07-st3.sw2.c0", "gpu07-st3.sw2.c1"]
        assert [o.value for o in finder.suggestions("st3.m", "")["options"]] == ["st3.mc"]
        assert finder.suggestions("", "")["options"] == []
        assert finder.suggestions("zz", "")["options"] == []
        near = finder.suggestions("r03.gpu07-st3.sw2.c", "?fabric=vr-nvl576")["options"]
        domain = [o.value for o in near]
        assert domain == ["r03.gpu07-st3.sw2.c0", "r03.gpu07-st3.sw2.c1"]

    def test_a_press_is_answered_with_what_it_did_and_never_writes_the_url(self, monkeypatch):
        """The browser edited the URL (assets/rack_press.js); the server says what the press
        did, from the query it was made on, and sends nothing else: no control re-rendered,
        no URL that could overtake a later press."""
        cases = [
            ({"id": "gpu07-st3.sw2.c0", "mode": "fail", "before": ""}, "gpu07-st3.sw2.c0 failed"),
            (
                {"id": "gpu07-st3.sw2.c0", "mode": "fail", "before": "?fail=gpu07-st3.sw2.c0"},
                "gpu07-st3.sw2.c0 repaired",
            ),
            ({"id": "st3", "mode": "fail", "before": "?fail=st3"}, "st3 hot-swapped"),
            (
                {"id": "st3", "mode": "fail", "before": "?fail=st3&off=hot-swap"},
                "st3 repaired",
            ),
            (
                {"id": "gpu07-st3.sw2.c0", "mode": "flaky", "before": ""},
                "gpu07-st3.sw2.c0 marked flaky",
            ),
        ]
        for press, said in cases:
            out = on_change(monkeypatch, ids.RACK_PRESS, "?fail=gpu01", click=press)
            assert out["message"] == said
            assert all(v is no_update for k, v in out.items() if k != "message"), press

    def test_a_press_the_model_refuses_is_named(self, monkeypatch):
        out = on_change(
            monkeypatch, ids.RACK_PRESS, "", click={"id": "gpu07", "mode": "flaky", "before": ""}
        )
        assert "only links and cables can be flaky" in out["message"] and "gpu07" in out["message"]
        out = on_change(monkeypatch, ids.RACK_PRESS, "", click={"id": "st10", "mode": "fail"})
        assert "st10" in out["message"] and out["search"] is no_update
        out = on_change(
            monkeypatch, ids.RACK_PRESS, "", click={"id": "st3", "mode": "inspect", "before": ""}
        )
        assert out["message"] == "st3 selected: inspecting fails nothing"

    def test_a_garbage_press_changes_nothing(self, monkeypatch):
        for press in (None, {}, {"points": [{}]}, {"id": 7}, "st3", {"id": "st3", "mode": "x"}):
            out = on_change(monkeypatch, ids.RACK_PRESS, "?fail=st5", click=press)
            assert all(v is no_update for k, v in out.items() if k != "message")
            assert isinstance(out["message"], str)
        bad_mode = on_change(monkeypatch, ids.RACK_PRESS, "", click={"id": "st3", "mode": "x"})
        assert bad_mode["message"] == "st3 failed"  # an unknown mode is a click's

    def test_a_cable_press_selects_its_series_in_the_fragment(self, monkeypatch):
        monkeypatch.setattr(fragment, "ctx", Ctx(ids.RACK_PRESS))
        v = dict(view.DEFAULTS)
        press = {"id": "gpu01-st2.sw3.c1", "mode": "fail"}
        out = fragment.on_view("", press, "", v["counter"], v["link"], v["compare"], "fail", "r01")
        assert tuple(out) == fragment.VIEW_OUTPUTS
        assert out["link"] == "gpu01-st2.sw3.c1" and out["hash"] == "#link=gpu01-st2.sw3.c1"
        for press in ({"id": "st3"}, {"id": "st10"}, {"points": []}, None):
            args = (v["counter"], v["link"], v["compare"], "fail", "r01")
            out = fragment.on_view("", press, "", *args)
            assert all(x is no_update for x in out.values())  # a tray has no series

    def test_the_fragment_sets_the_view_and_names_what_it_dropped(self, monkeypatch):
        monkeypatch.setattr(fragment, "ctx", Ctx(ids.URL))
        out = fragment.on_view("#counter=state&bogus=1", None, "", None, None, None, None, None)
        assert out["counter"] == "state" and out["hash"] is no_update
        assert "bogus" in out["message"]

    def test_an_inspect_press_selects_the_part_and_fails_nothing(self, monkeypatch):
        press = {"id": "st3", "mode": "inspect", "before": "?fail=st5"}
        monkeypatch.setattr(fragment, "ctx", Ctx(ids.RACK_PRESS))
        v = dict(view.DEFAULTS)
        args = ("?fail=st5", v["counter"], v["link"], v["compare"], "inspect", "r01")
        out = fragment.on_view("#mode=inspect", press, *args)
        assert out["hash"] == "#mode=inspect&sel=st3"


@pytest.mark.parametrize("fabric", ["vr-nvl72", "gb200-nvl72", "vr-nvl576", "vr-nvl1152"])
def test_every_switch_update_offered_is_one_the_fabric_takes(fabric):
    """The update menu follows the fabric: a domain's L1 trays of every rack and its L2 trays
    (issue 16), each a value parse_query takes as update= on that fabric."""
    from dashboard.panels.controls import update_options
    from model import parse_query

    opts = [o["value"] for o in update_options(fabric) if o["value"]]
    for v in opts:
        assert parse_query(f"fabric={fabric}&update={v}").scenario.update == (v,)
    if fabric in ("vr-nvl576", "vr-nvl1152"):
        assert any(v.startswith("l2.t") for v in opts) and "r02.st9" in opts


@pytest.mark.parametrize("fabric", ["vr-nvl72", "gb200-nvl72", "eth-x72"])
def test_a_feature_the_fabric_lacks_is_disabled_with_its_why(fabric):
    """Issue 28 (4): a switch that changes nothing on this fabric cannot be pressed, and its
    title says why in the fabric's words; the others stay live."""
    from dashboard.panels.controls import feature_options
    from model.fabric.features import lacks

    opts = {o["value"]: o for o in feature_options(fabric)}
    assert {k for k, o in opts.items() if o["disabled"]} == set(lacks(fabric))
    for k, why in lacks(fabric).items():
        assert f"{fabric} has none: {why}" in opts[k]["label"].title
    assert fabric != "eth-x72" or len(lacks(fabric)) == 2  # no controller, no fallback
