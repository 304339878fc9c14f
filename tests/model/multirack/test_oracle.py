"""The two-tier domain's fast path (tiers.py, pairs.py) against networkx max flow on the
independently built graph (oracle.py), on 240 seeded random multi-rack scenarios.

In each: the counts, every GPU's plane rates in the uniform all-to-all under the trunk limit
(from the oracle's max flow per rack and plane), the bandwidth block evaluate_domain reports,
two GPUs' injection and eight pairs' capacity, biased to the racks, GPUs and planes the
faults touch. test_tiers.py holds the named cases; this holds random ones.
"""

import random

import numpy as np
import pytest

from model.multirack.assess import assess_domain, build
from model.multirack.domains import VR_NVL576, VR_NVL1152, l2_trays, trunk_id
from model.multirack.oracle import DomainGraph
from model.multirack.pairs import pair_capacity_tbs, trunk_links
from model.multirack.tiers import plane_rates
from model.query import parse_query

SCENARIOS = 120  # a domain: 240 in all


def random_fail(rng: random.Random, d) -> list[str]:
    """A fault list: rack parts of a few racks, L2 chips bunched in a few planes (the trunk
    limit binds only where a plane has lost L2 chips or trunks), L2 trays and trunk bundles."""
    out = []
    racks = rng.sample(range(1, d.racks + 1), rng.randint(1, 3))
    for _ in range(rng.randint(0, 6)):
        r = f"r{rng.choice(racks):02d}"
        kind = rng.choices(
            ["gpu", "ct", "st", "chip", "link", "cable", "rack"], [4, 2, 2, 3, 5, 3, 1]
        )[0]
        gpu, tray, chip = rng.randrange(72), rng.randint(1, 9), rng.randrange(4)
        out.append(
            {
                "gpu": f"{r}.gpu{gpu:02d}",
                "ct": f"{r}.ct{rng.randint(1, 18):02d}",
                "st": f"{r}.st{tray}",
                "chip": f"{r}.st{tray}.sw{chip}",
                "link": f"{r}.gpu{gpu:02d}-st{tray}.sw{chip}",
                "cable": f"{r}.gpu{gpu:02d}-st{tray}.sw{chip}.c{rng.randrange(2)}",
                "rack": r,
            }[kind]
        )
    for p in rng.sample(range(d.planes), rng.randint(0, 3)):
        for s in rng.sample(range(d.l2_per_plane), rng.randint(1, d.l2_per_plane)):
            out.append(f"l2.p{p:02d}.s{s}")
    for _ in range(rng.choice([0, 0, 1, 2])):
        out.append(f"l2.t{rng.randint(1, l2_trays(d)):02d}")
    for _ in range(rng.choice([0, 1, 3])):
        p = rng.randrange(d.planes)
        out.append(trunk_id(d, rng.randrange(d.racks), p, rng.randrange(d.l2_per_plane)))
    return out


def _pairs(rng: random.Random, st, fail: list[str]) -> list[tuple[int, int]]:
    """Eight pairs: from GPUs in the faulted racks, to their own rack and to another."""
    d = st.domain
    hot = sorted({int(x[1:3]) - 1 for x in fail if x.startswith("r")}) or [0]
    out = []
    for k in range(8):
        ra = rng.choice(hot)
        rb = ra if k % 3 == 0 else rng.choice([r for r in range(d.racks) if r != ra])
        a = ra * 72 + rng.randrange(72)
        b = rb * 72 + rng.randrange(72)
        out.append((a, b))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("d", [VR_NVL576, VR_NVL1152], ids=lambda d: d.key)
def test_fast_path_equals_max_flow(d):
    rng = random.Random(f"oracle-{d.key}")
    bound = 0  # scenarios where the trunk limit binds somewhere (the test must reach them)
    for _ in range(SCENARIOS):
        fail = random_fail(rng, d)
        a_ = assess_domain(parse_query(f"fabric={d.key}&fail={','.join(fail)}").scenario)
        st = a_.state
        og = DomainGraph(d, fail)
        n = d.gpus - len(og.dead_gpus)

        # counts, from the oracle's own dead sets
        assert int(st.gpu_alive.sum()) == n
        assert int(st.l1_in_service.sum()) == d.l1_chips - len(og.dead_l1)
        assert int(st.l2_in_service.sum()) == d.l2_chips - len(og.dead_l2)
        assert int(st.trunk_failed.sum()) == len(og.dead_trunks)
        ups = np.array([[og.up_in_rack(k, p) for p in range(d.planes)] for k in range(d.racks)])
        assert int(st.up.sum()) == int(ups.sum())

        # every GPU's plane rates in the all-to-all: (1 - f) + f x the max flow's share
        scale = og.trunk_scales()
        sc = np.array([[scale[k, p] for p in range(d.planes)] for k in range(d.racks)])
        bound += bool((sc < 1 - 1e-12).any())
        rack = np.arange(d.gpus) // 72
        alive = np.array([g not in og.dead_gpus for g in range(d.gpus)])
        in_rack = np.bincount(rack[alive], minlength=d.racks)
        f = (n - in_rack[rack]) / (n - 1)
        up = st.up
        want = np.where(up, (1 - f)[:, None] + f[:, None] * np.minimum(1.0, sc[rack]), 0.0)
        np.testing.assert_allclose(plane_rates(st), want, atol=1e-9)
        assert (up.sum(axis=1).reshape(d.racks, 72).sum(axis=1) == ups.sum(axis=1)).all()

        link = d.rack.link_gbs_bidir / 1000.0
        bw = a_.bandwidth
        use = a_.usable
        a2a = want.sum(axis=1)[use] * link
        worst = a2a.min() if use.any() else 0.0
        assert bw["all_to_all_per_gpu_tbs"] == pytest.approx(worst, abs=1e-4)
        assert bw["all_to_all_tbs"] == pytest.approx(use.sum() * worst, abs=2e-3)
        assert bw["aggregate_tbs"] == pytest.approx(ups.sum() * link, abs=1e-3)

        # injection: two GPUs' max flow to every other live GPU at once
        pairs = _pairs(rng, st, fail)
        for a in (pairs[0][0], pairs[1][0]):
            assert up[a].sum() * link == pytest.approx(og.injection_tbs(a), abs=1e-9)

        # pair capacity: the max flow from a's sender to b's receiver, over every plane
        a, b = np.array(pairs).T
        fast = pair_capacity_tbs(st, a, b)
        for i, (x, y) in enumerate(pairs):
            assert fast[i] == pytest.approx(og.pair_tbs(x, y), abs=1e-9), (fail, x, y)
    assert bound > SCENARIOS // 4


def test_a_pair_across_racks_needs_its_planes_l2_chips():
    """Named cases of the pair capacity: one plane's L2 group lost takes that plane from
    every pair across racks and from none inside a rack; a dead L1 chip from both."""
    d = VR_NVL576
    fail = [f"l2.p05.s{s}" for s in range(d.l2_per_plane)]
    st = build(d, fail)
    a = np.array([3, 3])
    b = np.array([10, 72 * 4 + 10])  # same rack, another rack
    assert list(pair_capacity_tbs(st, a, b)) == pytest.approx([3.6, 3.5])
    st = build(d, fail[:-1])  # one L2 chip of the plane left: its 18 trunks carry one link
    assert list(pair_capacity_tbs(st, a, b)) == pytest.approx([3.6, 3.6])
    assert (trunk_links(st)[:, 5].sum(axis=1) == 18).all()
    st = build(d, [trunk_id(d, 4, 5, 3)])  # b's rack lost one bundle of the last chip
    assert list(pair_capacity_tbs(st, a, b)) == pytest.approx([3.6, 3.6])
    st = build(d, [*fail[:-1], trunk_id(d, 4, 5, 3)])
    assert list(pair_capacity_tbs(st, a, b)) == pytest.approx([3.6, 3.5])
    st = build(d, ["r01.st2.sw1"])
    assert list(pair_capacity_tbs(st, a, b)) == pytest.approx([3.5, 3.5])
    assert pair_capacity_tbs(st, np.array([3]), np.array([3]))[0] == 0.0
