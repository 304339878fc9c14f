"""The one ID registry: every component and callback names its IDs from dashboard/ids.py, and the page reads component IDs through model.ids."""

from __future__ import annotations

from dashboard import ids


def test_every_callback_id_is_in_the_registry_and_every_layout_id_once():
    from app import app
    from dashboard.layout import layout

    registry = {v for k, v in vars(ids).items() if k.isupper()}
    seen: list[str] = []

    def walk(node) -> None:
        cid = getattr(node, "id", None)
        if cid is not None:
            seen.append(cid)
        kids = getattr(node, "children", None)
        for k in kids if isinstance(kids, list | tuple) else [kids]:
            if hasattr(k, "to_plotly_json"):
                walk(k)

    walk(layout())
    assert len(seen) == len(set(seen)), "an ID is in the layout twice"
    assert set(seen) <= registry, set(seen) - registry
    for cb in app.callback_map.values():
        for dep in cb["inputs"] + cb.get("state", []):
            assert dep["id"] in registry, dep
        for out in cb["output"] if isinstance(cb["output"], list) else [cb["output"]]:
            assert out.component_id in registry, out


def test_the_page_reads_ids_through_model_ids_never_by_slicing():
    """No string surgery on component IDs in the page's code: model.ids parses them."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "dashboard"
    files = [
        *(root / "panels").glob("*.py"),
        *(root / "figures").rglob("*.py"),
        *(root / n for n in ("state.py", "view.py", "layout.py", "warm.py")),
    ]
    slicing = re.compile(
        r'count\("[-.]"\)|split\("\.c"\)|\.partition\("\."\)|split\("\."\)\[0\]\[|\[2:\]\)'
    )
    found = [
        f"{p.name}:{i}: {line.strip()}"
        for p in files
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if slicing.search(line)
    ]
    assert len(files) > 20 and not found, found
