"""A domain's events in plain words: each fault as the domain says it (a rack part as one rack
says it, model/events.py, prefixed by its rack), what the domain did, and where it stands."""

from __future__ import annotations

from model.events import fault_sentence
from model.ids import link_id
from model.kinds import DomainKind, Feature, JobState
from model.multirack import words
from model.multirack.assess import DomainAssessment
from model.multirack.domains import DomainPart, l2_tray_chips, l2_trays, rack_id


def fault_line(a: DomainAssessment, tok: str, part: DomainPart) -> str:
    """One fault in plain words: a rack part as one rack says it, prefixed by its rack."""
    st, d = a.state, a.fabric
    k = part.kind
    if part.local is not None:
        rs = st.racks[part.rack]
        if rs is None:
            return words.gone_with_rack(tok, rack_id(part.rack))
        return f"{rack_id(part.rack)}: " + fault_sentence(rs.state, part.local, "")
    if k is DomainKind.RACK:
        return words.rack_fault(tok, d.rack.gpus)
    if k is DomainKind.L2_CHIP:
        p = part.l2[0]
        return words.l2_chip_fault(tok, p, int((~st.l2_failed[p]).sum()), d.l2_per_plane)
    if k is DomainKind.L2_TRAY:
        planes = ", ".join(str(p) for p, _ in l2_tray_chips(d, part.l2_tray))
        return words.l2_tray_fault(tok, planes, d.l2_per_plane)
    return words.trunk_fault(tok, d.l2_per_plane)


def events(a: DomainAssessment) -> list[str]:
    """Ordered sentences: what failed, what the domain did, and where it stands now."""
    st, d = a.state, a.fabric
    out = [fault_line(a, tok, part) for tok, part in st.failed]
    if st.maintenance:
        out.append(words.MAINTENANCE_L2 if st.l2_maintenance else _rack_window())
    n_trays = d.racks * d.rack.switch_trays + l2_trays(d)
    for tray in st.updating:
        out.append(words.update_sentence(tray, n_trays if st.rolling else None))
    for tray in st.update_blocked:
        out.append(f"{tray} update deferred: no routing authority can drain its planes")
    c = st.control
    if c.state is not c.state.HEALTHY or c.controllers_down:
        out.append(f"control plane {c.state}: {c.explanation}")
    seen = Feature.TELEMETRY in st.features
    for r, ra in enumerate(st.racks):
        if ra is None:
            continue
        for g, p in zip(*ra.state.flaky.nonzero(), strict=True):
            lk = f"{rack_id(r)}.{link_id(d.rack, int(g), int(p))}"
            out.append(f"{lk} degrading: " + ("flagged by telemetry" if seen else "unseen"))
    jb = a.job.to_json()
    if a.job.state is JobState.DEGRADED:
        out.append(f"job degraded: {jb['cause']}")
    elif not a.job.state.runs:
        out.append(f"job {jb['state']}: {jb['cause']}; restarts {jb['restart']}")
    bw = a.bandwidth
    parked = bw["per_gpu_tbs"]["parked"]
    aside = f" ({parked} parked)" if parked else ""
    out.append(
        f"now: {a.gpus_in_service} GPUs in service{aside}, worst GPU in a domain-wide all-to-all "
        f"{bw['all_to_all_per_gpu_tbs']:.4g} TB/s of {d.rack.gpu_tbs_bidir:.4g}, domain "
        f"{bw['aggregate_tbs']:.4g} TB/s; partition {a.partition.state} ({a.partition.mode} mode)"
    )
    return out


def _rack_window() -> str:
    return (
        "switch firmware update with in-service updates off: every rack and the L2 tier go "
        "into a maintenance window"
    )
