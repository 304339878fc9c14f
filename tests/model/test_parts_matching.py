"""Issue 28's dead ends: a partial ID's matches, the parts a kind's word names ("trunk"), and
an error that names what a typed ID could mean (model/parts.py: matching)."""

from __future__ import annotations

import pytest

from model.errors import ScenarioError
from model.parts import matching, part
from model.scenario import Scenario


def test_typing_trunk_lists_a_domains_trunk_bundles():
    """Trunk IDs (r03.st1.sw0-l2.s0) never say "trunk": the word finds them."""
    for word in ("trunk", "Trunks", "trun"):
        got = matching("vr-nvl576", word, 5)
        assert got and all(part(Scenario(fabric="vr-nvl576"), c).kind == "trunk" for c in got)
    assert matching("vr-nvl576", "trunk", 3)[0] == "r01.st1.sw0-l2.s0"
    assert matching("vr-nvl72", "trunk", 5) == []  # one rack has none


def test_a_kind_word_finds_its_parts_and_ids_come_first():
    assert matching("vr-nvl72", "controller", 3) == ["st1.mc", "st2.mc", "st3.mc"]
    assert matching("vr-nvl72", "cable", 2) == ["gpu00-st1.sw0.c0", "gpu00-st1.sw0.c1"]
    assert matching("vr-nvl72", "st3.m", 5) == ["st3.mc"]
    assert matching("vr-nvl72", "", 5) == [] and matching("b200-roce", "gpu", 5) == []


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("st3.m", "the one match: st3.mc"),
        ("gpu07-st3.sw2.c", "it matches gpu07-st3.sw2.c0, gpu07-st3.sw2.c1 (type one in full)"),
        ("gpu0", "it matches gpu00, gpu01, gpu02, gpu03, gpu04, ... (type one in full)"),
    ],
)
def test_a_partial_id_is_answered_with_its_matches(typed, says):
    with pytest.raises(ScenarioError) as e:
        part(Scenario(), typed)
    assert e.value.message.endswith(says) and e.value.token == typed


def test_an_id_matching_nothing_says_only_what_is_wrong():
    with pytest.raises(ScenarioError) as e:
        part(Scenario(), "zz9")
    assert "match" not in e.value.message
