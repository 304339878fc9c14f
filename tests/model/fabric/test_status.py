"""Every part's status (model/fabric/status.py): what the drawing, the map and the labels
show, read from the Assessment, so the view never works it out again."""

from __future__ import annotations

import numpy as np
import pytest

from model.assess import assess
from model.fabric.status import CABLE_STATUSES, PART_STATUSES
from model.multirack.assess import TRUNK_STATUSES
from model.query import parse_query


def status(q: str):
    return assess(parse_query(q).scenario).status


@pytest.mark.parametrize(
    "q",
    ["", "fail=st3", "fail=st3&off=reroute", "update=st2", "update=st2&off=issu",
     "flaky=gpu20-st5.sw1,gpu07-st3.sw2.c0", "fail=gpu07,st1.mc&off=cp-resilience",
     "fabric=gb200-nvl72&fail=st3.sw1", "fabric=eth-x72&fail=st3"],
)  # fmt: skip
def test_every_cable_has_one_status_and_the_arrays_are_read_only(q: str) -> None:
    st = status(q)
    f = assess(parse_query(q).scenario).fabric
    assert st.cable.shape == (f.cables,)
    assert sum(len(st.cables(name)) for name in CABLE_STATUSES) == f.cables
    for a in (st.cable, st.gpu, st.chip, st.controller, st.lost_share, st.plane_drained):
        assert not a.flags.writeable
    assert st.compute_tray.shape == (f.compute_trays,) and st.switch_tray.shape == (9,)


def test_a_lost_tray_fails_its_chips_and_cables_and_reroutes_every_gpu() -> None:
    st = status("fail=st3")
    k = 4  # chips per tray on vr-nvl72
    assert [PART_STATUSES[c] for c in st.chip[2 * k : 3 * k]] == ["failed"] * k
    assert PART_STATUSES[st.switch_tray[2]] == "failed"
    assert len(st.cables("failed")) == 72 * k * 2  # two cables a link
    assert {PART_STATUSES[c] for c in st.gpu} == {"rerouted"}
    np.testing.assert_allclose(st.lost_share, 1 / 9)
    assert st.of(assess(parse_query("fail=st3").scenario).fabric, "gpu07-st3.sw2") == (
        "cable",
        "failed",
    )


def test_a_drained_tray_is_drained_not_failed_and_a_link_reads_as_its_worse_cable() -> None:
    s = parse_query("update=st2&flaky=gpu07-st4.sw1.c0").scenario
    a = assess(s)
    st = a.status
    assert st.plane_drained.sum() == 4 and not st.plane_drained[:4].any()
    assert PART_STATUSES[st.chip[4]] == "drained"
    assert st.of(a.fabric, "gpu07-st4.sw1") == ("cable", "flaky")  # its other cable is up
    assert st.of(a.fabric, "gpu07-st4.sw1.c1")[1] in ("healthy", "rerouted")
    assert st.of(a.fabric, "st2") == ("part", "drained")


def test_a_lost_gpu_is_failed_with_all_its_bandwidth_lost_and_the_leader_is_named() -> None:
    a = assess(parse_query("fail=gpu07").scenario)
    assert a.status.of(a.fabric, "gpu07") == ("part", "failed")
    assert a.status.lost_share[7] == 1.0
    assert a.status.leader_tray == 0  # st1 leads


def test_a_domain_trunk_reads_failed_flaky_or_idle_from_the_assessment() -> None:
    a = assess(parse_query("fabric=vr-nvl576&fail=r01.st3.sw1-l2.s1,l2.p05.s1").scenario)
    ts = a.trunk_status
    d = a.fabric
    assert ts.shape == (d.racks, d.planes, d.l2_per_plane) and not ts.flags.writeable
    assert TRUNK_STATUSES[ts[0, 9, 1]] == "failed"  # st3.sw1 is plane 9
    assert all(TRUNK_STATUSES[ts[r, 5, 1]] == "idle" for r in range(d.racks))  # its L2 end out
    assert (ts == 0).sum() == ts.size - 1 - d.racks
