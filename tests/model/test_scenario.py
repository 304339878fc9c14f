"""The scenario's query form: canonical, exact round trip, every bad token named."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.errors import ScenarioError
from model.fabric.features import FEATURE_KEYS
from model.query import parse_query
from model.scenario import MAX_IDS, MAX_QUERY_LENGTH, Scenario, to_query
from tests.strategies import scenarios


def test_defaults():
    s = parse_query("").scenario
    assert s == Scenario()
    assert s.fabric == "vr-nvl72" and s.workload == "deepseek-r1"
    assert s.features == frozenset(FEATURE_KEYS)
    assert to_query(s) == ""
    assert s.key() == "fabric=vr-nvl72"


def test_order_and_duplicates_do_not_matter():
    a = parse_query("fail=st3,gpu07,gpu07-st3.sw2.c0&off=reroute,issu").scenario
    b = parse_query("?off=issu,reroute&fail=gpu07-st3.sw2.c0,st3,gpu07,st3").scenario
    assert a == b
    assert to_query(a) == "fail=gpu07,st3,gpu07-st3.sw2.c0&off=reroute,issu"


def test_duplicates_are_reported_not_dropped_silently():
    p = parse_query("fail=st3,st3")
    assert p.scenario.fail == ("st3",)
    assert any("'st3' is listed more than once" in n for n in p.notices)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_exact_round_trip(s):
    q = to_query(s)
    back = parse_query(q).scenario
    assert back == s
    assert to_query(back) == q
    assert parse_query(s.key()).scenario == s


@pytest.mark.parametrize(
    "query,token",
    [
        ("colour=red", "colour"),
        ("fabric=nvl144", "nvl144"),
        ("fail=st10", "st10"),
        ("fail=gpu72", "gpu72"),
        ("fabric=gb200-nvl72&fail=st3.sw3", "st3.sw3"),
        ("fail=gpu7", "gpu7"),
        ("off=warp-drive", "warp-drive"),
        ("on=reroute&off=reroute", "reroute"),
        ("workload=llama", "llama"),
        ("flaky=st3", "st3"),
        ("update=st3.sw1", "st3.sw1"),
        ("fail=st1&fail=st2", "fail"),
        ("fabric=gb200-nvl72&eth_bw=2", "eth_bw"),  # vr-nvl72 takes it: its Ethernet baseline
        ("at=1", "at"),
        ("at=fast", "at"),
        ("at=601", "at"),
        ("fabric=b200-roce&at=nan", "at"),
        ("fabric=vr-nvl576&at=inf", "at"),
        ("fabric=eth-x72&eth_bw=fast", "fast"),
        ("fabric=eth-x72&eth_bw=99", "99"),
        ("fail=" + "st1," * 1500, "query"),
        ("fail=" + ",".join(["gpu01"] * (MAX_IDS + 1)), "fail"),
    ],
)
def test_bad_input_names_the_token(query, token):
    with pytest.raises(ScenarioError) as e:
        parse_query(query)
    assert e.value.token == token
    assert token in e.value.message or token == "query"


def test_oversized_query_is_refused_before_parsing():
    with pytest.raises(ScenarioError, match=str(MAX_QUERY_LENGTH)):
        parse_query("x" * (MAX_QUERY_LENGTH + 1))


def test_lenient_mode_drops_bad_tokens_and_keeps_the_rest():
    p = parse_query("fail=st3,st10,gpu99&off=reroute,bogus&colour=red", strict=False)
    assert p.scenario.fail == ("st3",)
    assert p.scenario.off == ("reroute",)
    joined = " ".join(p.errors)
    for tok in ("st10", "gpu99", "bogus", "colour"):
        assert tok in joined


def test_features_relative_to_fabric_defaults():
    gb = parse_query("fabric=gb200-nvl72").scenario
    assert "reroute" not in gb.features
    on = parse_query("fabric=gb200-nvl72&on=reroute").scenario
    assert "reroute" in on.features
    p = parse_query("fabric=gb200-nvl72&off=reroute")
    assert p.scenario.off == () and any("already off" in n for n in p.notices)


def test_update_all_and_trays():
    assert parse_query("update=all").scenario.update == ("all",)
    assert parse_query("update=st5,st2").scenario.update == ("st2", "st5")


@given(st.text(max_size=200))
def test_parser_never_fails_other_than_scenario_error(text):
    try:
        parse_query(text)
    except ScenarioError as e:
        assert e.message
    p = parse_query(text, strict=False)
    assert isinstance(p.scenario, Scenario)
