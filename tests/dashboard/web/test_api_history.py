"""GET /api/v1/history (issue 30): one sampled history, or two on the same failures, as JSON
or CSV, its parameters declared with their ranges and refused by name."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import quote

import pytest

from model.query import parse_query
from model.reliability.history import history


def test_the_route_answers_the_models_history(client):
    r = client.get("/api/v1/history?racks=40&days=90&seed=3&spares=1&policy=window-7")
    assert r.status_code == 200
    got = r.get_json()
    s = parse_query("repair=window-7").scenario
    assert got == json.loads(json.dumps(history(s, racks=40, days=90, seed=3, spares=True)))
    assert got["policy"] == "window-7" and got["racks"] == 40


def test_against_gives_both_histories_and_their_difference(client):
    q = quote("off=reroute")
    r = client.get(f"/api/v1/history?racks=100&days=60&seed=2&against={q}")
    assert r.status_code == 200
    got = r.get_json()
    assert got["against"]["scenario"] != got["history"]["scenario"]
    assert got["difference"]["goodput"][-1] == pytest.approx(
        got["against"]["fraction"] - got["history"]["fraction"]
    )
    assert got["partings"]["count"] > 0


def test_csv_has_a_row_a_fault_in_words(client):
    r = client.get("/api/v1/history?racks=30&days=120&seed=9&format=csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    js = client.get("/api/v1/history?racks=30&days=120&seed=9").get_json()
    assert len(rows) == len(js["events"]["t_h"]) > 0
    assert rows[0]["kind"] in js["kinds"]["name"] and rows[0]["action"] in js["actions"]
    assert float(rows[-1]["t_h"]) == js["events"]["t_h"][-1]
    assert js["work_unit"] == "tokens" and float(rows[-1]["tokens"]) == js["events"]["work"][-1]


def test_a_training_job_counts_its_lost_work_in_steps(client):
    js = client.get("/api/v1/history?workload=train&racks=8&days=60&seed=4").get_json()
    assert js["work_unit"] == "training steps"
    per = js["per_hour_lost"]
    assert per["steps"] > 0
    for c, w in zip(js["events"]["cost_h"], js["events"]["work"], strict=True):
        assert w == pytest.approx(c * per["steps"], rel=2e-3)


@pytest.mark.parametrize(
    "q,token",
    [
        ("racks=0", "racks"),
        ("racks=2001", "racks"),
        ("racks=2.5", "racks"),
        ("days=0", "days"),
        ("days=366", "days"),
        ("seed=-1", "seed"),
        ("seed=abc", "seed"),
        ("spares=2", "spares"),
        ("policy=soon", "policy"),
        ("format=xml", "format"),
        ("against=" + quote("fabric=nope"), "against"),
        ("against=" + quote("off=warp"), "against"),
    ],
)
def test_bad_parameters_are_400s_naming_them(client, q, token):
    r = client.get(f"/api/v1/history?{q}")
    assert r.status_code == 400
    body = r.get_json()
    assert body["token"] == token, body
    assert token in body["error"]


def test_the_full_size_answer_stays_small(client):
    """2,000 racks x 365 days: ~4.2 MB of JSON, ~1.1 MB as the browser gets it (brotli);
    measured on seed 1 with spares (bench/README.md)."""
    q = "/api/v1/history?racks=2000&days=365&seed=1&spares=1"
    raw = client.get(q, headers={"Accept-Encoding": "identity"})
    br = client.get(q, headers={"Accept-Encoding": "br"})
    assert raw.status_code == br.status_code == 200
    assert len(raw.data) < 6e6
    assert br.headers["Content-Encoding"] == "br" and len(br.data) < 1.5e6


def test_policy_is_both_histories_unless_against_names_its_own(client):
    q = quote("off=reroute")
    both = client.get(f"/api/v1/history?racks=20&days=30&seed=1&policy=window-7&against={q}")
    assert both.get_json()["against"]["policy"] == "window-7"
    own = quote("off=reroute&repair=now,onsite")
    one = client.get(f"/api/v1/history?racks=20&days=30&seed=1&policy=window-7&against={own}")
    got = one.get_json()
    assert got["history"]["policy"] == "window-7" and got["against"]["policy"] == "now,onsite"
