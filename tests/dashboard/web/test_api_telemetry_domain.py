"""GET /api/v1/telemetry on a multi-rack domain (dashboard/api/telemetry_domain.py): the
tier by ID, every GPU's fabric health, evaluate's attribution, and one rack's counters and
one link's series with rack-prefixed IDs, each held against the model's own answer."""

from __future__ import annotations

import flask
import pytest

from dashboard.web.blueprint import web
from model import telemetry
from model.assess import assess
from model.evaluate import evaluate
from model.query import parse_query


@pytest.fixture(scope="module")
def client() -> flask.testing.FlaskClient:
    app = flask.Flask(__name__)
    app.register_blueprint(web)
    return app.test_client()


def get(client, query: str) -> dict:
    r = client.get(f"/api/v1/telemetry?{query}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_the_tier_and_the_attribution_are_the_models(client):
    q = "fabric=vr-nvl576&fail=l2.p05.s3,r02,r05.st3.sw1&flaky=r03.st2.sw1-l2.s1"
    out = get(client, q)
    c = out["counters"]
    assert c["racks_down"] == ["r02"] and c["l2_chips_down"] == ["l2.p05.s3"]
    assert c["l1_chips_down"] == ["r05.st3.sw1"]
    assert c["trunks_degrading"] == ["r03.st2.sw1-l2.s1"]
    assert "r01.st2.sw1-l2.s3" in c["trunks_down"] and len(c["trunks_down"]) == 8 + 144 + 3
    assert c["fabric_health"]["mask"][72:144] == [0] * 72  # the lost rack reports nothing
    assert len(c["fabric_health"]["mask"]) == 576
    assert out["attribution"] == evaluate(parse_query(q).scenario)["telemetry"]


def test_one_rack_and_one_link_prefixed(client):
    q = "fabric=vr-nvl1152&flaky=r03.gpu07-st3.sw2"
    out = get(client, f"{q}&link=r03.gpu07-st3.sw2&t_s=86400&t0_s=0&t1_s=86400&step_s=3600")
    ra = assess(parse_query(q).scenario).racks[2]
    want = telemetry.link_series(ra.scenario, "gpu07-st3.sw2", 0.0, 86400.0, 3600.0)
    assert out["series"] == {**want, "id": "r03.gpu07-st3.sw2"}
    assert out["forecast"]["link"] == "r03.gpu07-st3.sw2"
    assert out["rack"]["id"] == "r03"
    snap = telemetry.counters(ra.scenario, 86400.0)
    assert (
        out["rack"]["counters"]["link"][telemetry.RECOVERY]
        == snap.to_json()["link"][telemetry.RECOVERY]
    )
    lanes = get(client, f"{q}&rack=r03&cables=1")["rack"]["counters"]["lane"]
    assert lanes is not None and telemetry.LANE_STATE in lanes


@pytest.mark.parametrize(
    "query, token",
    [
        ("rack=r03", "rack"),
        ("fabric=vr-nvl576&rack=r09", "r09"),
        ("fabric=vr-nvl576&fail=r02&rack=r02", "rack"),
        ("fabric=vr-nvl576&link=l2.p05.s3", "l2.p05.s3"),
        ("fabric=vr-nvl576&link=r03.gpu07", "r03.gpu07"),
        ("fabric=vr-nvl576&link=r03.gpu07-st3.sw2&rack=r04", "rack"),
        ("fabric=vr-nvl576&link=r03.gpu07-st3.sw2&t0_s=0&t1_s=864000&step_s=1", "step_s"),
        ("fabric=vr-nvl576&link=r03.gpu07-st3.sw2&t0_s=100&t1_s=50", "t1_s"),
    ],
)
def test_a_bad_domain_query_is_400_naming_what(client, query, token):
    r = client.get(f"/api/v1/telemetry?{query}")
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["token"] == token
