"""Hypothesis strategies: random scenarios per fabric, built from real component IDs."""

from __future__ import annotations

from hypothesis import strategies as st

from model.fabric.features import FEATURE_KEYS, default_features
from model.fabric.presets import FABRICS
from model.fabric.topology import topology
from model.query import parse_query
from model.scenario import Scenario, to_query
from model.workloads.models import WORKLOADS

_IDS = {k: [c["id"] for c in topology(f)["components"]] for k, f in FABRICS.items()}
_LINKS = {
    k: [c["id"] for c in topology(f)["components"] if c["kind"] in ("link", "cable")]
    for k, f in FABRICS.items()
}


@st.composite
def scenarios(draw, fabric: str | None = None, max_faults: int = 12) -> Scenario:
    """A canonical Scenario: parsed from a random query, so it is what users can reach."""
    fab = fabric or draw(st.sampled_from(sorted(FABRICS)))
    fail = draw(st.lists(st.sampled_from(_IDS[fab]), max_size=max_faults))
    flaky = draw(st.lists(st.sampled_from(_LINKS[fab]), max_size=3))
    flaky = [x for x in flaky if x not in fail]
    defaults = default_features(fab)
    off = draw(st.lists(st.sampled_from(sorted(defaults)), max_size=3, unique=True))
    others = sorted(set(FEATURE_KEYS) - defaults)
    on = draw(st.lists(st.sampled_from(others), max_size=3, unique=True)) if others else []
    workload = draw(st.sampled_from(sorted(WORKLOADS)))
    update = draw(
        st.one_of(
            st.just([]),
            st.just(["all"]),
            st.lists(st.sampled_from([f"st{i}" for i in range(1, 10)]), max_size=2),
        )
    )
    at = draw(st.sampled_from([50.0, 20.0, 36.4, 100.0, 180.0]))  # at=: 50 the default
    parts = [f"fabric={fab}", f"workload={workload}", f"at={at:g}"]
    for key, vals in (
        ("fail", fail),
        ("flaky", flaky),
        ("off", off),
        ("on", on),
        ("update", update),
    ):
        if vals:
            parts.append(f"{key}={','.join(vals)}")
    s = parse_query("&".join(parts)).scenario
    assert parse_query(to_query(s)).scenario == s
    return s
