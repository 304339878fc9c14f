"""nvidia-smi's NVLink views, written from a snapshot and read back into one.

Formats (as nvidia-smi prints them; docs/TELEMETRY.md cites the public samples):
- `nvidia-smi nvlink --status`: a header `GPU <i>: <name> (UUID: <uuid>)`, then one line a
  link, `\t Link <n>: <rate> GB/s` when ACTIVE or `\t Link <n>: <inactive>`;
- `nvidia-smi nvlink -e`: the same header, then `\t Link <n>: Replay Errors: <v>`,
  `Recovery Errors: <v>` and `CRC Errors: <v>` a link;
- the Fabric section of `nvidia-smi -q`: per GPU (`GPU <pci bus id>`), `State`, `Status`,
  `CliqueId`, `ClusterUUID`, and under `Health` the `Summary`, `Bandwidth` (Full /
  Degraded), `Route Recovery in progress`, `Route Unhealthy`, `Access Timeout Recovery`.
One host prints GPUs 0..3; a file of several hosts' outputs one after another is read as
the compute trays in that order (a GPU index that does not rise starts the next tray).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from model.fabric.presets import FABRICS, Fabric
from model.telemetry.fields import (
    ACTIVE,
    BER,
    CRC_DATA,
    CRC_FLIT,
    INACTIVE,
    MASK_FALSE,
    MASK_SHIFTS,
    MASK_TRUE,
    RECOVERY,
    REPLAY,
    SUMMARY_NAMES,
)
from model.telemetry.health import FabricHealth
from model.telemetry.snapshot import Counters

GPU_NAMES = {"vr-nvl72": "NVIDIA Rubin", "gb200-nvl72": "NVIDIA GB200"}
HEADER = re.compile(r"GPU (\d+): (.*?)(?: \(UUID: ([^)]*)\))?\s*$")
PCI_HEADER = re.compile(r"GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")
LINK = re.compile(r"\s*Link (\d+): (.*?)\s*$")
ERRORS = re.compile(r"(Replay|Recovery|CRC) Errors: (\d+)")
RATE = re.compile(r"(\d+(?:\.\d+)?) GB/s")
FIELD = re.compile(r"\s+([A-Za-z][A-Za-z ]*?)\s*:\s*(.*?)\s*$")
HEALTH_ROWS = {
    "Bandwidth": "DEGRADED_BW",
    "Route Recovery in progress": "ROUTE_RECOVERY",
    "Route Unhealthy": "ROUTE_UNHEALTHY",
    "Access Timeout Recovery": "ACCESS_TIMEOUT_RECOVERY",
}
FABRIC_STATES = {"Not Supported": 0, "Not Started": 1, "In Progress": 2, "Completed": 3}


def _uuid(g: int) -> str:
    return f"GPU-{g:08x}-0000-4000-8000-000000000000"


def _headers(snap: Counters):
    f = snap.fabric
    for g in range(f.gpus):
        yield (
            g,
            f"GPU {g % f.gpus_per_tray}: {GPU_NAMES.get(f.key, 'NVIDIA GPU')} (UUID: {_uuid(g)})",
        )


def nvlink_status(snap: Counters) -> str:
    """`nvidia-smi nvlink --status` of every compute tray, one after another."""
    f = snap.fabric
    rate = f"{f.link_gbs_bidir / 2:g} GB/s"  # one way, as nvidia-smi shows it
    out = []
    for g, head in _headers(snap):
        out.append(head)
        for p in range(f.planes):
            out.append(f"\t Link {p}: {rate if snap.state[g, p] == ACTIVE else '<inactive>'}")
    return "\n".join(out) + "\n"


def nvlink_errors(snap: Counters) -> str:
    """`nvidia-smi nvlink -e` (the GPU side's replay, recovery and CRC counters)."""
    f = snap.fabric
    if snap.link is None:
        raise ValueError("fine-grained link telemetry is off: nvidia-smi nvlink -e has nothing")
    crc = snap.link[CRC_FLIT] + snap.link[CRC_DATA]
    out = []
    for g, head in _headers(snap):
        out.append(head)
        for p in range(f.planes):
            out += [
                f"\t Link {p}: Replay Errors: {int(snap.link[REPLAY][g, p])}",
                f"\t Link {p}: Recovery Errors: {int(snap.link[RECOVERY][g, p])}",
                f"\t Link {p}: CRC Errors: {int(crc[g, p])}",
                "",
            ]
    return "\n".join(out) + "\n"


def fabric_query(snap: Counters) -> str:
    """The Fabric section of `nvidia-smi -q` for every GPU."""
    f, h = snap.fabric, snap.health
    states = {v: k for k, v in FABRIC_STATES.items()}
    out = ["==============NVSMI LOG=============="]
    for g in range(f.gpus):
        tray, local = divmod(g, f.gpus_per_tray)
        out.append(f"GPU 00000000:{tray + 1:02X}:{local:02X}.0")
        out.append("    Fabric")
        there = int(h.state[g]) == 3
        out.append(f"        State                             : {states[int(h.state[g])]}")
        out.append(f"        Status                            : {'Success' if there else 'N/A'}")
        out.append(f"        CliqueId                          : {1 if there else 'N/A'}")
        out.append(
            "        ClusterUUID                       : 00000000-0000-0000-0000-000000000001"
        )
        out.append("        Health")
        summ = SUMMARY_NAMES.get(int(h.summary[g]), "N/A")
        out.append(f"            Summary                       : {summ}")
        for row, cond in HEALTH_ROWS.items():
            v = int(h.condition(cond)[g])
            if cond == "DEGRADED_BW":
                text = {MASK_TRUE: "Degraded", MASK_FALSE: "Full"}.get(v, "N/A")
            else:
                text = {MASK_TRUE: "True", MASK_FALSE: "False"}.get(v, "N/A")
            out.append(f"            {row:<30}: {text}")
    return "\n".join(out) + "\n"


@dataclass
class Parsed:
    """What an nvidia-smi file said: per GPU (in order) its links' states and counters, and
    its fabric health; the problems by line."""

    state: dict[tuple[int, int], int] = field(default_factory=dict)
    errors: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)
    health: dict[int, dict[str, str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    gpus: int = 0


def looks_like(lines: list[str]) -> bool:
    """nvidia-smi output, not a Prometheus scrape: its first meaningful line."""
    for ln in lines:
        s = ln.strip()
        if s:
            return bool(HEADER.match(s) or PCI_HEADER.match(s) or s.startswith("====="))
    return False


def parse(lines: list[str]) -> Parsed:
    """Read nvlink --status, nvlink -e and -q's Fabric section (any mix, in any order)."""
    out = Parsed()
    gpt = FABRICS["vr-nvl72"].gpus_per_tray  # 4 GPUs a compute tray on both NVL72 fabrics
    blocks: list[dict] = []  # one per 'GPU <i>:' header: its index and its links' lines
    block: dict | None = None
    pci = -1
    in_fabric = False
    for n, raw in enumerate(lines, start=1):
        s = raw.rstrip()
        if not s.strip() or s.strip().startswith("====="):
            continue
        m = HEADER.match(s.strip())
        pm = PCI_HEADER.match(s.strip())
        if m:
            local = int(m.group(1))
            block = None
            if local >= gpt:
                out.problems.append(f"line {n}: GPU {local}: expected 0..{gpt - 1} on one host")
                continue
            block = {"local": local, "state": {}, "errors": {}}
            blocks.append(block)
            in_fabric = False
            continue
        if pm:
            pci += 1  # -q lists the GPUs in order
            block, in_fabric = None, False
            continue
        lm = LINK.match(s)
        if lm and block is not None:
            link, rest = int(lm.group(1)), lm.group(2).strip()
            em = ERRORS.fullmatch(rest)
            rm = RATE.fullmatch(rest)
            if em:
                block["errors"].setdefault(link, {})[em.group(1)] = int(em.group(2))
            elif rest == "<inactive>":
                block["state"][link] = INACTIVE
            elif rm:
                block["state"][link] = ACTIVE if float(rm.group(1)) > 0 else INACTIVE
            else:
                out.problems.append(
                    f"line {n}: expected '<rate> GB/s', '<inactive>' or '<kind> Errors: <n>' "
                    f"after 'Link {link}:', got '{rest[:40]}'"
                )
            continue
        fm = FIELD.match(s)
        if fm and pci >= 0 and block is None:
            key, val = fm.group(1), fm.group(2)
            if key == "Fabric":
                in_fabric = True
            elif in_fabric and (key in HEALTH_ROWS or key in ("State", "Status", "Summary")):
                out.health.setdefault(pci, {})[key] = val
            continue
        if s.strip() in ("Fabric", "Health") and pci >= 0:
            in_fabric = in_fabric or s.strip() == "Fabric"
            continue
        out.problems.append(
            f"line {n}: expected 'GPU <i>: ...' then 'Link <n>: ...', or nvidia-smi -q's "
            f"'GPU <bus id>' then '<field> : <value>' rows, got '{s.strip()[:40]}'"
        )
    # Each kind of block (states, counters) in order: a GPU index that does not rise starts
    # the next host, which is the next compute tray.
    for kind, dest in (("state", out.state), ("errors", out.errors)):
        tray, last = 0, None
        for b in (x for x in blocks if x[kind]):
            if last is not None and b["local"] <= last:
                tray += 1
            last = b["local"]
            g = tray * gpt + b["local"]
            out.gpus = max(out.gpus, g + 1)
            for link, v in b[kind].items():
                dest[(g, link)] = v
    out.gpus = max(out.gpus, pci + 1)
    return out


def _fabric(parsed: Parsed) -> Fabric | None:
    links = {k[1] for k in (*parsed.state, *parsed.errors)}
    n = max(links) + 1 if links else 0
    return {36: FABRICS["vr-nvl72"], 18: FABRICS["gb200-nvl72"]}.get(n)


def health_of(parsed: Parsed, f: Fabric) -> FabricHealth | None:
    """Each GPU's fabric health as -q printed it (None when the file has no Fabric section)."""
    if not parsed.health:
        return None
    g_n = f.gpus
    state = np.ones(g_n, np.int8) * 0
    mask = np.zeros(g_n, np.int64)
    summary = np.zeros(g_n, np.int8)
    names = {v: k for k, v in SUMMARY_NAMES.items()}
    for g, rows in parsed.health.items():
        if g >= g_n:
            continue
        state[g] = FABRIC_STATES.get(rows.get("State", ""), 0)
        summary[g] = names.get(rows.get("Summary", ""), 0)
        for row, cond in HEALTH_ROWS.items():
            v = rows.get(row, "N/A")
            bit = (
                MASK_TRUE
                if v in ("Degraded", "True")
                else MASK_FALSE
                if v in ("Full", "False")
                else 0
            )
            mask[g] |= bit << MASK_SHIFTS[cond]
    return FabricHealth(state, mask, summary)


def snapshot(parsed: Parsed, messages: list[str]) -> Counters:
    """The snapshot an nvidia-smi file describes; ValueError when no fabric can be told."""
    f = _fabric(parsed)
    if f is None and parsed.health:
        f = FABRICS["vr-nvl72"] if parsed.gpus > 0 else None
        messages.append(
            "no link lines: the fabric is taken as vr-nvl72; only fabric health is read"
        )
    if f is None:
        raise ValueError(
            "cannot tell the fabric: expected 36 links a GPU (vr-nvl72) or 18 (gb200-nvl72) "
            "in 'Link <n>:' lines"
        )
    g_n, p_n, c_n = f.gpus, f.planes, f.cables_per_link
    state = np.full((g_n, p_n), ACTIVE, np.int8)
    seen_state = False
    for (g, p), v in parsed.state.items():
        if g < g_n and p < p_n:
            state[g, p] = v
            seen_state = True
    if not seen_state:
        messages.append("no 'nvidia-smi nvlink --status' lines: every link taken as ACTIVE")
    elif len(parsed.state) < g_n * p_n:
        messages.append(
            f"{g_n * p_n - len(parsed.state)} of {g_n * p_n} links have no state in the file "
            f"({parsed.gpus} GPUs of {g_n}): taken as ACTIVE"
        )
    telemetry = bool(parsed.errors)
    rec = np.zeros((g_n, p_n), np.int64)
    for (g, p), v in parsed.errors.items():
        if g < g_n and p < p_n:
            rec[g, p] = v.get("Recovery", 0)
    if telemetry:
        messages.append(
            "nvidia-smi gives no BER and no lane view: degrading links are read from their "
            "recovery counters alone, and no cable can be told"
        )
    health = health_of(parsed, f)
    return Counters(
        fabric=f,
        scenario_key="imported",
        t_s=0.0,
        onset_s=0.0,
        telemetry=telemetry,
        state=state,
        planned=np.zeros(p_n, bool),
        health=health,
        link={RECOVERY: rec, BER: np.full((g_n, p_n), np.nan)} if telemetry else None,
        cable={BER: np.full((g_n, p_n, c_n), np.nan)} if telemetry else None,
        cable_state=np.repeat(state[:, :, None], c_n, axis=2) if telemetry else None,
        stale=np.zeros(p_n, bool) if telemetry else None,
        last_seen_s=np.zeros(p_n) if telemetry else None,
    )
