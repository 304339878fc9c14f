"""The fleet study's inputs: refused by name, never silently changed."""

import pytest

from dashboard.panels.fleet import study_size
from model.errors import ScenarioError


def test_whole_racks_and_years_in_range_pass():
    assert study_size(100, 5) == (100, 5.0)
    assert study_size(10_000.0, "0.1") == (10_000, 0.1)


@pytest.mark.parametrize(
    ("racks", "years", "token"),
    [
        (2.5, 5, "racks"),  # was cut to 2 without a word
        (0, 5, "racks"),
        (10_001, 5, "racks"),
        (None, 5, "racks"),
        ("many", 5, "racks"),
        (float("nan"), 5, "racks"),
        (10, 0.05, "years"),
        (10, 101, "years"),
        (10, None, "years"),
        (10, float("inf"), "years"),
    ],
)
def test_bad_inputs_are_refused_by_name(racks, years, token):
    with pytest.raises(ScenarioError) as e:
        study_size(racks, years)
    assert e.value.token == token
