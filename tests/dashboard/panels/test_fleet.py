"""The fleet study: its inputs refused by name, never silently changed; its results a
DataFrame a configuration."""

from __future__ import annotations

import pytest

from dashboard.panels import fleet
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


class TestFleet:
    def test_results_frame_names_each_configuration_and_its_largest_loss(self):
        r = {
            "fraction": 0.98765,
            "per_rack_fraction": {"p5": 0.97, "p50": 0.98, "p95": 0.99},
            "badput_hours_per_rack_year": {"repair_wait": 70.4, "lost_work": 3.0},
        }
        df = fleet.frame([("vr-nvl72, defaults", r), ("gb200-nvl72", r)])
        assert df.index.name == "configuration"
        assert list(df.index) == ["vr-nvl72, defaults", "gb200-nvl72"]
        assert df.loc["gb200-nvl72", "goodput"] == "98.765%"
        assert df.loc["gb200-nvl72", "largest loss, h per rack-year"] == "repair wait: 70"
