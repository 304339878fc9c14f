"""The heavy studies as chunks (model/reliability/chunks.py): put back together, they are what
one process computes, byte for byte; a chunk's answer depends on its spec alone."""

import json

import pytest

from model.errors import ScenarioError
from model.query import parse_query
from model.reliability import chunks, goodput
from model.reliability.montecarlo import fleet
from model.reliability.rates import DEFAULT_RATES


@pytest.mark.slow
def test_fleet_study_from_chunks_is_montecarlo_fleet():
    plan = chunks.fleet_study_plan(700, 40)  # 500 racks a chunk: two chunks a row
    rows = goodput.comparison_scenarios()
    assert len(plan) == 2 * len(rows)
    assert [p["racks"] for p in plan[:2]] == [500, 200]
    # answered out of order (as workers finish), put together in index order
    answers = {i: chunks.run_chunk(p) for i, p in reversed(list(enumerate(plan)))}
    got = chunks.fleet_study_combine(plan, [answers[i] for i in range(len(plan))])
    want = [(label, fleet(sc, racks=700, years=40, key="fleet-study")) for label, sc in rows]
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert got[0][1]["racks"] == 700 and got[0][1]["chunks"] == 2


def test_a_chunk_run_twice_gives_the_same_bytes_and_its_own_racks():
    plan = chunks.fleet_study_plan(700, 40)
    assert chunks.run_chunk(plan[1]) == chunks.run_chunk(plan[1])
    assert chunks.run_chunk(plan[0]) != chunks.run_chunk(plan[1])  # seeded by its index


def test_policy_optimiser_from_chunks_is_best_policy():
    s = parse_query("fabric=vr-nvl72&fail=st3&repair=now,onsite").scenario
    rates = DEFAULT_RATES.with_overrides(gpu_per_h=2e-5)
    kw = {"years": 2.0, "racks": 100, "job_racks": 4, "spares": True}
    plan = chunks.policy_plan(s, rates, **kw)
    assert all(p["policy"].endswith(",onsite") for p in plan)
    assert plan[0]["rates"] == {"gpu_per_h": 2e-5}  # only what differs from the defaults
    got = chunks.policy_combine([chunks.run_chunk(json.loads(json.dumps(p))) for p in plan])
    want = goodput.best_policy(s, rates, **kw)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def test_bad_sizes_and_kinds_are_refused_by_name():
    with pytest.raises(ScenarioError) as e:
        chunks.fleet_study_plan(0, 5)
    assert e.value.token == "racks"
    with pytest.raises(ScenarioError) as e:
        chunks.fleet_study_plan(10, 500)
    assert "years" in e.value.message
    with pytest.raises(ScenarioError) as e:
        chunks.run_chunk({"kind": "nope", "query": "fabric=vr-nvl72"})
    assert e.value.token == "kind"
