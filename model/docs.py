"""Every figure in docs/*.md that the model produces, as a marked region of its document.

A region is the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in one document,
and one pure function writes it from the model (model/doc_tables.py, and the tables the
reliability, workloads and telemetry modules write of themselves; issue 29, "one answer for
each doc number"): `python -m model.docs` rewrites every region, `python -m model.docs
--check` lists the regions that disagree with the model (exit 1), and
tests/test_docs_regions.py fails on any of them. Prose around a region explains its numbers
but quotes none of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from model import doc_tables as T
from model import doc_workloads as W
from model.reliability import compare
from model.reliability.sensitivity import markdown as sensitivity_markdown
from model.telemetry import names
from model.workloads import comm

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@dataclass(frozen=True)
class Region:
    """One generated region: its document (under docs/), its marker name, its writer."""

    doc: str
    name: str
    write: Callable[[], str]

    @property
    def begin(self) -> str:
        return f"<!-- {self.name}:begin -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"


REGIONS: tuple[Region, ...] = (
    Region("GOODPUT.md", "rates", T.rates_table),
    Region("GOODPUT.md", "optical", T.optical_sentence),
    Region("GOODPUT.md", "results", T.results_table),
    Region("GOODPUT.md", "optimiser", T.optimiser_lines),
    Region("GOODPUT.md", "jobs", T.jobs_table),
    Region("GOODPUT.md", "scales", T.scales_table),
    Region("GOODPUT.md", "mttf", T.mttf_sentence),
    Region("GOODPUT.md", "compare", lambda: compare.markdown(compare.feature_values())),
    Region("GOODPUT.md", "domain", lambda: compare.markdown_beside(compare.beside())),
    Region("GOODPUT.md", "domainwhy", T.domain_figures),
    Region("GOODPUT.md", "sensitivity", sensitivity_markdown),
    Region("GOODPUT.md", "waits", T.waits_table),
    Region("GOODPUT.md", "history", T.history_markdown),
    Region("MODEL.md", "links", T.links_sentence),
    Region("MODEL.md", "decode", W.step_markdown),
    Region("CALIBRATION.md", "decode", W.decode_markdown),
    Region("CALIBRATION.md", "exposed", W.exposed_sentence),
    Region("CALIBRATION.md", "islands", W.islands_table),
    Region("CALIBRATION.md", "ratio", W.ratio_sentence),
    Region("CALIBRATION.md", "collectives", comm.calibration_tables),
    Region("TELEMETRY.md", "names", names.markdown),
    Region("TELEMETRY.md", "count-family", names.count_markdown),
    Region("TELEMETRY.md", "forecast", T.forecast_table),
    Region("MULTIRACK.md", "examples", W.domain_examples),
)


def rewrite(text: str, region: Region, body: str) -> str:
    """A document with one region's text replaced by `body`; ValueError without its markers."""
    head, sep, rest = text.partition(region.begin)
    _, sep2, tail = rest.partition(region.end)
    if not sep or not sep2:
        raise ValueError(f"docs/{region.doc} has no {region.begin} ... {region.end}")
    return f"{head}{region.begin}\n{body}\n{region.end}{tail}"


def written() -> dict[tuple[str, str], str]:
    """Every region's text as the model writes it now, by (document, region name)."""
    return {(r.doc, r.name): r.write() for r in REGIONS}


def regenerated(
    docs: Path = DOCS, bodies: dict[tuple[str, str], str] | None = None
) -> dict[str, tuple[str, str]]:
    """Each document with a region: (its text now, its text with every region rewritten);
    `bodies` is written() when the caller has it already."""
    bodies = written() if bodies is None else bodies
    out: dict[str, tuple[str, str]] = {}
    for r in REGIONS:
        now, new = out.get(r.doc) or ((docs / r.doc).read_text(encoding="utf-8"),) * 2
        out[r.doc] = (now, rewrite(new, r, bodies[(r.doc, r.name)]))
    return out


def stale(docs: Path = DOCS, bodies: dict[tuple[str, str], str] | None = None) -> list[str]:
    """The regions whose text disagrees with the model ('GOODPUT.md: results')."""
    bodies = written() if bodies is None else bodies
    bad = []
    for r in REGIONS:
        text = (docs / r.doc).read_text(encoding="utf-8")
        if rewrite(text, r, bodies[(r.doc, r.name)]) != text:
            bad.append(f"{r.doc}: {r.name}")
    return bad


def main(argv: list[str]) -> int:
    """Rewrite every region (no argument), or list the stale ones and fail (--check)."""
    if argv == ["--check"]:
        bad = stale()
        sys.stdout.write("".join(f"stale: docs/{b}\n" for b in bad))
        return 1 if bad else 0
    if argv:
        sys.stderr.write("usage: python -m model.docs [--check]\n")
        return 2
    for doc, (now, new) in regenerated().items():
        if new != now:
            (DOCS / doc).write_text(new, encoding="utf-8")
            sys.stdout.write(f"rewrote docs/{doc}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = ["REGIONS", "Region", "main", "regenerated", "rewrite", "stale", "written"]
