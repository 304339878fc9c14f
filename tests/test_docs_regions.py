"""One answer for each doc number (issue 29, item 8): every figure docs/*.md quotes from the
model sits in a region model/docs.py writes, and a doc that disagrees with the model fails
here. `python -m model.docs` rewrites them."""

from __future__ import annotations

import re

import pytest

from model import doc_tables as T
from model import docs


@pytest.fixture(scope="module")
def bodies() -> dict[tuple[str, str], str]:
    """Every region as the model writes it, once for the module."""
    return docs.written()


def test_every_region_agrees_with_the_model(bodies):
    assert docs.stale(bodies=bodies) == [], "run: python -m model.docs"


def test_every_marked_region_in_the_docs_is_one_the_model_writes():
    known = {(r.doc, r.name) for r in docs.REGIONS}
    for path in sorted(docs.DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        begins = re.findall(r"<!-- ([\w-]+):begin -->", text)
        ends = re.findall(r"<!-- ([\w-]+):end -->", text)
        assert begins == ends, path.name  # each opened once and closed, in order
        for name in begins:
            assert (path.name, name) in known, (path.name, name)


def test_a_stale_region_is_found_and_rewritten(tmp_path, bodies):
    """--check's rule on a copy: a changed figure in a region is stale; the rewrite fixes it."""
    for r in {r.doc for r in docs.REGIONS}:
        (tmp_path / r).write_text((docs.DOCS / r).read_text(encoding="utf-8"), encoding="utf-8")
    region = next(r for r in docs.REGIONS if r.name == "optimiser")
    path = tmp_path / region.doc
    text = path.read_text(encoding="utf-8")
    path.write_text(docs.rewrite(text, region, "- best `bw-80`, +0.251 pp"), encoding="utf-8")
    assert docs.stale(tmp_path, bodies) == [f"{region.doc}: optimiser"]
    for doc, (_now, new) in docs.regenerated(tmp_path, bodies).items():
        (tmp_path / doc).write_text(new, encoding="utf-8")
    assert docs.stale(tmp_path, bodies) == []
    with pytest.raises(ValueError):
        docs.rewrite("no markers", region, "x")


def test_the_known_disagreements_are_settled():
    """Issue 29's list: MODEL.md no longer says a rack's lost tray is BANDWIDTH (the model's
    HEALTHY with DEGRADED_BW GPUs is NMX's reading); GOODPUT.md's optimiser is the model's."""
    from model import evaluate, parse_query

    part = evaluate(parse_query("fail=st3").scenario)["partition"]
    assert part["state"] == "HEALTHY"
    model_md = (docs.DOCS / "MODEL.md").read_text(encoding="utf-8")
    assert "BANDWIDTH only when **trunk links**" in model_md
    goodput_md = (docs.DOCS / "GOODPUT.md").read_text(encoding="utf-8")
    assert T.optimiser_lines() in goodput_md and "detection 0" in goodput_md
