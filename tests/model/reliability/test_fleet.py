"""The fleet study's numbers (issue 14, item 7): many racks over years in chunks the Monte
Carlo can run, with the p5/p50/p95 rack exact over every rack of the fleet."""

from __future__ import annotations

import numpy as np
import pytest

from model.errors import ScenarioError
from model.query import parse_query
from model.reliability import goodput as G
from model.reliability import montecarlo as MC

VR = parse_query("").scenario


def test_quantiles_are_over_every_rack_not_an_average_of_chunks(monkeypatch):
    """With chunks of one rack each, an average of the chunks' quantiles would make p5, p50
    and p95 all the mean; pooled over the fleet they are the racks' own spread."""
    monkeypatch.setattr(MC, "MAX_RACK_YEARS", 5.0)  # 5 years: one rack a chunk
    r = G.fleet(VR, racks=60, years=5.0, key="pool")
    assert r["chunks"] == 60
    q = r["per_rack_fraction"]
    assert q["p5"] < q["p50"] < q["p95"]
    pooled = np.concatenate(
        [MC._run(VR, years=5.0, racks=1, key=f"pool:{c}")[1] for c in range(60)]
    )
    assert q == MC.quantiles(pooled)
    assert r["fraction"] == pytest.approx(float(pooled.mean()), abs=1e-6)


def test_a_fleet_agrees_with_the_closed_form_and_totals_its_racks():
    r = G.fleet(VR, racks=3_000, years=10.0, key="agree")
    assert r["chunks"] == 2 and r["racks"] == 3_000
    cf = G.closed_form(VR, years=10.0, racks=3_000)
    assert r["fraction"] == pytest.approx(cf["fraction"], abs=0.002)
    lo, hi = r["ci95"]
    assert lo < r["fraction"] < hi and hi - lo < 0.001
    assert r["tokens_delivered"] == pytest.approx(cf["tokens_delivered"], rel=0.002)


@pytest.mark.parametrize("racks", [0, 2.5, True, 10**6])
def test_bad_fleets_are_refused(racks):
    with pytest.raises(ScenarioError) as e:
        G.fleet(VR, racks=racks, years=1.0, key="bad")
    assert e.value.token == "racks"
