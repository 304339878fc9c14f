"""The one request parser (dashboard/infra/request.py) and the one error handler
(dashboard/web/blueprint.py) every scenario route goes through."""

from __future__ import annotations

import flask
import pytest

from dashboard.api.routes import api
from dashboard.exporter.route import prom
from dashboard.infra.request import Number, Text, scenario_request, split_query
from dashboard.web.blueprint import web
from model import ScenarioError, parse_query
from model.kinds import FabricKind

OWN = {
    "years": Number(0.01, 100.0, default=1.0),
    "racks": Number(1, 10_000, default=1, whole=True),
    "window": Number(0.0, 10.0),
    "link": Text(),
}


@pytest.fixture(scope="module")
def ctx_app() -> flask.Flask:
    return flask.Flask(__name__)


def ask(app: flask.Flask, query: str, own=OWN, **kw):
    with app.test_request_context("/x?" + query if query else "/x"):
        return scenario_request(own, **kw)


def token_of(app: flask.Flask, query: str, own=OWN, **kw) -> str | None:
    with pytest.raises(ScenarioError) as e:
        ask(app, query, own, **kw)
    return e.value.token


def test_scenario_params_defaults_and_notices(ctx_app):
    q = ask(ctx_app, "fail=st3,st3&years=2.5&link=gpu07-st3.sw2&workload=train")
    assert q.scenario == parse_query("fail=st3&workload=train").scenario
    assert dict(q.params) == {"years": 2.5, "racks": 1, "link": "gpu07-st3.sw2"}
    assert isinstance(q.params["racks"], int)
    assert "window" not in q.params  # no default: absent, so the route can tell
    assert q.notices == ("fail: 'st3' is listed more than once; counted once",)
    with pytest.raises(TypeError):
        q.params["years"] = 3.0  # type: ignore[index]


def test_keys_are_url_decoded_and_text_values_too(ctx_app):
    q = ask(ctx_app, "ye%61rs=3&link=a%2Bb+c")
    assert q.params["years"] == 3.0 and q.params["link"] == "a+b c"


@pytest.mark.parametrize(
    "query,token",
    [
        ("years=0", "years"),
        ("years=101", "years"),
        ("years=nan", "years"),
        ("years=inf", "years"),
        ("years=", "years"),
        ("years=abc", "years"),
        ("years=1&years=2", "years"),
        ("link=a&link=b", "link"),
        ("racks=2.5", "racks"),
        ("fail=st10", "st10"),
        ("colour=red", "colour"),
    ],
)
def test_bad_input_names_its_token(ctx_app, query, token):
    assert token_of(ctx_app, query) == token


def test_a_bad_scenario_is_named_before_a_fractional_count(ctx_app):
    assert token_of(ctx_app, "racks=2.5&fail=st10") == "st10"
    # ... but a number out of range is checked first, as each route always did
    assert token_of(ctx_app, "years=0&fail=st10") == "years"


def test_multirack_only_where_the_route_says(ctx_app):
    assert token_of(ctx_app, "fabric=vr-nvl576") == "vr-nvl576"
    assert ask(ctx_app, "fabric=vr-nvl576", multirack=True).scenario.kind is FabricKind.DOMAIN


def test_query_length_and_encoding(ctx_app):
    assert token_of(ctx_app, "fail=" + ",".join(["st1"] * 2000)) == "query"
    bad = {"QUERY_STRING": "fail=\xff"}
    with (
        ctx_app.test_request_context("/x", environ_overrides=bad),
        pytest.raises(ScenarioError) as e,
    ):
        scenario_request()
    assert e.value.token == "query"


def test_split_query_keeps_the_scenario_in_order():
    rest, own = split_query("fail=st3&t_s=5&&off=reroute", {"t_s": Number(0, 10)})
    assert rest == "fail=st3&&off=reroute" and own == {"t_s": 5.0}


# --- the one error handler -------------------------------------------------------------------
def test_one_handler_registered_once_for_both_blueprints():
    assert ScenarioError in web.error_handler_spec[None][None]
    for bp in (api, prom):
        assert not bp.error_handler_spec, f"{bp.name} has its own error handler"


@pytest.fixture(scope="module")
def web_client() -> flask.testing.FlaskClient:
    app = flask.Flask(__name__)
    app.register_blueprint(web)

    @app.get("/elsewhere")
    def elsewhere():  # not under the web layer: its ScenarioError is not the API's 400
        raise ScenarioError("not mine", token="x")

    return app.test_client()


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/evaluate?fail=st10",
        "/api/v1/decode?fail=st10",
        "/api/v1/goodput?fail=st10",
        "/api/v1/telemetry?fail=st10",
        "/api/v1/timeline?fail=st10",
        "/metrics?fail=st10",
    ],
)
def test_every_scenario_route_answers_a_bad_scenario_alike(web_client, url):
    r = web_client.get(url)
    assert r.status_code == 400 and r.is_json
    assert r.get_json() == {"error": r.get_json()["error"], "token": "st10"}
    assert "st10" in r.get_json()["error"]


def test_the_handler_is_scoped_to_the_web_layer(web_client):
    r = web_client.get("/elsewhere")
    assert r.status_code == 500
    assert r.get_json() == {
        "error": "internal error; the scenario is kept in your URL",
        "token": None,
    }


def test_wrong_method_is_json_405_on_api_and_metrics(web_client):
    for path in ("/api/v1/evaluate", "/metrics"):
        r = web_client.post(path)
        assert r.status_code == 405
        assert r.get_json() == {"error": f"POST is not allowed on {path}; use GET", "token": "POST"}


def test_topology_reads_through_the_same_parser(web_client):
    assert web_client.get("/api/v1/topology?fabric=gb200-nvl72").status_code == 200
    r = web_client.get("/api/v1/topology?&rack=1")
    assert r.status_code == 400 and r.get_json()["token"] == "rack"
    r = web_client.get("/api/v1/topology?fabric=eth-x72&fabric=vr-nvl72")
    assert r.status_code == 400 and r.get_json()["token"] == "fabric"
    assert web_client.get("/api/v1/topology?fabric=").get_json()["fabric"] == "vr-nvl72"
