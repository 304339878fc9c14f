"""Which DCGM release each counter name the twin exports comes from, and how to spell it.

One scrape of the twin carries names from three DCGM naming generations (issue 29): the
per-link fields 1525-1529 exist only from DCGM 4.6.0; the per-GPU sums keep the names DCGM
used up to 4.5.x (`..._COUNT_TOTAL`, `NVLINK_BANDWIDTH_TOTAL`), which 4.6.0 keeps as
deprecated aliases; the NVSwitch fields use 4.6.0's names (`..._ERROR_TOTAL`), which up to
4.5.x were `..._ERRORS`. Every row here says, for one name, its field id, the first release
that spells it so, DCGM 4.6.0's own spelling and the one dcgm-exporter uses today (its newest
release is built on DCGM 4.5.3, so it has the pre-4.6 names and no per-link field 1525-1529).

Sources [V], read at the tags named:
- https://github.com/NVIDIA/DCGM/blob/v4.6.0/dcgmlib/dcgm_fields.h (and the same file at
  v4.5.3, v4.5.0, v4.4.2 and v3.3.9 for when each spelling appears; 4.6.0 lists the old
  names as "Deprecated: renamed per DCGM Field Naming Standard")
- https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv (the NVLink
  section: NVLINK_BANDWIDTH_TOTAL on, the four `_COUNT_TOTAL` sums commented out) and its
  newest release tag, 4.5.3-4.8.2 (DCGM 4.5.3, dcgm-exporter 4.8.2)

`/metrics?...&names=dcgm-exporter` (or `names=dcgm-4.6`) writes every name in that spelling;
the importers read any of the three (`canonical`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from model.telemetry.fields import (
    BANDWIDTH,
    BER,
    CRC_DATA,
    CRC_FLIT,
    GPU_TOTALS,
    HEALTH_MASK,
    HEALTH_SUMMARY,
    LINK_STATE,
    PORT_CRC,
    PORT_FLIT,
    PORT_RECOVERY,
    PORT_REPLAY,
    PORT_STATUS,
    PORT_TX,
    RECOVERY,
    REPLAY,
    lane_crc_name,
)

DCGM_LATEST = "4.6.0"  # 2026-07-06, the newest DCGM release read
EXPORTER_RELEASE = "4.5.3-4.8.2"  # 2026-05-06: dcgm-exporter 4.8.2 on DCGM 4.5.3
TWIN, EXPORTER, DCGM46 = "twin", "dcgm-exporter", "dcgm-4.6"
SPELLINGS = (TWIN, EXPORTER, DCGM46)
_D = "DCGM_FI_DEV_"
LANE_IDS = (809, 810, 811, 812, 817, 818, 819, 820)  # lanes 0-7 (dcgm_fields.h)


@dataclass(frozen=True)
class FieldName:
    """One exported name: its DCGM field id (None: not a DCGM field), the first DCGM release
    that spells it so, DCGM 4.6.0's own spelling and dcgm-exporter's today (None: that
    release has no such field)."""

    name: str
    field_id: int | None
    since: str
    dcgm_46: str
    exporter: str | None
    note: str = ""

    def spelled(self, spelling: str) -> str:
        """This name in a spelling of SPELLINGS (a field dcgm-exporter lacks keeps 4.6.0's)."""
        if spelling == DCGM46:
            return self.dcgm_46
        if spelling == EXPORTER:
            return self.exporter or self.dcgm_46
        return self.name

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "field_id": self.field_id,
            "since": self.since,
            "dcgm_4_6": self.dcgm_46,
            "dcgm_exporter": self.exporter,
            "note": self.note,
        }


_NEW = "new in DCGM 4.6.0, keyed by a DCGM_FE_LINK entity: no earlier name; dcgm-exporter "
_PER_LINK = _NEW + f"{EXPORTER_RELEASE} cannot export it"
_OLD_SUM = "DCGM 4.6.0 keeps it as a deprecated alias"


def _per_link(name: str, fid: int) -> FieldName:
    return FieldName(name, fid, DCGM_LATEST, name, None, _PER_LINK)


def _gpu_sum(metric: str, fid: int, new: str) -> FieldName:
    """A per-GPU sum under its pre-4.6 name (dcgm-exporter's), renamed in 4.6.0."""
    return FieldName(GPU_TOTALS[metric], fid, "3.2.5 or earlier", new, GPU_TOTALS[metric], _OLD_SUM)


def _switch(name: str, fid: int, old: str) -> FieldName:
    """An NVSwitch port field under 4.6.0's name (`old` before it)."""
    return FieldName(name, fid, DCGM_LATEST, name, old, f"{old} up to DCGM 4.5.x")


def _rows() -> tuple[FieldName, ...]:
    lanes = tuple(
        _switch(lane_crc_name(c), fid, f"{_D}NVSWITCH_LINK_CRC_ERRORS_LANE{c}")
        for c, fid in enumerate(LANE_IDS)
    )
    return (
        _per_link(CRC_FLIT, 1525),
        _per_link(CRC_DATA, 1526),
        _per_link(REPLAY, 1527),
        _per_link(RECOVERY, 1528),
        _per_link(BANDWIDTH, 1529),
        FieldName(LINK_STATE, 1508, "4.5.0", LINK_STATE, LINK_STATE, "a DCGM_FE_LINK field"),
        FieldName(
            BER,
            None,
            "NVML",
            BER,
            None,
            f"NVML's per-link field; DCGM's 1217 is {_D}NVLINK_COUNT_EFFECTIVE_BER (4.2-4.5), "
            f"{_D}NVLINK_EFFECTIVE_BER_RAW in 4.6.0",
        ),
        _gpu_sum(CRC_FLIT, 409, f"{_D}NVLINK_CRC_FLIT_ERROR_TOTAL"),
        _gpu_sum(CRC_DATA, 419, f"{_D}NVLINK_CRC_DATA_ERROR_TOTAL"),
        _gpu_sum(REPLAY, 429, f"{_D}NVLINK_REPLAY_ERROR_TOTAL"),
        _gpu_sum(RECOVERY, 439, f"{_D}NVLINK_RECOVERY_ERROR_TOTAL"),
        _gpu_sum(BANDWIDTH, 449, f"{_D}NVLINK_THROUGHPUT_TOTAL"),
        FieldName(HEALTH_MASK, 174, "4.4.2", HEALTH_MASK, HEALTH_MASK),
        FieldName(HEALTH_SUMMARY, 175, DCGM_LATEST, HEALTH_SUMMARY, None, "new in 4.6.0"),
        _switch(PORT_FLIT, 786, f"{_D}NVSWITCH_LINK_FLIT_ERRORS"),
        _switch(PORT_CRC, 787, f"{_D}NVSWITCH_LINK_CRC_ERRORS"),
        _switch(PORT_REPLAY, 784, f"{_D}NVSWITCH_LINK_REPLAY_ERRORS"),
        _switch(PORT_RECOVERY, 785, f"{_D}NVSWITCH_LINK_RECOVERY_ERRORS"),
        FieldName(PORT_TX, 780, "3.2.5 or earlier", PORT_TX, PORT_TX),
        FieldName(PORT_STATUS, 870, "3.2.5 or earlier", PORT_STATUS, PORT_STATUS),
        *lanes,
    )


# --- NVLink 5's count family (DCGM fields 1200-1219, 1404-1419) -----------------------------
# GB200 and later nodes export them; "NVLink5+ only. Returns aggregate value across all
# links" (dcgm_fields.h, 4.5.3 and 4.6.0): every one is a per-GPU figure, none per link.
# DCGM 4.0.0 has 1200-1215; release 4.2, patch 3, adds 1216-1219 and the FEC bins; 4.6.0 renames
# 1200-1219 (the old names kept as deprecated aliases). Each row: the name dcgm-exporter
# 4.5.3-4.8.2 spells (the 4.0-4.5 one), its field, 4.6.0's name, what the import reads it as
# (None: not used) and why.
COUNT_RECOVERY, COUNT_DOWN, COUNT_ERRORS = "recoveries", "failed recoveries", "errors"
_C = f"{_D}NVLINK_COUNT_"
_TRAFFIC = "traffic, not a fault sign (the twin reads no per-GPU traffic from a file)"
_GPU_BER = (
    "the BER after FEC over all the GPU's links: one bad link's is diluted among them, so it "
    "is not held to the per-link threshold (the errors it counts, 1219, are read)"
)
_CORRECTED = "symbol errors FEC corrected: the twin models the errors left after FEC only"


@dataclass(frozen=True)
class CountField:
    """One field of NVLink 5's count family: what the import reads it as, and why."""

    name: str
    field_id: int
    dcgm_46: str
    reads_as: str | None
    why: str


def _count_rows() -> tuple[CountField, ...]:
    rows = [
        ("TX_PACKETS", 1200, "TX_PACKET_TOTAL", None, _TRAFFIC),
        ("TX_BYTES", 1201, "TX_BYTES_TOTAL", None, _TRAFFIC),
        ("RX_PACKETS", 1202, "RX_PACKET_TOTAL", None, _TRAFFIC),
        ("RX_BYTES", 1203, "RX_BYTES_TOTAL", None, _TRAFFIC),
        ("RX_MALFORMED_PACKET_ERRORS", 1204, "RX_PACKET_MALFORMED_TOTAL", COUNT_ERRORS, ""),
        ("RX_BUFFER_OVERRUN_ERRORS", 1205, "RX_PACKET_DROPPED_TOTAL", COUNT_ERRORS, ""),
        ("RX_ERRORS", 1206, "RX_ERROR_TOTAL", COUNT_ERRORS, ""),
        ("RX_REMOTE_ERRORS", 1207, "RX_REMOTE_ERROR_TOTAL", COUNT_ERRORS, ""),
        ("RX_GENERAL_ERRORS", 1208, "RX_GENERAL_ERROR_TOTAL", COUNT_ERRORS, ""),
        ("LOCAL_LINK_INTEGRITY_ERRORS", 1209, "INTEGRITY_ERROR_TOTAL", COUNT_ERRORS, ""),
        ("TX_DISCARDS", 1210, "COUNT_TX_DISCARDS", COUNT_ERRORS, ""),
        ("LINK_RECOVERY_SUCCESSFUL_EVENTS", 1211, "RECOVERY_SUCCESSFUL_TOTAL", COUNT_RECOVERY, ""),
        ("LINK_RECOVERY_FAILED_EVENTS", 1212, "RECOVERY_FAILED_TOTAL", COUNT_DOWN, ""),
        ("LINK_RECOVERY_EVENTS", 1213, "RECOVERY_EVENT_TOTAL", COUNT_RECOVERY, ""),
        ("RX_SYMBOL_ERRORS", 1214, "RX_SYMBOL_ERROR_TOTAL", None, _CORRECTED),
        ("SYMBOL_BER", 1215, "SYMBOL_BER_RAW", None, "a raw encoding of the pre-FEC BER"),
        ("SYMBOL_BER_FLOAT", 1216, "SYMBOL_BER_RATIO", None, "the pre-FEC BER: " + _CORRECTED),
        ("EFFECTIVE_BER", 1217, "EFFECTIVE_BER_RAW", None, "a raw encoding (1218 decodes it)"),
        ("EFFECTIVE_BER_FLOAT", 1218, "EFFECTIVE_BER_RATIO", None, _GPU_BER),
        ("EFFECTIVE_ERRORS", 1219, "EFFECTIVE_ERROR_TOTAL", COUNT_ERRORS, ""),
    ]
    out = [CountField(_C + n, fid, f"{_D}NVLINK_{new}", use, why) for n, fid, new, use, why in rows]
    out[10] = replace(out[10], dcgm_46=_C + "TX_DISCARDS")  # 4.6.0 keeps its name
    out += [
        CountField(f"{_C}FEC_HISTORY_{b}", 1404 + b, f"{_C}FEC_HISTORY_{b}", None, _CORRECTED)
        for b in range(16)
    ]
    return tuple(out)


COUNT_FAMILY: tuple[CountField, ...] = _count_rows()


NAMES: tuple[FieldName, ...] = _rows()
BY_NAME: Mapping[str, FieldName] = MappingProxyType({r.name: r for r in NAMES})
# Any spelling of a name back to the twin's own (what the importers read).
_CANONICAL: Mapping[str, str] = MappingProxyType(
    {x: r.name for r in NAMES for x in (r.name, r.dcgm_46, r.exporter) if x is not None}
    | {x: r.name for r in COUNT_FAMILY for x in (r.name, r.dcgm_46)}
)
COUNT_BY_NAME: Mapping[str, CountField] = MappingProxyType({r.name: r for r in COUNT_FAMILY})


def spelled(name: str, spelling: str = TWIN) -> str:
    """A name the twin exports, in a spelling of SPELLINGS (a project name is unchanged)."""
    row = BY_NAME.get(name)
    return name if row is None else row.spelled(spelling)


def spellings(name: str) -> tuple[str, ...]:
    """Every spelling of a name the twin reads (its own first): what a query asks for."""
    return (name, *sorted({x for x, c in _CANONICAL.items() if c == name and x != name}))


def canonical(name: str) -> str:
    """The twin's own name for a name in any spelling (others unchanged)."""
    return _CANONICAL.get(name, name)


def names_json() -> dict:
    """Every DCGM or NVML name the twin exports, with its generation (the API's answer)."""
    return {
        "dcgm_latest": DCGM_LATEST,
        "dcgm_exporter_release": EXPORTER_RELEASE,
        "spellings": list(SPELLINGS),
        "names": [r.to_json() for r in NAMES],
    }


def markdown() -> str:
    """NAMES as docs/TELEMETRY.md's table: each name, its field, its generation, the others."""
    head = "| name the twin exports | field | spelled so since DCGM | DCGM 4.6.0 | dcgm-exporter "
    lines = [head + f"{EXPORTER_RELEASE} |", "|---|---|---|---|---|"]
    for r in NAMES:
        new = "same" if r.dcgm_46 == r.name else f"`{r.dcgm_46}`"
        if r.exporter is None:
            old = "none" if r.field_id is None else f"none (DCGM {r.since} only)"
        else:
            old = "same" if r.exporter == r.name else f"`{r.exporter}`"
        fid = "NVML" if r.field_id is None else str(r.field_id)
        lines.append(f"| `{r.name}` | {fid} | {r.since} | {new} | {old} |")
    return "\n".join(lines)


def count_markdown() -> str:
    """COUNT_FAMILY as docs/TELEMETRY.md's table: each field, its 4.6.0 name, how it is read."""
    lines = [
        "| dcgm-exporter 4.5.3-4.8.2 name (DCGM 4.0-4.5) | field | DCGM 4.6.0 | the import reads it as |",
        "|---|---|---|---|",
    ]
    for r in COUNT_FAMILY:
        new = "same" if r.dcgm_46 == r.name else f"`{r.dcgm_46}`"
        use = f"the GPU's {r.reads_as}" if r.reads_as else f"not used: {r.why}"
        lines.append(f"| `{r.name}` | {r.field_id} | {new} | {use} |")
    return "\n".join(lines)
