"""The fault chips and what a chip's x does: that fault alone out of the URL's scenario."""

from dash import no_update

from dashboard.panels import faults
from model.query import parse_query


def _texts(search: str) -> list[str]:
    out = []
    for c in faults.chips(search):
        kids = c.children if isinstance(c.children, list) else [c.children]
        out.append("".join(k.children if hasattr(k, "children") else str(k) for k in kids))
    return out


def test_a_chip_a_fault_and_a_line_when_there_is_none():
    assert _texts("?fail=st3,gpu07-st3.sw2.c0&flaky=gpu20-st5.sw1&update=st5") == [
        "Faults now:",
        "st3 ×",
        "gpu07-st3.sw2.c0 ×",
        "gpu20-st5.sw1 (flaky) ×",
        "update st5 ×",
    ]
    assert _texts("") == ["No faults: the healthy rack."]


def test_a_chips_x_takes_only_its_fault_away():
    q = "?fail=st3,gpu07-st3.sw2.c0&flaky=gpu20-st5.sw1"
    after = faults.remove({"kind": "fail", "id": "st3"}, q)
    s = parse_query(after.lstrip("?")).scenario
    assert s.fail == ("gpu07-st3.sw2.c0",) and s.flaky == ("gpu20-st5.sw1",)
    s = parse_query(faults.remove({"kind": "flaky", "id": "gpu20-st5.sw1"}, q)[1:]).scenario
    assert s.flaky == () and len(s.fail) == 2
    assert faults.remove({"kind": "fail", "id": "gpu20-st5.sw1"}, "?fail=st3") is no_update
    for junk in (None, {}, {"kind": "wipe", "id": "st3"}, {"kind": "fail", "id": 3}):
        assert faults.remove(junk, q) is no_update


def test_the_history_keeps_each_new_query_and_lets_a_step_land():
    """track: each new query after where the page is (what was undone past it dropped); a
    step of undo or redo landing changes nothing but the buttons."""
    from dash import no_update

    h = faults.track("?fail=st3", None)
    assert h["history"] == {"stack": ["?fail=st3"], "at": 0} and h["undo"] and h["redo"]
    h2 = faults.track("?fail=st3,gpu07", h["history"])
    assert h2["history"] == {"stack": ["?fail=st3", "?fail=st3,gpu07"], "at": 1}
    assert h2["undo"] is False and h2["redo"] is True
    back = {"stack": h2["history"]["stack"], "at": 0}  # an undo stepped back
    landed = faults.track("?fail=st3", back)
    assert landed == {"history": no_update, "undo": True, "redo": False}
    new = faults.track("?fail=st5", back)  # a new change after an undo drops what was undone
    assert new["history"] == {"stack": ["?fail=st3", "?fail=st5"], "at": 1}
    many = {"stack": [f"?fail=gpu{i:02d}" for i in range(50)], "at": 49}
    assert len(faults.track("?fail=st1", many)["history"]["stack"]) == faults.HISTORY_MAX
