"""docs/ARCHITECTURE.md's tree is the house: every package of model/ and dashboard/ is drawn at
its depth, and every module is named in its package's entry, so the map cannot fall behind
the code without this failing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def _tree() -> list[str]:
    text = DOC.read_text()
    body = text.split("## The tree", 1)[1]
    return body.split("```", 2)[1].splitlines()


def _entries(lines: list[str]) -> dict[str, str]:
    """Each package drawn in the tree (its path, 'model/fabric') -> its own lines: its line and
    those after it until the next package's line."""
    out: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in lines:
        m = re.match(r"^( *)([\w.]+/)(\s|$)", line)
        if m:
            depth = len(m.group(1)) // 2
            while stack and stack[-1][0] >= depth:
                stack.pop()
            path = "/".join([p for _, p in stack] + [m.group(2).rstrip("/")])
            stack.append((depth, m.group(2).rstrip("/")))
            out[path] = ""
        if stack:
            out["/".join(p for _, p in stack)] += line + "\n"
    return out


def _packages() -> list[Path]:
    return sorted(
        p.parent
        for top in ("model", "dashboard")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    )


def test_every_package_is_drawn_and_every_module_named():
    entries = _entries(_tree())
    missing, unnamed = [], []
    for pkg in _packages():
        rel = pkg.relative_to(ROOT).as_posix()
        if rel not in entries:
            missing.append(rel)
            continue
        own = entries[rel]
        for mod in sorted(pkg.glob("*.py")):
            if mod.stem.startswith("__"):
                continue
            if not re.search(rf"(?<![\w.]){re.escape(mod.stem)}(\.py)?\b", own):
                unnamed.append(f"{rel}/{mod.name}")
    assert not missing, f"packages missing from docs/ARCHITECTURE.md's tree: {missing}"
    assert not unnamed, f"modules not named in their package's entry: {unnamed}"


def test_the_check_sees_a_missing_package():
    lines = [
        "model/       the twin: ids",
        "  fabric/    one rack: state",
        "    x/  deep",
        "dashboard/",
    ]
    entries = _entries(lines)
    assert set(entries) == {"model", "model/fabric", "model/fabric/x", "dashboard"}
    assert "state" in entries["model/fabric"] and "state" not in entries["model"]
    assert "deep" in entries["model/fabric/x"] and "deep" not in entries["model/fabric"]


def test_every_citation_points_inside_the_repository():
    """The repository stands on its own: no file cites a path outside it (the project's copy
    of the facts is docs/FACTS.md) or a design note it does not hold."""
    outside = re.compile(r"\.\./shared/|\bDESIGN\.md\b")
    me = Path(__file__).name
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted(ROOT.rglob("*"))
        if p.suffix in {".py", ".md", ".txt", ".toml", ".sh", ".js", ".yaml", ".css"}
        and not {".venv", ".git", "node_modules", "__pycache__"} & set(p.parts)
        and p.name != me
        for n, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
        if outside.search(line)
    ]
    assert not found, f"citations outside the repository: {found}"
