"""The export panel: the results as JSON, or as CSV written by pandas through dcc.send_data_frame."""

from __future__ import annotations

import json


def test_export_json_and_csv(monkeypatch):
    from dashboard.panels import export

    class Ctx:
        triggered_id = "export-json"

    monkeypatch.setattr(export, "ctx", Ctx)
    out = export.export(1, 0, "?fail=st3")["download"]
    assert json.loads(out["content"])["bandwidth"]["per_gpu_tbs"]["min"] == 3.2
    assert out["filename"].endswith(".json")
    Ctx.triggered_id = "export-csv"
    out = export.export(0, 1, "?fail=st3")["download"]
    assert "bandwidth.per_gpu_tbs.min,3.2" in out["content"]
    assert out["content"].startswith("key,value")
    assert out["filename"].endswith(".csv")
