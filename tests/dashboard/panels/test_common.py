"""What every panel shares: outputs by name."""

from __future__ import annotations

import pytest
from dash import no_update

from dashboard.panels import common


class TestChanges:
    def test_names_what_changed_and_leaves_the_rest(self):
        out = common.changes(("a", "b", "c"), b=2)
        assert list(out) == ["a", "b", "c"]
        assert out["b"] == 2 and out["a"] is no_update and out["c"] is no_update

    def test_refuses_an_output_that_does_not_exist(self):
        with pytest.raises(KeyError, match="typo"):
            common.changes(("a",), typo=1)
