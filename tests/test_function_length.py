"""No function in model/ or dashboard/ over 80 lines: a longer one does several things, and
each wants its own name (effects() is a table of event builders, a parser a table of
handlers, a figure its traces, layout and annotations)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(name, lines) of each function (nested ones too) longer than `limit` lines, its
    decorators aside."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_the_check_finds_a_long_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(80))
    assert long_functions(f"def f():\n{body}\n") == [("f", 81)]
    assert long_functions(f"def f():\n{body}\n", limit=81) == []


def test_no_function_in_model_or_dashboard_is_over_80_lines() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{name}": n
        for pkg in ("model", "dashboard")
        for path in sorted((ROOT / pkg).rglob("*.py"))
        for name, n in long_functions(path.read_text())
    }
    assert not found, found
