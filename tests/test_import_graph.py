"""The house's import graph: no circle in model/ or dashboard/, counting the imports that sit
inside functions (import-linter's graph sees those too, but a test that names the circle and
each of its arrows says more when it fails), and an import inside a function only to defer a
heavy optional dependency, with a comment saying so."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("model", "dashboard")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    return {
        _module_name(p, root): p
        for pkg in packages
        for p in sorted((root / pkg).rglob("*.py"))
        if ".venv" not in p.parts
    }


def _under_type_checking(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _in_function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return True
    return False


def _targets(node: ast.Import | ast.ImportFrom, here: str, is_pkg: bool, known: set[str]):
    """The modules of ours an import statement loads, as grimp resolves them."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    base = node.module or ""
    if node.level:
        parts = here.split(".")
        if not is_pkg:
            parts = parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, base] if base else parts)
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        if sub in known:
            out.append(sub)
        elif base in known:
            out.append(base)
    return out


def import_graph(
    root: Path = ROOT, packages: tuple[str, ...] = PACKAGES
) -> tuple[nx.DiGraph, list[tuple[str, str, str]]]:
    """Every import of the packages as an edge; and the imports inside functions as
    (file:line, source line, the comment on or above it)."""
    mods = _modules(root, packages)
    known = set(mods)
    g = nx.DiGraph()
    g.add_nodes_from(known)
    inner = []
    for name, path in mods.items():
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text)
        parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if _under_type_checking(node, parents):
                continue
            nested = _in_function(node, parents)
            for t in _targets(node, name, path.name == "__init__.py", known):
                if t != name:
                    g.add_edge(name, t, line=node.lineno, nested=nested)
            if nested:
                line = lines[node.lineno - 1]
                above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                comment = line.split("#", 1)[1] if "#" in line else ""
                if not comment and above.startswith("#"):
                    comment = above
                inner.append((f"{path.relative_to(root)}:{node.lineno}", line.strip(), comment))
    return g, inner


def test_no_import_circle_in_model_or_dashboard():
    g, _ = import_graph()
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    described = []
    for c in circles:
        sub = g.subgraph(c)
        arrows = [f"{a} -> {b} (line {d['line']})" for a, b, d in sub.edges(data=True)]
        described.append(f"{len(c)} modules: " + ", ".join(c) + "\n  " + "\n  ".join(arrows))
    assert not circles, "import circles:\n" + "\n".join(described)


def test_an_import_inside_a_function_defers_only_a_heavy_optional_dependency():
    _, inner = import_graph()
    ours = [
        f"{where}: {line}" for where, line, _ in inner if line.split()[1].split(".")[0] in PACKAGES
    ]
    assert not ours, "imports of our own modules inside functions:\n" + "\n".join(ours)
    bare = [f"{where}: {line}" for where, line, comment in inner if not comment.strip()]
    assert not bare, "imports inside functions without a comment saying why:\n" + "\n".join(bare)


def test_the_graph_sees_a_circle_closed_inside_a_function(tmp_path):
    """The checker itself, on a made-up package: a relative import inside a function, and a
    `from pkg import submodule`, close a circle it must name; TYPE_CHECKING imports do not."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a  # late\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    g, inner = import_graph(tmp_path, ("pkg",))
    assert g.has_edge("pkg.a", "pkg.sub.b") and g.has_edge("pkg.sub.b", "pkg.a")
    assert g.edges["pkg.sub.b", "pkg.a"]["nested"]
    assert not g.has_edge("pkg.c", "pkg.a")
    assert [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1] == [
        ["pkg.a", "pkg.sub.b"]
    ]
    assert inner == [("pkg/sub/b.py:2", "from .. import a  # late", " late")]
