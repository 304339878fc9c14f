"""Component IDs parse and format both ways, for every component of every fabric."""

import pytest

from model.errors import ScenarioError
from model.fabric.presets import FABRICS
from model.fabric.topology import topology
from model.ids import format_id, parse_id


@pytest.mark.parametrize("key", sorted(FABRICS))
def test_every_component_round_trips(key):
    f = FABRICS[key]
    comps = topology(f)["components"]
    for c in comps:
        parsed = parse_id(c["id"], f)
        assert parsed.kind == c["kind"]
        assert format_id(parsed) == c["id"]
    counts = topology(f)["counts"]
    assert counts["cable"] == 5184
    assert counts["link"] == f.links
    assert counts["gpu"] == 72
    assert counts["switch-chip"] == f.chips
    assert counts["controller"] == 9


@pytest.mark.parametrize(
    "fabric,token,words",
    [
        ("vr-nvl72", "st10", "switch tray 10"),
        ("vr-nvl72", "gpu72", "GPU 72"),
        ("gb200-nvl72", "st3.sw3", "chip sw3"),
        ("vr-nvl72", "gpu07-st3.sw2.c2", "cable c2"),
        ("vr-nvl72", "ct19", "compute tray 19"),
        ("vr-nvl72", "ct00", "compute tray 0"),
        ("vr-nvl72", "st0.mc", "switch tray 0"),
        ("vr-nvl72", "gpu7", "not a component ID"),
        ("vr-nvl72", "GPU07", "not a component ID"),
        ("vr-nvl72", "st3.sw", "not a component ID"),
        ("vr-nvl72", "<script>", "not a component ID"),
    ],
)
def test_bad_ids_name_the_token(fabric, token, words):
    with pytest.raises(ScenarioError) as e:
        parse_id(token, FABRICS[fabric])
    assert token in e.value.message
    assert words in e.value.message


def test_gb200_has_four_cables_per_link():
    f = FABRICS["gb200-nvl72"]
    assert parse_id("gpu07-st3.sw1.c3", f).nums == (7, 3, 1, 3)
