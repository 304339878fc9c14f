"""Decode under faults, as properties: throughput never rises as switch trays, switch chips or
links are lost, at any interactivity; and along interactivity a fault's cost moves smoothly
(at most 5% of the healthy rack's throughput per 2 tokens/s per user, wherever that rack still
decodes 1% of its peak), so a plateau or a step
in the cost is the deployment's choice, not a jump in the model."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from model import parse_query
from model.assess import assess
from model.fabric.presets import FABRICS
from model.fabric.topology import topology
from model.workloads import words
from model.workloads.choices import deployment_changes, fault_changes
from model.workloads.throughput import frontiers

RACKS = ("vr-nvl72", "gb200-nvl72")
LOSSES = ("switch-tray", "switch-chip", "link")
_PARTS = {
    f: sorted(c["id"] for c in topology(FABRICS[f])["components"] if c["kind"] in LOSSES)
    for f in RACKS
}


def _frontiers(fabric: str, fail: list[str]) -> dict:
    q = f"fabric={fabric}&workload=deepseek-r1" + (f"&fail={','.join(fail)}" if fail else "")
    return frontiers(assess(parse_query(q).scenario))


def _curve(fabric: str, fail: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The scenario's and its healthy rack's tokens/s per GPU along the frontier's grid."""
    fs = _frontiers(fabric, fail)
    return fs["scenario"].tokens_per_s_per_gpu, fs["healthy"].tokens_per_s_per_gpu


@st.composite
def losses(draw) -> tuple[str, list[str], list[str]]:
    """A rack, some trays, chips or links lost, and more of them lost on top."""
    fabric = draw(st.sampled_from(RACKS))
    parts = st.sampled_from(_PARTS[fabric])
    fewer = draw(st.lists(parts, max_size=4, unique=True))
    more = draw(st.lists(parts, min_size=1, max_size=4, unique=True))
    return fabric, fewer, sorted(set(fewer) | set(more))


@settings(max_examples=25, deadline=None)
@given(losses())
def test_losing_more_trays_chips_or_links_never_raises_decode(case):
    fabric, fewer, more = case
    a, _ = _curve(fabric, fewer)
    b, _ = _curve(fabric, more)
    reached = np.isfinite(b)
    assert not (reached & ~np.isfinite(a)).any()  # more lost never reaches further
    assert (b[reached] <= a[reached] * (1 + 1e-9)).all()


# whole GPUs and compute trays (4 GPUs each). Not a GPU's own links mixed in: on vr-nvl72 a
# lost link leaves its GPU in service at 17/18 of its bandwidth, and its EP group runs at its
# pace; losing that GPU as well frees the other 71 to run as EP71 elastic at full bandwidth,
# which decodes more. The model serves a slow GPU rather than draining it by choice (a known
# limit, docs/MODEL.md), so that pair is not a case of this property.
_GPU_PARTS = {
    f: [f"gpu{g:02d}" for g in range(72)] + [f"ct{t:02d}" for t in range(1, 19)] for f in RACKS
}


@st.composite
def gpu_losses(draw) -> tuple[str, list[str], list[str]]:
    """GPUs (or compute trays) lost, and more lost on top: the groups the rest form change
    (leftover and elastic groups, a TEP deployment's largest TEP size in a smaller group)."""
    fabric = draw(st.sampled_from(RACKS))
    parts = st.sampled_from(_GPU_PARTS[fabric])
    fewer = draw(st.lists(parts, max_size=6, unique=True))
    more = draw(st.lists(parts, min_size=1, max_size=6, unique=True))
    return fabric, sorted(fewer), sorted(set(fewer) | set(more))


@settings(max_examples=25, deadline=None)
@given(gpu_losses())
@example(("vr-nvl72", [], ["gpu07"]))
def test_losing_more_gpus_never_raises_decode_or_reaches_further(case):
    """A smaller group used to run tensor parallelism over all its GPUs (TEP7 on the 7 left
    over), which reached 0.5 tokens/s per user further with a GPU out than without."""
    fabric, fewer, more = case
    a, _ = _curve(fabric, fewer)
    b, _ = _curve(fabric, more)
    reached = np.isfinite(b)
    assert not (reached & ~np.isfinite(a)).any()
    assert (b[reached] <= a[reached] * (1 + 1e-9)).all()


@settings(max_examples=25, deadline=None)
@given(losses())
def test_a_faults_cost_moves_at_most_5_percent_per_2_tokens_per_user(case):
    fabric, _, fail = case
    fs = _frontiers(fabric, fail)
    sc, hl = fs["scenario"], fs["healthy"]
    here, healthy = sc.tokens_per_s_per_gpu, hl.tokens_per_s_per_gpu
    # wherever the healthy rack decodes at least 1% of its peak: beyond, at the last few
    # tokens/s per user a deployment reaches, both curves fall by tens of % a grid step and a
    # share of what is left there says nothing about the fabric
    ok = np.isfinite(healthy) & (healthy >= 0.01 * np.nanmax(healthy))
    cost = np.where(np.isfinite(here), 1 - here / np.where(ok, healthy, 1.0), 1.0)
    both = ok[1:] & ok[:-1]  # neighbours on the grid, 2 tokens/s per user apart
    # One step may jump, and the page says why: where the fault's best deployment changes to
    # one whose groups leave a different number of the GPUs in service idle. With 67 GPUs in
    # service the elastic EP67 group uses them all; at its end (near 180 tokens/s per user)
    # both racks hand over to TEP8, whose groups of 8 leave 3 idle, and the cost
    # steps from EP67's (5.9%) to TEP8's (11.1%) within one grid step, because an EP curve
    # falls by tens of % a step at its end (docs/MODEL.md). The step is excluded only where the page's line for that
    # change of deployment says how many GPUs its groups leave idle.
    idle = np.array([-1 if (n := sc.idle_at(i)) is None else n for i in range(len(sc.x))])
    strands = (idle[1:] != idle[:-1]) & (idle[1:] >= 0) & (idle[:-1] >= 0)
    lines = {c["tokens_per_s_per_user"]: c["line"] for c in deployment_changes(sc)}
    for i in np.flatnonzero(strands & both):
        line = lines[round(float(sc.x[i + 1]), 2)]  # the change is named where it happens
        assert (f"leave {idle[i + 1]} of the" in line) == (idle[i + 1] > 0), line
    steps = np.abs(np.diff(cost))[both & ~strands]
    assert steps.size and steps.max() <= 0.05, float(steps.max())


STRANDS = ["gpu19-st2.sw0", "gpu31-st1.sw0", "gpu33-st5.sw1", "gpu36-st6.sw1", "gpu51-st7.sw1"]


def test_the_one_step_over_5_percent_is_tep8_leaving_gpus_idle():
    """The property's one exception, shown: five links out on gb200 (no reroute) take five
    GPUs out; the 67 left serve as EP67 elastic up to its end (178 tokens/s per user), then
    TEP8, whose groups of 8 leave 3 idle, and the fault's cost steps by more than 5% there,
    which the page says."""
    fs = _frontiers("gb200-nvl72", STRANDS)
    sc, hl = fs["scenario"], fs["healthy"]
    labels = [d.label() if (d := sc.deployment_at(j)) else "" for j in range(len(sc.x))]
    i = next(
        j for j in range(len(labels) - 1) if labels[j][:4] == "EP67" and "TEP8" in labels[j + 1]
    )
    assert 150 <= sc.x[i] <= 200  # at the high end, where EP groups reach no further
    cost = [1 - sc.tokens_per_s_per_gpu[j] / hl.tokens_per_s_per_gpu[j] for j in (i, i + 1)]
    assert sc.deployment_at(i).label().startswith("EP67") and sc.idle_at(i) == 0
    assert sc.deployment_at(i + 1).label().startswith("TEP8") and sc.idle_at(i + 1) == 3
    assert cost[1] - cost[0] > 0.05 and abs(cost[1] - 8 / 72) < 0.001  # 64 of 72 GPUs serve
    at = round(float(sc.x[i + 1]), 2)
    line = next(c["line"] for c in deployment_changes(sc) if c["tokens_per_s_per_user"] == at)
    assert line.endswith("its groups leave 3 of the 67 GPUs in service idle")


def test_every_change_of_deployment_is_named_with_its_why():
    """deployment_changes lists each point where a frontier's choice changes; fault_changes
    covers each point where the fault's choice differs from the healthy rack's, and says when
    the healthy EP size no longer fits (68 GPUs hold no EP72 group)."""
    fs = frontiers(assess(parse_query("fail=ct02").scenario))
    sc, hl = fs["scenario"], fs["healthy"]
    deps = [sc.deployment_at(i) for i in range(len(sc.x))]
    moved = {
        round(float(sc.x[i]), 2)
        for i in range(1, len(deps))
        if deps[i] and deps[i - 1] and deps[i] != deps[i - 1]
    }
    changes = deployment_changes(sc)
    assert {c["tokens_per_s_per_user"] for c in changes} == moved
    assert all(c["line"].endswith(words.DEPLOYMENT_WHY[c["why"]]) for c in changes)
    runs = fault_changes(sc, hl)
    covered = set()
    for r in runs:
        covered |= {
            x for x in sc.x if r["tokens_per_s_per_user"] <= x <= r["to_tokens_per_s_per_user"]
        }
        if r["healthy"].startswith("EP72"):  # 68 GPUs: EP72's ranks on the 68 stand in
            assert r["why"] != "fits", r
            assert (r["why"] == "elastic") == (r["here"] == "EP68 elastic" + r["healthy"][4:]), r
    differ = {
        float(x)
        for i, x in enumerate(sc.x)
        if sc.deployment_at(i)
        and hl.deployment_at(i)
        and sc.deployment_at(i) != hl.deployment_at(i)
    }
    assert differ and differ <= {float(x) for x in covered}
