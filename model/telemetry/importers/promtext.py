"""A reader of the Prometheus text exposition format (0.0.4), written from its public
definition (prometheus.io, "Exposition formats"), for importing a rack's own scrape.

It reads line by line and never stops at a bad line: each is reported with its number and
what was expected there, and every good line is kept. Label values are unescaped (backslash,
double quote, newline); values are floats, with NaN, +Inf and -Inf; a timestamp may follow.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
SPECIAL = {"nan": math.nan, "+inf": math.inf, "inf": math.inf, "-inf": -math.inf}
# The well-formed line in one match (the fast path); anything else goes through the slow,
# careful path that says what is wrong.
_PAIR = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
FULL = re.compile(
    rf"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{{((?:{_PAIR},?)*)\}})?[ \t]+(\S+)(?:[ \t]+(-?\d+))?[ \t]*"
)
PAIRS = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"')
_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Sample:
    """One sample line: metric name, labels, value, its line number (from 1) and its
    timestamp in ms since the epoch when the line carries one (Prometheus's /federate writes
    them; dcgm-exporter's own scrape does not)."""

    name: str
    labels: dict[str, str]
    value: float
    line: int
    ts_ms: int | None = None


@dataclass(frozen=True)
class Problem:
    """A line that could not be read, and what was expected there."""

    line: int
    message: str

    def text(self) -> str:
        return f"line {self.line}: {self.message}"


def _labels(s: str, i: int) -> tuple[dict[str, str], int]:
    """Parse '{a="x",b="y"}' from s[i] == '{'; returns the labels and the index after '}'."""
    out: dict[str, str] = {}
    i += 1
    while True:
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] == "}":
            return out, i + 1
        m = LABEL.match(s, i)
        if not m:
            raise ValueError(f"expected a label name or '}}' at column {i + 1}")
        key, i = m.group(), m.end()
        if s[i : i + 2] != '="':
            raise ValueError(f"expected '=\"' after label '{key}' at column {i + 1}")
        i += 2
        val: list[str] = []
        while True:
            if i >= len(s):
                raise ValueError(f"label '{key}': its value's closing quote is missing")
            ch = s[i]
            if ch == "\\":
                nxt = s[i + 1 : i + 2]
                if nxt not in ('"', "\\", "n"):
                    raise ValueError(f"label '{key}': unknown escape '\\{nxt}' at column {i + 1}")
                val.append("\n" if nxt == "n" else nxt)
                i += 2
            elif ch == '"':
                i += 1
                break
            else:
                val.append(ch)
                i += 1
        if key in out:
            raise ValueError(f"label '{key}' appears twice")
        out[key] = "".join(val)
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] == ",":
            i += 1
        elif i < len(s) and s[i] == "}":
            return out, i + 1
        else:
            raise ValueError(f"expected ',' or '}}' after label '{key}' at column {i + 1}")


def _unescape(m: re.Match) -> str:
    ch = m.group(1)
    if ch not in ('"', "\\", "n"):
        raise ValueError(f"unknown escape '\\{ch}' in a label value")
    return "\n" if ch == "n" else ch


def _value(tok: str) -> float:
    low = tok.lower()
    if low in SPECIAL:
        return SPECIAL[low]
    try:
        return float(tok)
    except ValueError:
        raise ValueError(f"expected a number as the value, got '{tok[:40]}'") from None


def _timestamp(tok: str | None) -> int | None:
    """A sample's timestamp, ms since the epoch (an int64, as Prometheus's); None if absent."""
    if tok is None:
        return None
    ts = int(tok)
    if not -(2**63) <= ts < 2**63:
        raise ValueError(f"the timestamp '{tok[:20]}' is beyond an int64 of ms")
    return ts


def parse_line(s: str, line: int) -> Sample | None:
    """A sample from one line, None for a blank or comment line; ValueError when malformed."""
    stripped = s.strip()
    if not stripped or stripped.startswith("#"):
        return None
    fast = FULL.fullmatch(stripped)
    if fast:
        name, body, value, ts = fast.groups()
        labels: dict[str, str] = {}
        if body:
            for k, v in PAIRS.findall(body):
                if k in labels:
                    raise ValueError(f"label '{k}' appears twice")
                labels[k] = _UNESCAPE.sub(_unescape, v) if "\\" in v else v
        return Sample(name, labels, _value(value), line, _timestamp(ts))
    m = NAME.match(stripped)
    if not m:
        raise ValueError(f"expected a metric name, got '{stripped[:40]}'")
    name, i = m.group(), m.end()
    labels = {}
    if i < len(stripped) and stripped[i] == "{":
        labels, i = _labels(stripped, i)
    rest = stripped[i:].split()
    if not rest:
        raise ValueError(f"'{name}': expected a value after the labels")
    if len(rest) > 2:
        raise ValueError(f"'{name}': expected a value and at most a timestamp, got {len(rest)}")
    if len(rest) == 2 and not re.fullmatch(r"-?\d+", rest[1]):
        raise ValueError(f"'{name}': expected an integer timestamp, got '{rest[1][:20]}'")
    return Sample(
        name, labels, _value(rest[0]), line, _timestamp(rest[1] if len(rest) == 2 else None)
    )


def parse(lines: list[str], first_line: int = 1) -> tuple[list[Sample], list[Problem]]:
    """Every sample of the text, and a Problem for every line that is not one."""
    samples: list[Sample] = []
    problems: list[Problem] = []
    for n, s in enumerate(lines, start=first_line):
        try:
            smp = parse_line(s, n)
        except ValueError as e:
            shown = s.strip()
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            problems.append(Problem(n, f"{e} (the line reads '{shown}')"))
            continue
        if smp is not None:
            samples.append(smp)
    return samples, problems
