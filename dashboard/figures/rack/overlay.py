"""What a scenario changes on the rack figure, as plain data and as a dash.Patch: the cable
overlays' y arrays, the base spine's colour, and the front view's colours and symbols."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from dash import Patch

from dashboard.figures.rack.figure import base_figure
from dashboard.figures.rack.geometry import (
    CABLE_LEVELS,
    CHIP_SYMBOL,
    DOWN_STATUSES,
    FAILED_SYMBOL,
    GPU_SYMBOL,
    LEADER_SYMBOL,
    LOSS_BANDS,
    MC_SYMBOL,
    PART_COLORS,
    PART_FAILED,
    PART_REROUTED,
    STATUS_COLORS,
    STATUSES,
    TRACES,
    down_width,
    geometry,
)
from dashboard.figures.rack.labels import (
    CABLE_LEVEL_WORDS,
    CABLE_STATE_WORDS,
    PART_STATE_WORDS,
    label,
    lost_words,
)
from dashboard.figures.rack.selection import selection_data
from dashboard.figures.rack.spine import segments_y
from model.assess import assess
from model.fabric.state import FabricState
from model.fabric.status import PART_STATUSES, RackStatus
from model.kinds import ComponentKind as K
from model.scenario import Scenario


def _status(scenario: Scenario) -> tuple[FabricState, RackStatus]:
    """The scenario's fabric state and every part's status, as the model gives them."""
    a = assess(scenario)
    return a.state, a.status


def loss_band(share: np.ndarray) -> np.ndarray:
    """int[...]: each lost share's band, its index in LOSS_BANDS."""
    bounds = np.array([b[0] for b in LOSS_BANDS[:-1]])
    return np.searchsorted(bounds, share, side="left")


def cable_statuses(scenario: Scenario) -> dict[str, np.ndarray]:
    """Cable indices (cable order of `geometry`) per status (model/fabric/status.py says
    what each means); every cable in exactly one."""
    status = _status(scenario)[1]
    return {name: status.cables(name) for name in STATUSES}


def _part_states(status: RackStatus) -> dict:
    """Per-part status codes (PART_*) for GPUs, chips, controllers and trays (rack order)."""
    return {
        "gpu": status.gpu,
        "chip": status.chip,
        "mc": status.controller,
        "ct": status.compute_tray,
        "st": status.switch_tray,
    }


def _colors(codes: np.ndarray, band: np.ndarray | None = None) -> list[str]:
    """Each part's colour by its state; a rerouted one (its GPU lost bandwidth) by how much
    it lost (`band`, an index in LOSS_BANDS a part), when given."""
    if band is None:
        return [PART_COLORS[i] for i in codes.tolist()]
    return [
        LOSS_BANDS[b][2] if i == PART_REROUTED else PART_COLORS[i]
        for i, b in zip(codes.tolist(), band.tolist(), strict=True)
    ]


def _symbols(codes: np.ndarray, normal: str) -> list[str]:
    return [FAILED_SYMBOL if i == PART_FAILED else normal for i in codes.tolist()]


@functools.lru_cache(maxsize=8)
def _cable_index(fabric_key: str) -> Mapping[str, int]:
    return MappingProxyType({cid: i for i, cid in enumerate(geometry(fabric_key).cable_ids)})


def _part_labels(
    scenario: Scenario,
    trace: str,
    codes: np.ndarray,
    kinds: list[K],
    mode: str,
    lost: np.ndarray | None = None,
) -> dict[str, Any]:
    """A front-view trace's hover labels, compact: {"codes": one character a part (48 + its
    index in words), "words": each distinct label (its state and what a click does)}. The
    browser writes each after what the part is (the trace's meta.hover, the base figure's).
    A rerouted part with its `lost` share given says how much of its bandwidth it lost."""
    geo = geometry(scenario.fabric)
    names = geo.point_ids[TRACES[trace]]
    shares = lost.tolist() if lost is not None else [None] * len(names)
    words: list[str] = []
    out = []
    for cid, kind, c, share in zip(names, kinds, codes.tolist(), shares, strict=True):
        state = PART_STATE_WORDS[c]
        if c == PART_REROUTED and share is not None:
            state = f"rerouted ({lost_words(share)})"
        text = label(scenario, cid, kind, state, c == PART_FAILED, mode)
        if text not in words:
            words.append(text)
        out.append(chr(48 + words.index(text)))
    return {"codes": "".join(out), "words": words}


def _cable_levels(st: FabricState, code: np.ndarray, band: np.ndarray) -> np.ndarray:
    """int8[N]: each cable's index in CABLE_LEVELS: its status, a rerouted one by its GPU's
    loss band."""
    f = st.fabric
    gpu_of = np.arange(f.cables) // (f.planes * f.cables_per_link)
    level = np.where(code >= 2, code + len(LOSS_BANDS) - 1, code).astype(np.int8)
    rerouted = code == STATUSES.index("rerouted")
    level[rerouted] = 1 + band[gpu_of[rerouted]]
    return level


def spell_part_labels(fabric_key: str, trace_index: int, part: dict[str, Any]) -> list[str]:
    """A front-view trace's hover labels spelled out from its compact ones: what each part
    is (the base figure's meta.hover), then its label."""
    base = base_figure(fabric_key)["data"][trace_index]["meta"]["hover"]
    codes = part["codes"]
    return [f"{what}<br>{part['words'][ord(c) - 48]}" for what, c in zip(base, codes, strict=True)]


def spelled(fabric_key: str, d: dict[str, Any]) -> dict[int, list[str]]:
    """label_data's compact labels spelled out, as trace index -> a hover label a point: the
    cable markers' (each its code's words, or its own for a cable the scenario names) and
    every front-view trace's."""
    named = d["named"]
    hits = [named.get(str(i)) or d["words"][ord(c) - 48] for i, c in enumerate(d["codes"])]
    parts = {int(t): spell_part_labels(fabric_key, int(t), p) for t, p in d["parts"].items()}
    return {d["hits"]: hits, **parts}


WHOLE = 400  # more changed labels than this in a trace: the whole array is sent, not each


def label_patch(fig: Any, cable_map: Any, now: dict, before: dict | None, cols: int) -> None:
    """Write the hover labels of `now` (label_data) on the rack figure and its cable map (a
    figure dict, or a Patch: then only the labels and cells that differ from `before`'s, the
    labels drawn; None: every one). The map's cells hold the cables' codes (its z) and
    labels, a row a GPU of `cols` cables."""
    fabric = now["fabric"]
    new = spelled(fabric, now)
    old = spelled(fabric, before) if before else {}
    codes = [ord(c) - 48 for c in now["codes"]]
    old_codes = before["codes"] if before else ""
    for t, labels in new.items():
        was = old.get(t)
        diff = [
            i
            for i, x in enumerate(labels)
            if was is None or was[i] != x or (t == now["hits"] and old_codes[i] != now["codes"][i])
        ]
        if len(diff) > WHOLE or was is None:
            fig["data"][t]["hovertext"] = labels
            if t == now["hits"]:
                rows = range(0, len(labels), cols)
                cable_map["data"][0]["z"] = [codes[k : k + cols] for k in rows]
                cable_map["data"][0]["text"] = [labels[k : k + cols] for k in rows]
            continue
        for i in diff:
            fig["data"][t]["hovertext"][i] = labels[i]
        if t == now["hits"]:
            _map_cells(cable_map["data"][0], diff, codes, labels, cols)


def _map_cells(cells: Any, diff: list[int], codes: list[int], labels: list[str], cols: int):
    """The map's cells of the cables `diff` on a Patch of its trace: a row (a GPU's cables)
    whole where a quarter of it changed or more (a GPU's loss changes its every cable), else
    cell by cell."""
    rows: dict[int, list[int]] = {}
    for i in diff:
        rows.setdefault(i // cols, []).append(i)
    for r, changed in rows.items():
        if len(changed) * 4 >= cols:
            cells["z"][r] = codes[r * cols : (r + 1) * cols]
            cells["text"][r] = labels[r * cols : (r + 1) * cols]
            continue
        for i in changed:
            cells["z"][r][i % cols] = codes[i]
            cells["text"][r][i % cols] = labels[i]


def overlay_data(scenario: Scenario) -> dict[int, dict[str, Any]]:
    """Everything a scenario changes, as trace index -> {dotted property: value}.

    The overlays get y only (their x is static, see spine.py). When more cables
    carry rerouted load than not, the base spine is recoloured as rerouted and the "healthy"
    overlay covers the rest, so the patch lists the smaller set. The hover labels, which
    also follow the click mode, are `label_data`'s.
    """
    geo = geometry(scenario.fabric)
    st, status = _status(scenario)
    idx = {name: status.cables(name) for name in STATUSES}
    invert = len(idx["rerouted"]) > len(idx["healthy"])
    out: dict[int, dict[str, Any]] = {
        TRACES["cables"]: {
            "line.color": STATUS_COLORS["rerouted"] if invert else STATUS_COLORS["healthy"]
        }
    }
    for s in STATUSES:
        sel = idx[s]
        if (s == "healthy" and not invert) or (s == "rerouted" and invert):
            sel = sel[:0]
        out[TRACES[s]] = {"y": segments_y(geo.y_left[sel], geo.y_right[sel])}
        if s in DOWN_STATUSES:
            out[TRACES[s]]["line.width"] = down_width(s, len(sel))
    parts = _part_states(status)
    band = loss_band(status.lost_share)
    # The spine's rerouted cables are one line trace, one colour: the band of the median
    # rerouted GPU's loss (the cable map colours each cable by its own GPU's).
    rerouted = parts["gpu"] == PART_REROUTED
    spine_band = int(np.median(band[rerouted])) if rerouted.any() else 1
    colour = LOSS_BANDS[spine_band][2]
    out[TRACES["rerouted"]]["line.color"] = colour
    if invert:
        out[TRACES["cables"]]["line.color"] = colour
    tray_codes = _tray_codes(st, parts)
    mc_symbols = _symbols(parts["mc"], MC_SYMBOL)
    leader = status.leader_tray
    if leader is not None and mc_symbols[leader] != FAILED_SYMBOL:
        mc_symbols[leader] = LEADER_SYMBOL
    out[TRACES["trays"]] = {"marker.color": _colors(tray_codes, _tray_band(st, band))}
    out[TRACES["gpus"]] = {
        "marker.color": _colors(parts["gpu"], band),
        "marker.symbol": _symbols(parts["gpu"], GPU_SYMBOL),
    }
    out[TRACES["chips"]] = {
        "marker.color": _colors(parts["chip"]),
        "marker.symbol": _symbols(parts["chip"], CHIP_SYMBOL),
    }
    out[TRACES["controllers"]] = {
        "marker.color": _colors(parts["mc"]),
        "marker.symbol": mc_symbols,
    }
    return out


def _tray_band(st: FabricState, band: np.ndarray) -> np.ndarray:
    """int[trays]: a compute tray's worst GPU's loss band (0 for switch trays)."""
    geo = geometry(st.fabric.key)
    worst = band.reshape(st.fabric.compute_trays, st.fabric.gpus_per_tray).max(axis=1)
    return np.where(geo.tray_ct >= 0, worst[np.maximum(geo.tray_ct, 0)], 0)


def _tray_codes(st: FabricState, parts: dict) -> np.ndarray:
    geo = geometry(st.fabric.key)
    return np.where(
        geo.tray_ct >= 0, parts["ct"][geo.tray_ct], parts["st"][np.maximum(geo.tray_st, 0)]
    )


def label_data(scenario: Scenario, mode: str = "fail") -> dict[str, Any]:
    """The hover labels of every clickable part (its state and what a click does in `mode`),
    compact: `spelled` writes them out, and `label_patch` sends only those that changed, so
    a press's Patch stays a few KB.

    {"fabric": its key, "hits": the cable markers' trace, "codes": a digit a cable (its index in CABLE_LEVELS:
    its status, a rerouted one by how much its GPU lost; the cable map's z),
    "words": the label of each code, "named": {cable index: label} for the cables the
    scenario names, "parts": {trace index: [hover text a point]} for the front view}.
    """
    geo = geometry(scenario.fabric)
    f = geo.fabric
    st, status = _status(scenario)
    share = status.lost_share
    level = _cable_levels(st, status.cable, loss_band(share))
    words = [
        label(scenario, "", K.CABLE, CABLE_LEVEL_WORDS[name], name == "failed", mode)
        for name in CABLE_LEVELS
    ]
    where = _cable_index(scenario.fabric)
    named = {}
    for cid in (*scenario.fail, *scenario.flaky):
        i = where.get(cid)
        if i is not None:
            name = CABLE_LEVELS[level[i]]
            named[str(i)] = label(
                scenario, cid, K.CABLE, CABLE_LEVEL_WORDS[name], name == "failed", mode
            )
    parts = _part_states(status)
    tray_kinds = [K.COMPUTE_TRAY if t >= 0 else K.SWITCH_TRAY for t in geo.tray_ct.tolist()]
    front = {
        "trays": (_tray_codes(st, parts), tray_kinds),
        "gpus": (parts["gpu"], [K.GPU] * f.gpus),
        "chips": (parts["chip"], [K.SWITCH_CHIP] * f.planes),
        "controllers": (parts["mc"], [K.CONTROLLER] * f.switch_trays),
    }
    return {
        "fabric": scenario.fabric,
        "hits": TRACES["cable_hits"],
        "codes": "".join(map(str, level.tolist())),
        "words": words,
        "named": named,
        "parts": {
            str(TRACES[t]): _part_labels(
                scenario, t, c, kinds, mode, share if t == "gpus" else None
            )
            for t, (c, kinds) in front.items()
        },
    }


def part_state(scenario: Scenario, cid: str) -> str:
    """The state of one part (a cable, link, GPU, chip, controller or tray) in the scenario,
    in the hover labels' words; a link reads as its worse cable."""
    st, status = _status(scenario)
    what, name = status.of(st.fabric, cid)
    if what == "cable":
        return CABLE_STATE_WORDS[name]
    return PART_STATE_WORDS[PART_STATUSES.index(name)]


def _apply(root: Any, data: dict[int, dict[str, Any]]) -> None:
    """Set each trace's dotted properties ("line.color") on a figure dict or a Patch."""
    for index, props in data.items():
        for dotted, value in props.items():
            target = root["data"][index]
            *path, last = dotted.split(".")
            for key in path:
                target = target[key]
            target[last] = value


def overlay_patch(scenario: Scenario, selected: str | None = None) -> Patch:
    """`overlay_data` (and the selected part, selection.py) as a dash.Patch on the base
    figure (idempotent: sets every overlay)."""
    patch = Patch()
    _apply(patch, overlay_data(scenario))
    _apply(patch, selection_data(scenario.fabric, selected))
    return patch


def full_figure(scenario: Scenario, selected: str | None = None) -> dict:
    """The base figure with the scenario (and the selected part) applied: for the first
    render or a fabric change."""
    fig = base_figure(scenario.fabric)
    _apply(fig, overlay_data(scenario))
    _apply(fig, selection_data(scenario.fabric, selected))
    return fig
