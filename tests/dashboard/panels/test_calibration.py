"""The calibration panel and GET /api/v1/calibration: every published point, one answer."""

import pytest
from dash.exceptions import PreventUpdate

from dashboard.panels import calibration
from model.reliability.sensitivity import sensitivity
from model.workloads import checks


def test_the_api_serves_every_section_and_the_fitted_terms(client):
    d = client.get("/api/v1/calibration").get_json()
    # the decode calibration, and goodput's sensitivity to each assumption (issue 29)
    assert d == checks.answer() | {"goodput_sensitivity": sensitivity()}
    assert d["goodput_sensitivity"]["rows"][0]["name"] == "link_end_per_h"
    titles = list(d["sections"])
    assert any("NCCL" in t for t in titles) and any("dispatch" in t for t in titles)
    decode = d["sections"]["MoE decode (DeepSeek-R1 FP4 1k/1k unless named)"]
    assert sum(r["fitted"] for r in decode) == 5
    assert {t["term"] for t in d["fitted_terms"]} == set(checks.Dm.TERM_NAMES.values())
    # every check beyond 25% says why on the page
    off = [r for rows in d["sections"].values() for r in rows if abs(r["error_pct"]) > 25]
    assert off and all(len(r["note"]) > 40 for r in off), [r for r in off if len(r["note"]) <= 40]


def test_the_panel_shows_every_row_once_opened(client):
    with pytest.raises(PreventUpdate):
        calibration.fill(None)
    answer = checks.answer()
    text = str(calibration.fill(1)["body"])
    assert text == str(calibration.body(answer))
    for rows in answer["sections"].values():
        for r in rows:
            assert r["point"] in text
    assert "moving it 10% moves a fitted point at most" in text
    # each part's share of the step at 20, 50, 100 and 150 tokens/s per user, the fitted
    # residual named as such, as the answer gives them (issue 29)
    assert "residual (fitted)" in text and "gaps in a layer" in text
    for x in answer["step_shares"]:
        assert f"{x['parts']['residual']:.1%}" in text and x["deployment"] in text
    assert [x["tokens_per_s_per_user"] for x in answer["step_shares"]] == [20, 50, 100, 150]
