"""The one ID registry: every component and callback names its IDs from dashboard/ids.py, and the page reads component IDs through model.ids."""

from __future__ import annotations

from dashboard import ids


def ids_under(node, out: list[str] | None = None) -> list[str]:
    """Every component ID in a layout tree, in order (duplicates kept)."""
    out = [] if out is None else out
    cid = getattr(node, "id", None)
    if cid is not None:
        out.append(cid)
    kids = getattr(node, "children", None)
    for k in kids if isinstance(kids, list | tuple) else [kids]:
        if hasattr(k, "to_plotly_json"):
            ids_under(k, out)
    return out


def test_every_callback_id_is_in_the_registry_and_every_layout_id_once():
    from app import app
    from dashboard.layout import validation_layout as layout

    registry = {v for k, v in vars(ids).items() if k.isupper()}
    seen = ids_under(layout())  # the page with the parts below mounted (panels/lazy.py)
    assert len(seen) == len(set(seen)), "an ID is in the layout twice"
    assert set(seen) <= registry, set(seen) - registry
    for cb in app.callback_map.values():
        for dep in cb["inputs"] + cb.get("state", []):
            assert dep["id"] in registry, dep
        for out in cb["output"] if isinstance(cb["output"], list) else [cb["output"]]:
            assert out.component_id in registry, out


def test_a_callback_on_what_is_mounted_later_is_whole_there():
    """panels/lazy.py: the first page lacks what is mounted after it (every place filled by
    one callback), and Dash fails a callback with some outputs absent or an input absent
    while others are present. So a callback naming a component mounted later has every
    output mounted later (before the mount Dash prunes it), and every ID it names is on the
    first page or mounted later."""
    from app import app
    from dashboard.layout import layout
    from dashboard.panels import lazy

    first = set(ids_under(layout()))
    later = {i for kids in lazy.mounted().values() for k in kids for i in ids_under(k)}
    assert later and not (first & later), first & later
    assert set(lazy.PARTS) <= first  # every place is on the first page
    for cb in app.callback_map.values():
        outs = cb["output"] if isinstance(cb["output"], list) else [cb["output"]]
        out_ids = [o.component_id for o in outs]
        in_ids = [d["id"] for d in cb["inputs"] + cb.get("state", [])]
        if set(out_ids + in_ids) & later:
            assert set(out_ids) <= later, (out_ids, in_ids)
        for i in out_ids + in_ids:
            assert i in first or i in later, i


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
