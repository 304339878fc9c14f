"""The rack's hover labels: each part's state in the scenario and what a click does."""

from dashboard.figures import rack as rf
from dashboard.figures.rack import overlay
from model.query import parse_query


def scenario(q: str):
    return parse_query(q).scenario


def _cable_label(d: dict, cid: str) -> str:
    i = rf.point_ids("vr-nvl72")[rf.TRACES["cable_hits"]].index(cid)
    return d["named"].get(str(i), d["words"][int(d["codes"][i])])


def test_cables_say_their_state_and_the_click_in_each_mode():
    s = scenario("fail=st3.sw1,gpu07-st1.sw0.c0&flaky=gpu20-st5.sw1")
    d = rf.label_data(s, "fail")
    assert len(d["codes"]) == 5184
    assert _cable_label(d, "gpu07-st1.sw0.c0") == "<b>failed</b> · click to repair"
    assert _cable_label(d, "gpu07-st3.sw1.c0") == "<b>failed</b> · click to fail it too"
    assert _cable_label(d, "gpu20-st5.sw1.c1").startswith("<b>degrading (flaky)</b>")
    assert "click to mark flaky" in _cable_label(rf.label_data(s, "flaky"), "gpu00-st1.sw0.c0")
    assert "click to inspect" in _cable_label(rf.label_data(s, "inspect"), "gpu00-st1.sw0.c0")


def _parts(d: dict, trace: str) -> list[str]:
    t = rf.TRACES[trace]
    return overlay.spell_part_labels("vr-nvl72", t, d["parts"][str(t)])


def test_a_failed_chip_says_it_is_failed():
    d = rf.label_data(scenario("fail=st3.sw1"), "fail")
    chips = _parts(d, "chips")
    i = rf.point_ids("vr-nvl72")[rf.TRACES["chips"]].index("st3.sw1")
    assert chips[i].endswith("<b>failed</b> · click to repair")
    assert chips[0].endswith("<b>healthy</b> · click to fail")
    flaky = _parts(rf.label_data(scenario("fail=st3.sw1"), "flaky"), "chips")
    assert flaky[0].endswith("only links and cables can be flaky")


def test_part_state_is_the_scenario_s():
    s = scenario("fail=st3&flaky=gpu20-st5.sw1")
    assert rf.part_state(s, "gpu07-st3.sw2.c0") == "failed"  # a cable of the failed tray
    assert rf.part_state(s, "st3") == "failed" and rf.part_state(s, "st3.sw0") == "failed"
    assert rf.part_state(s, "gpu20-st5.sw1") == "degrading (flaky)"
    assert rf.part_state(scenario(""), "gpu07-st3.sw2.c0") == "healthy"


def test_front_labels_travel_as_codes_and_read_as_before():
    """Each part: what it is (the base figure's meta.hover), then its state and the click."""
    d = rf.label_data(scenario("fail=st3&flaky=gpu20-st5.sw1"), "fail")
    for trace in ("trays", "gpus", "chips", "controllers"):
        part = d["parts"][str(rf.TRACES[trace])]
        assert len(part["words"]) < 10 and len(part["codes"]) == len(
            rf.point_ids("vr-nvl72")[rf.TRACES[trace]]
        )
        spelled = _parts(d, trace)
        base = rf.base_figure("vr-nvl72")["data"][rf.TRACES[trace]]["hovertext"]
        assert all(x.startswith(b + "<br><b>") for x, b in zip(spelled, base, strict=True))
    trays = _parts(d, "trays")
    i = rf.point_ids("vr-nvl72")[rf.TRACES["trays"]].index("st3")
    assert trays[i].endswith("<b>failed</b> · click to repair")
