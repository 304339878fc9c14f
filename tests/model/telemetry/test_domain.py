"""A domain's telemetry (model/telemetry/domain.py): each rack's own snapshot and the tier
between them, read from the domain's one assessment."""

import numpy as np
import pytest

from model import telemetry
from model.assess import assess
from model.query import parse_query
from model.telemetry.domain import domain_counters


@pytest.mark.parametrize(
    "query",
    [
        "fabric=vr-nvl576",
        "fabric=vr-nvl576&fail=l2.p05.s3,r02,r03.st2.sw1-l2.s0&flaky=r05.st1.sw0-l2.s1",
        "fabric=vr-nvl1152&fail=r15.st9,l2.p00.s0,r01.gpu07-st3.sw2&update=l2.t05",
        "fabric=vr-nvl1152&fail=l2.t03&off=telemetry&flaky=r02.st2.sw1-l2.s3",
    ],
)
def test_the_tier_follows_the_assessment(query):
    s = parse_query(query).scenario
    a, dc = assess(s), domain_counters(s, 3600.0)
    st = a.state
    assert [x is None for x in dc.racks] == st.racks_lost.tolist()
    for r, ra in enumerate(st.racks):
        if ra is None:
            assert not dc.l1_up[r].any()
            continue
        own = telemetry.counters(ra.scenario, 3600.0)
        assert np.array_equal(dc.racks[r].state, own.state)
        assert np.array_equal(dc.l1_up[r], ~ra.state.chip_failed)
    want = ~st.trunk_failed & dc.l1_up[:, :, None] & ~st.l2_failed[None, :, :]
    assert np.array_equal(dc.trunk_up, want)
    assert np.array_equal(dc.l2_up, ~st.l2_failed)
    assert np.array_equal(dc.l2_drained, st.l2_drained)
    seen = "telemetry" in st.features
    assert dc.telemetry is seen
    assert np.array_equal(dc.trunk_degrading, st.trunk_flaky & want if seen else want & False)
