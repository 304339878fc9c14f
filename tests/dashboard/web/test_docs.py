"""The sources the page cites, served by the app (issue 13): FACTS.md, the docs/ notes and
the calibration table as HTML, every character of a file escaped before its Markdown becomes
markup, only the named documents served."""

from __future__ import annotations

import re

import pytest

from dashboard.panels.sources import cite
from dashboard.web import docs


@pytest.fixture(scope="module")
def client():
    from app import app

    return app.server.test_client()


def test_facts_and_model_are_served_with_section_anchors(client):
    r = client.get("/docs/FACTS.md")
    assert r.status_code == 200 and r.mimetype == "text/html"
    text = r.get_data(as_text=True)
    assert re.findall(r'<h2 id="(s\d)">', text)[:6] == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert "<table>" in text and "<td>GPUs</td>" in text
    assert client.get("/docs/MODEL.md").status_code == 200
    index = client.get("/docs/").get_data(as_text=True)
    assert all(f'href="/docs/{name}"' in index for name in docs.DOCS)


def test_the_calibration_table_is_the_apis_answer(client):
    text = client.get("/docs/calibration").get_data(as_text=True)
    api = client.get("/api/v1/calibration").get_json()
    rows = sum(len(rows) for rows in api["sections"].values())
    assert text.count("<tr>") == rows + len(api["sections"])  # a header row a section
    first = next(iter(api["sections"].values()))[0]
    assert f"{first['error_pct']:+.1f}%" in text


def test_only_named_documents_and_the_name_is_text(client):
    for bad in ("nope", "README.md", "MODEL.md.bak", "%3Cscript%3Ealert(1)"):
        r = client.get(f"/docs/{bad}")
        assert r.status_code == 404 and r.mimetype == "text/plain"
        assert "FACTS.md" in r.get_data(as_text=True)  # names what there is


def test_markdown_never_becomes_a_tag_of_its_own():
    out = docs.render(
        "# Title <img src=x onerror=alert(1)>\n\n"
        "a <script>alert(1)</script> and [x](javascript:alert(1)) and [m](docs/MODEL.md)\n\n"
        "| a | b |\n|---|---|\n| <b>1</b> | **2** |\n\n- one `<i>`\n- two"
    )
    assert "<script" not in out and "<img" not in out and "javascript:" not in out
    assert "&lt;script&gt;" in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert '<a href="/docs/MODEL.md">m</a>' in out and ">x<" not in out.replace("x</", "")
    assert "<td>&lt;b&gt;1&lt;/b&gt;</td><td><b>2</b></td>" in out
    assert "<li>one <code>&lt;i&gt;</code></li>" in out


def test_citations_on_the_page_are_links():
    parts = cite("FACTS.md §6; docs/MODEL.md; docs/NOPE.md")
    links = [(p.children, p.href) for p in parts if not isinstance(p, str)]
    assert links == [("FACTS.md §6", "/docs/FACTS.md#s6"), ("docs/MODEL.md", "/docs/MODEL.md")]
    assert "".join(p if isinstance(p, str) else p.children for p in parts) == (
        "FACTS.md §6; docs/MODEL.md; docs/NOPE.md"
    )
