"""The fast numpy path against networkx max flow on random scenarios (the oracle).

Per fabric, a few hundred random scenarios; in each, GPU bandwidths and pair capacities of
GPUs drawn at random (biased to the GPUs the faults touch) must equal the max flow of the
independently built graph, and the counts must match the graph's nodes and edges.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import evaluate
from model.fabric.fate import partition
from model.fabric.graph import build_graph, gpu_bandwidth_tbs, pair_capacity_tbs, with_sink
from model.fabric.metrics import pair_capacity_tbs as fast_pairs
from model.fabric.metrics import per_gpu_tbs
from model.fabric.presets import FABRICS
from model.fabric.state import build_state
from model.query import parse_query
from tests.strategies import scenarios

EXAMPLES = 250


def _touched(s) -> list[int]:
    out = []
    for x in s.fail + s.flaky:
        if x.startswith("gpu"):
            out.append(int(x[3:5]))
    return out or [0]


@pytest.mark.slow
@pytest.mark.parametrize("fabric", sorted(FABRICS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_equals_max_flow(fabric, data):
    s = data.draw(scenarios(fabric=fabric))
    st_ = build_state(s)
    g = build_graph(s)
    h = with_sink(g)
    fast = per_gpu_tbs(st_)
    pairs = fast_pairs(st_)
    gpus = st.sampled_from(_touched(s)) | st.integers(0, 71)
    for _ in range(2):
        a = data.draw(gpus)
        b = data.draw(st.integers(0, 71).filter(lambda x, a=a: x != a))
        assert fast[a] == pytest.approx(gpu_bandwidth_tbs(h, a), abs=1e-9)
        want = pair_capacity_tbs(g, a, b)
        assert pairs[a, b] == pytest.approx(want, abs=1e-9)
        reach = (
            f"gpu{a:02d}.tx" in g
            and f"gpu{b:02d}.rx" in g
            and nx.has_path(g, f"gpu{a:02d}.tx", f"gpu{b:02d}.rx")
        )
        assert (pairs[a, b] > 0) == reach

    # counts against the graph
    r = evaluate(s)
    gpu_tx = sum(1 for n in g if n.endswith(".tx"))
    assert r["counts"]["gpus_active"] == gpu_tx
    assert r["counts"]["switch_chips_up"] == sum(1 for n in g if ".sw" in n)
    live_links = sum(1 for u, v in g.edges if u.endswith(".tx"))
    assert r["counts"]["links_up"] == live_links
    # no reachable pair is declared unreachable, and vice versa
    if partition(st_).state != "UNHEALTHY" or st_.maintenance:
        alive = np.flatnonzero(st_.gpu_alive)
        if len(alive) > 1 and not st_.maintenance:
            sub = pairs[np.ix_(alive, alive)] + np.eye(len(alive))
            assert (sub > 0).all()


@pytest.mark.parametrize(
    "query", ["", "fail=st3,gpu07-st1.sw0.c0&flaky=gpu12-st4.sw1", "update=st2"]
)
def test_state_arrays_are_read_only_and_derived_masks_computed_once(query):
    s = build_state(parse_query(query).scenario)
    built = ("gpu_alive", "chip_failed", "chip_drained", "link_failed", "cable_failed")
    derived = ("chip_in_service", "up", "efficiency")
    for name in (*built, "flaky", "flaky_cable", "mc_alive", *derived):
        a = getattr(s, name)
        assert not a.flags.writeable, name
        with pytest.raises(ValueError):
            a[...] = a
    for name in derived:
        assert getattr(s, name) is getattr(s, name), name
