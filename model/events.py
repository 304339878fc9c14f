"""The scenario in plain words: one sentence per fault, update and consequence."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from model import words
from model.fabric.assess import Assessment
from model.fabric.presets import Fabric
from model.fabric.state import FabricState
from model.ids import Component, gpu_id, link_id
from model.kinds import ComponentKind as K
from model.kinds import ControlState, Feature, JobState


def _tbs(x: float) -> str:
    return f"{words.decimal(x)} TB/s"


def fault_sentence(st: FabricState, c: Component, alone: str) -> str:
    """What one failed part does to the fabric, in one sentence."""
    return _fault_sentence(st.fabric, c, alone)


@lru_cache(maxsize=8192)
def _fault_sentence(f: Fabric, c: Component, alone: str) -> str:
    """Memoised: a sentence depends only on the fabric and the part (a scenario of 50 faults
    wrote 50 of them on every evaluate)."""
    link = f.link_gbs_bidir / 1000.0
    full = f.gpu_tbs_bidir
    P = f.planes
    if c.kind in (K.CABLE, K.LINK):
        g = gpu_id(c.gpu)
        lk = c.link().id
        head = f"{c.id} failed: its link {lk} is down" if c.kind is K.CABLE else f"{lk} down"
        return f"{head}; {g} has {P - 1} of {P} planes, {_tbs(full - link)}{alone}"
    if c.kind is K.SWITCH_CHIP:
        return f"{c.id} lost: 1 of {P} planes down; every GPU at {_tbs(full - link)}{alone}"
    if c.kind is K.SWITCH_TRAY:
        k = f.chips_per_tray
        return (
            f"{c.id} lost: {k} of {P} planes down and its controller {c.id}.mc; every GPU at "
            f"{_tbs(full - k * link)}{alone}"
        )
    if c.kind is K.CONTROLLER:
        return f"{c.id} (management controller) lost: control plane only, data plane untouched"
    if c.kind is K.GPU:
        return f"{c.id} lost: its {P} links go with it; the other GPUs keep their bandwidth"
    first = (c.nums[0] - 1) * f.gpus_per_tray
    last = first + f.gpus_per_tray - 1
    return f"{c.id} lost: {gpu_id(first)}..{gpu_id(last)} gone with it"


def events(a: Assessment) -> list[str]:
    """Ordered sentences: what failed, what the fabric did, and where it stands now."""
    st, f, bw = a.state, a.fabric, a.bandwidth
    part, job = a.partition, a.job.to_json()
    only = len(st.failed) == 1 and not st.updating and not st.flaky.any()
    alone = "" if only else " (this fault alone)"
    out = [fault_sentence(st, c, alone) for c in st.failed]
    if st.maintenance:
        out.append(
            "switch firmware update with in-service updates off: the whole rack goes into a "
            "maintenance window"
        )
    for tr in st.updating if not st.maintenance else ():
        k = f.chips_per_tray
        roll = f" (rolling update: 1 of {f.switch_trays} trays at a time)" if st.rolling else ""
        out.append(
            f"st{tr} under in-service update: {k} of {f.planes} planes drained on purpose, "
            f"traffic moved to the others{roll}"
        )
    for tr in st.update_blocked:
        out.append(f"st{tr} update deferred: no routing authority can drain its planes")
    quiet = (ControlState.HEALTHY, ControlState.DISTRIBUTED)
    if st.control.state not in quiet or st.control.controllers_down:
        out.append(f"control plane {st.control.state}: {st.control.explanation}")
    flaky_links = [link_id(f, int(g), int(p)) for g, p in zip(*np.nonzero(st.flaky), strict=True)]
    for lk in flaky_links:
        if Feature.TELEMETRY in st.features:
            out.append(
                f"{lk} degrading: CRC and replay counters rising, link recoveries about 3 "
                "per 21 minutes; flagged by telemetry to drain before it fails"
            )
        else:
            out.append(
                f"{lk} degrading, unseen: without fine-grained telemetry only up/down is "
                "visible; it will be found when it fails, as an unplanned abort"
            )
    gated = bw["per_gpu_tbs"]["in_service_min"]
    if a.job.state is JobState.DEGRADED:
        out.append(f"job degraded: {job['cause']}")
    elif not a.job.state.runs:
        out.append(f"job {job['state']}: {job['cause']}; restarts {job['restart']}")
    parked = bw["per_gpu_tbs"]["parked"]
    aside = f" ({parked} parked)" if parked else ""
    out.append(
        f"now: {a.gpus_in_service} GPUs in service{aside}, worst GPU in service {_tbs(gated)} "
        f"of {_tbs(f.gpu_tbs_bidir)}, "
        f"rack {_tbs(bw['aggregate_tbs'])}; {words.partition_now(part.mode, part.state, part.headline)}"
    )
    return out
