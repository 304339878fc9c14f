"""The Prometheus text exposition format 0.0.4, written by hand for speed.

prometheus_client's own writer (exposition.generate_latest) is what this would use, but it
is measured 12-28x slower on a vr-nvl72 scrape (21,000 samples; bench/README.md, `metrics`)
and it appends "_total" to every counter family's HELP and TYPE names, which would turn
dcgm-exporter's DCGM_FI_DEV_NVLINK_*_TOTAL into ..._TOTAL_total. The tests read every scrape
back with prometheus_client's parser. Label sets are written once per fabric shape
(dashboard/exporter/metrics.py) and a sample line is the label prefix plus its formatted value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def escape_label_value(value: str) -> str:
    """A label value as the text format wants it: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    """HELP text as the text format wants it: backslash and newline escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def label_set(labels: dict[str, str]) -> str:
    """'{a="x",b="y"}' with the values escaped ('' when there are no labels)."""
    if not labels:
        return ""
    inner = ",".join(f'{k}="{escape_label_value(v)}"' for k, v in labels.items())
    return "{" + inner + "}"


def format_values(values: np.ndarray) -> list[str]:
    """Sample values as text: integers exact, floats shortest round-trip, NaN and +/-Inf spelt
    as Prometheus spells them."""
    flat = values.ravel()
    if flat.dtype.kind in "biu":
        return list(map(str, flat.astype(np.int64).tolist()))
    out = list(map(repr, flat.astype(float).tolist()))
    bad = ~np.isfinite(flat)
    if bad.any():
        for i in np.flatnonzero(bad).tolist():
            x = float(flat[i])
            out[i] = "NaN" if math.isnan(x) else ("+Inf" if x > 0 else "-Inf")
    return out


def family_text(
    name: str, kind: str, help_text: str, prefixes: Sequence[str], values: np.ndarray
) -> str:
    """One family: HELP, TYPE and a line per series. prefixes[i] is 'name{labels} '."""
    head = f"# HELP {name} {escape_help(help_text)}\n# TYPE {name} {kind}\n"
    body = "\n".join(map(str.__add__, prefixes, format_values(values)))
    return head + body + "\n" if body else head


@lru_cache(maxsize=256)
def prefixes(name: str, labels: tuple[str, ...]) -> tuple[str, ...]:
    """'name{labels} ' for every label set (memoised: the label sets are per fabric shape)."""
    return tuple(f"{name}{lab} " for lab in labels)
