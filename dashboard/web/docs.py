"""The sources the page cites, served by the app (issue 13, "sources are links"): FACTS.md
and the docs/ notes rendered as HTML, and the calibration table, so a citation on the page
("FACTS.md §3", "docs/MODEL.md") opens where it points.

Only the files named in DOCS are served (nothing from the request reaches the file system),
and they are rendered by a small Markdown reader that escapes every character of the text
first: headings, tables, lists, code and links become markup, nothing in a file can become a
script or a tag of its own. Links keep only http(s) targets and the docs' own pages.
"""

from __future__ import annotations

import functools
import html
import re

from flask import Blueprint, Response, abort

from dashboard.documents import DOCS, ROOT
from dashboard.infra import results

STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1000px;"
    "margin:16px auto;padding:0 12px;line-height:1.45;color:#111}"
    "table{border-collapse:collapse;font-size:.85rem;margin:8px 0}"
    "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left}"
    "code,pre{background:#f3f3f3;font-size:.85rem}pre{padding:8px;overflow-x:auto}"
    ":target{background:#fff4c2}"
)

docs = Blueprint("docs", __name__)


def section_id(title: str) -> str:
    """A heading's anchor: 's3' for '## 3. The seven ...' (FACTS.md §3), else a slug."""
    m = re.match(r"(\d+)\.?\s", title)
    if m:
        return f"s{m.group(1)}"
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


def _link(m: re.Match) -> str:
    """[text](target): kept as a link for http(s) and the docs served here, else as text."""
    text, target = m.group(1), html.unescape(m.group(2))
    name = target.rsplit("/", 1)[-1].split("#")[0]
    if target.startswith(("https://", "http://")):
        href = target
    elif name in DOCS:
        href = "/docs/" + target.rsplit("/", 1)[-1]
    else:
        return text
    return f'<a href="{html.escape(href, quote=True)}">{text}</a>'


def inline(text: str) -> str:
    """One line's inline Markdown on text escaped first: `code`, **bold**, *em*, links."""
    out = html.escape(text, quote=True)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", out)
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", _link, out)


_ITEM = re.compile(r"\s*([-*]|\d+\.)\s")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def render(md: str) -> str:
    """Markdown (the subset the project's docs use) to HTML, every character escaped."""
    out: list[str] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>" + html.escape("\n".join(lines[i + 1 : j])) + "</pre>")
            i = j + 1
            continue
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m:
            n, title = len(m.group(1)), m.group(2)
            out.append(f'<h{n} id="{section_id(title)}">{inline(title)}</h{n}>')
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"\|[-:| ]+\|", lines[i + 1]):
            rows = [f"<tr>{''.join(f'<th>{inline(c)}</th>' for c in _cells(line))}</tr>"]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(
                    f"<tr>{''.join(f'<td>{inline(c)}</td>' for c in _cells(lines[i]))}</tr>"
                )
                i += 1
            out.append("<table>" + "".join(rows) + "</table>")
            continue
        elif re.match(r"\s*([-*]|\d+\.)\s", line):
            items = []
            while i < len(lines) and _ITEM.match(lines[i]):
                items.append(f"<li>{inline(_ITEM.sub('', lines[i], count=1))}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif line.strip():
            para = [line]
            while i + 1 < len(lines) and lines[i + 1].strip() and not _starts_block(lines[i + 1]):
                i += 1
                para.append(lines[i])
            out.append("<p>" + inline(" ".join(para)) + "</p>")
        i += 1
    return "\n".join(out)


def _starts_block(line: str) -> bool:
    return bool(re.match(r"(#{1,6}\s|```|\||\s*([-*]|\d+\.)\s)", line))


def page(title: str, body: str) -> Response:
    """A served document: its title, a way back to the app, the body."""
    doc = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        "<p><a href='/'>Back to the twin</a> · <a href='/docs/'>all sources</a></p>"
        f"{body}</body></html>"
    )
    return Response(doc, mimetype="text/html")


@functools.lru_cache(maxsize=len(DOCS))
def _rendered(name: str) -> str | None:
    path = ROOT / DOCS[name][0]
    return render(path.read_text(encoding="utf-8")) if path.is_file() else None


@docs.get("/docs/")
def index() -> Response:
    """Every source the page cites, and the calibration table."""
    items = "".join(
        f'<li><a href="/docs/{name}">{name}</a>: {html.escape(what)}</li>'
        for name, (_path, what) in DOCS.items()
    )
    cal = '<li><a href="/docs/calibration">the calibration table</a>: every published point'
    return page("Sources", f"<h1>Sources</h1><ul>{items}{cal}, model against it</li></ul>")


@docs.get("/docs/<name>")
def doc(name: str) -> Response:
    """One of DOCS, rendered; 404 naming the ones there are for anything else."""
    if name == "calibration":
        return calibration()
    if name not in DOCS or _rendered(name) is None:
        known = ", ".join(DOCS)
        msg = f"no document '{name}' here; the sources are: {known}\n"
        abort(Response(msg, 404, mimetype="text/plain"))
    return page(name, _rendered(name))


def calibration() -> Response:
    """The calibration table: every published point, model against it (the same answer as
    GET /api/v1/calibration and the page's panel)."""
    a = results.calibration()
    parts = [f"<h1>Calibration</h1><p>{html.escape(a['reading'])}</p>"]
    head = "".join(f"<th>{h}</th>" for h in ("point", "published", "model", "error", "", "note"))
    for title, rows in a["sections"].items():
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    r["point"],
                    f"{r['published']:g} {r['unit']}",
                    f"{r['model']:g}",
                    f"{r['error_pct']:+.1f}%",
                    "fitted" if r["fitted"] else "check",
                    r["note"],
                )
            )
            + "</tr>"
            for r in rows
        )
        parts.append(f"<h2>{html.escape(title)}</h2><table><tr>{head}</tr>{body}</table>")
    parts.append(f"<p>Source: {html.escape(a['source'])}.</p>")
    return page("Calibration", "".join(parts))
