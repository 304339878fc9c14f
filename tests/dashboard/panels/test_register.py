"""panels.register: every callback of the page, each declaring its outputs by name."""

from __future__ import annotations


def test_every_callback_declares_its_outputs_by_name():
    """A dict of outputs, never a positional tuple: Dash names such a callback '..a.b..'."""
    from app import app

    ours = [n for n in app.callback_map if not n.endswith(".id")]  # Dash's own: Cancel's
    assert len(ours) >= 13
    for name in ours:
        assert name.startswith(".."), name
