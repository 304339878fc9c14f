"""Citations as links (issue 13, "sources are links"): in a source's text, "FACTS.md §3" opens
that section of FACTS.md and "docs/MODEL.md" that note, both served by the app
(dashboard/web/docs.py). The text is kept as it is; only the citations become links."""

from __future__ import annotations

import re

from dash import html

from dashboard.documents import DOCS

_CITATION = re.compile(r"FACTS\.md(?: §(\d+))?|docs/([A-Z]+\.md)")


def href(doc: str, section: str | None = None) -> str:
    """Where the app serves a document (and one of its numbered sections)."""
    return f"/docs/{doc}" + (f"#s{section}" if section else "")


def cite(text: str) -> list[str | html.A]:
    """`text` with each citation of a served document as a link to it (opens in a new tab)."""
    out: list[str | html.A] = []
    at = 0
    for m in _CITATION.finditer(text):
        doc = m.group(2) or "FACTS.md"
        if doc not in DOCS:
            continue
        out.append(text[at : m.start()])
        out.append(html.A(m.group(0), href=href(doc, m.group(1)), target="_blank"))
        at = m.end()
    out.append(text[at:])
    return [x for x in out if x != ""]
