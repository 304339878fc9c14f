"""GET /metrics's label sets: every series' escaped '{...}' of a fabric, built once per
fabric shape (labels depend on its preset's shape and key only), vectorised over numpy
object arrays. Which labels a family carries, and why, is in dashboard/exporter/metrics.py.

The per-link, per-port and per-lane sets (2,592 series a family on vr-nvl72) carry only what
places the series: dcgm-exporter's own labels and the project's `link` and `chip`, which
the alert rules join and group on. The rack-wide `fabric` is on fabric_twin_info (and on
the small per-GPU, chip, tray and controller families); a link's switch tray and compute
tray are in its `chip` ("st3.sw2") and `gpu` (compute tray gpu // 4 + 1)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dashboard.exporter.promtext import escape_label_value, label_set
from model.fabric.presets import FABRICS, Fabric
from model.ids import chip_id, compute_tray_of_gpu, link_id

LINK_LABELS = ("nvlink", "gpu", "link", "chip")
GPU_LABELS = ("gpu", "Hostname", "device", "compute_tray", "fabric")
PORT_LABELS = ("nvswitch", "nvlink", "hostname", "link", "chip")
LANE_LABELS = ("link", "lane")


@dataclass(frozen=True)
class Labels:
    """Escaped label sets ('{...}') of every link ([G*P], g-major) as the GPU and as the switch
    port sees it, every GPU, chip, tray and controller."""

    link: tuple[str, ...]
    port: tuple[str, ...]
    lane: tuple[str, ...]  # [G*P*C], g-major, then plane, then lane
    gpu: tuple[str, ...]
    chip: tuple[str, ...]
    tray: tuple[str, ...]
    controller: tuple[str, ...]


def _join(parts: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """'{k1="v1",k2="v2",...}' per element, vectorised over object arrays of escaped values."""
    out = "{" + parts[0][0] + '="' + parts[0][1]
    for k, v in parts[1:]:
        out = out + '",' + k + '="' + v
    return out + '"}'


@lru_cache(maxsize=len(FABRICS) + 24)
def _labels(f: Fabric, prefix: str = "", fabric_key: str | None = None) -> Labels:
    g, p, k = f.gpus, f.planes, f.chips_per_tray
    pre = prefix
    esc = np.frompyfunc(escape_label_value, 1, 1)

    def arr(values: list[str]) -> np.ndarray:
        return esc(np.array(values, dtype=object))

    chips = arr([pre + chip_id(f, q) for q in range(p)])
    trays = arr([f"{pre}st{q // k + 1}" for q in range(p)])
    gpus = arr([str(x) for x in range(g)])
    cts = arr([f"{pre}ct{compute_tray_of_gpu(f, x):02d}" for x in range(g)])
    links = arr([pre + link_id(f, x, q) for x in range(g) for q in range(p)])
    key = fabric_key or f.key
    fab = np.array([escape_label_value(key)], dtype=object)
    link = _join(
        [
            ("nvlink", np.tile(arr([str(q) for q in range(p)]), g)),
            ("gpu", np.repeat(gpus, p)),
            ("link", links),
            ("chip", np.tile(chips, g)),
        ]
    )
    port = _join(
        [
            ("nvswitch", np.tile(arr([f"nvswitch{q % k}" for q in range(p)]), g)),
            ("nvlink", np.repeat(gpus, p)),
            ("hostname", np.tile(trays, g)),
            ("link", links),
            ("chip", np.tile(chips, g)),
        ]
    )
    gpu = _join(
        [
            ("gpu", gpus),
            ("Hostname", cts),
            ("device", arr([f"nvidia{x % f.gpus_per_tray}" for x in range(g)])),
            ("compute_tray", cts),
            ("fabric", fab),
        ]
    )
    c = f.cables_per_link
    lane = _join(
        [
            ("link", np.repeat(links, c)),
            ("lane", np.tile(arr([str(x) for x in range(c)]), g * p)),
        ]
    )
    chip = _join([("chip", chips), ("tray", trays), ("fabric", fab)])
    tray_ids = [f"{pre}st{t + 1}" for t in range(f.switch_trays)]
    tray = tuple(label_set({"tray": t, "fabric": key}) for t in tray_ids)
    controller = tuple(
        label_set({"tray": t, "controller": f"{t}.mc", "fabric": key}) for t in tray_ids
    )
    return Labels(
        tuple(link.tolist()),
        tuple(port.tolist()),
        tuple(lane.tolist()),
        tuple(gpu.tolist()),
        tuple(chip.tolist()),
        tray,
        controller,
    )


def labels_for(f: Fabric, prefix: str = "", fabric_key: str | None = None) -> Labels:
    """The cached label sets of a fabric (labels depend on its preset's shape and key only, so
    eth-x72's bandwidth variants share its preset's entry). prefix: a domain's rack ("r03."),
    put before every ID; fabric_key: the domain's key for the `fabric` labels."""
    return _labels(FABRICS[f.key], prefix, fabric_key)
