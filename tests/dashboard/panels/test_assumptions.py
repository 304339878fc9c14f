"""The assumptions panel's sensitivity table (issue 29): the model's answer, as given."""

from __future__ import annotations

from dashboard.panels import assumptions
from model.reliability.sensitivity import sensitivity
from tests.dashboard.test_ids import ids_under


def _text(node) -> list[str]:
    kids = getattr(node, "children", node)
    if isinstance(kids, str):
        return [kids]
    if isinstance(kids, list | tuple):
        return [t for k in kids for t in _text(k)]
    return _text(kids) if hasattr(kids, "children") else []


def test_the_sensitivity_table_shows_each_row_of_the_models_answer():
    a = sensitivity()
    parts = assumptions.sensitivity_table(a)
    table = parts[-1]
    assert table.id in ids_under(table)
    rows = table.children[1:]
    assert len(rows) == len(a["rows"]) >= 1
    first = _text(rows[0])
    assert first[0] == "link_end_per_h"
    assert f"{a['rows'][0]['goodput_high']:.3%}" in first
    note = " ".join(_text(parts[1]))
    assert all(name in note for name in a["below"])
