"""A multi-rack domain's scrapes in (model/telemetry/importers/domain.py): one rack's scrape
(/metrics?...&rack=rNN) gives back that rack's attribution with its IDs prefixed, in the
domain's scenario; the domain's own scrape gives back its tier (racks, L1 and L2 chips,
trunk bundles) exactly."""

from __future__ import annotations

import flask
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from dashboard.exporter.domain import domain_text, rack_text
from dashboard.web.blueprint import web
from model import telemetry
from model.assess import assess
from model.evaluate import TELEMETRY_READ_S
from model.multirack.domains import DOMAINS, l2_id, l2_tray_id, rack_id, trunk_id
from model.query import parse_query
from model.telemetry.domain import domain_counters
from model.telemetry.importers import ImportRefused, import_text
from tests.strategies import _IDS, _LINKS

ATTRIBUTED = ("failed", "degrading", "silent", "planned")


@st.composite
def domain_scenarios(draw):
    """A domain with faults in one rack (r), and maybe in its tier: (scenario, r)."""
    d = DOMAINS[draw(st.sampled_from(sorted(DOMAINS)))]
    r = draw(st.integers(0, d.racks - 1))
    pre = f"{rack_id(r)}."
    fail = [pre + x for x in draw(st.lists(st.sampled_from(_IDS["vr-nvl72"]), max_size=4))]
    flaky = [pre + x for x in draw(st.lists(st.sampled_from(_LINKS["vr-nvl72"]), max_size=2))]
    p, k = draw(st.integers(0, d.planes - 1)), draw(st.integers(0, d.l2_per_plane - 1))
    other = draw(st.integers(0, d.racks - 1))
    fail += draw(
        st.lists(
            st.sampled_from([l2_id(p, k), trunk_id(d, other, p, k), rack_id(other), l2_tray_id(1)]),
            max_size=2,
        )
    )
    flaky = [x for x in flaky if not any(x.startswith(f) for f in fail)]
    off = draw(st.lists(st.sampled_from(["telemetry", "reroute", "partial-rack"]), max_size=1))
    q = f"fabric={d.key}" + "".join(
        f"&{key}={','.join(v)}" for key, v in (("fail", fail), ("flaky", flaky), ("off", off)) if v
    )
    return parse_query(q).scenario, r


SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "phases": [Phase.explicit, Phase.generate],
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@pytest.mark.slow
@settings(max_examples=20, **SETTINGS)
@given(domain_scenarios())
def test_one_racks_scrape_gives_back_its_attribution_in_the_domain(case):
    s, r = case
    a = assess(s)
    if a.racks[r] is None:
        with pytest.raises(Exception, match="is lost"):
            rack_text(s, TELEMETRY_READ_S, r, lanes=True)
        return
    want = telemetry.attribution(telemetry.counters(a.racks[r].scenario, TELEMETRY_READ_S))
    got = import_text(rack_text(s, TELEMETRY_READ_S, r, lanes=True))
    pre = f"{rack_id(r)}."
    for key in ATTRIBUTED:
        assert got.attribution[key] == [pre + x for x in want.to_json()[key]], (key, s.key())
    again = parse_query(got.scenario).scenario
    assert again.fabric == s.fabric
    ra = assess(again).racks[r]
    twice = telemetry.attribution(telemetry.counters(ra.scenario, TELEMETRY_READ_S)).to_json()
    if want.possible:
        for key in ("failed", "degrading", "silent"):
            assert twice[key] == want.to_json()[key], (key, s.key(), got.scenario)


@pytest.mark.slow
@settings(max_examples=50, **SETTINGS)
@given(domain_scenarios())
def test_the_domains_own_scrape_gives_back_its_tier(case):
    s, _r = case
    got = import_text(domain_text(s, TELEMETRY_READ_S))
    want, back = domain_counters(s, 0.0), domain_counters(parse_query(got.scenario).scenario, 0.0)
    for name in ("rack_up", "l1_up", "l2_up", "trunk_up"):
        assert np.array_equal(getattr(back, name), getattr(want, name)), (name, s.key())


@pytest.fixture(scope="module")
def client() -> flask.testing.FlaskClient:
    app = flask.Flask(__name__)
    app.register_blueprint(web)
    return app.test_client()


def test_through_the_api_and_what_is_refused(client):
    q = "fabric=vr-nvl576&fail=r03.gpu07-st3.sw2,l2.p05.s3"
    rack = client.get(f"/metrics?{q}&rack=r03&lanes=1").get_data()
    r = client.post("/api/v1/import", data=rack, content_type="text/plain")
    assert r.status_code == 200
    assert r.get_json()["scenario"] == "fabric=vr-nvl576&fail=r03.gpu07-st3.sw2"
    tier = client.post("/api/v1/import", data=client.get(f"/metrics?{q}").get_data())
    assert tier.get_json()["scenario"] == "fabric=vr-nvl576&fail=l2.p05.s3"
    two = rack + client.get(f"/metrics?{q}&rack=r04").get_data()
    bad = client.post("/api/v1/import", data=two, content_type="text/plain")
    assert bad.status_code == 400
    out = bad.get_json()  # named at the file's first sample
    assert "racks r03, r04" in out["error"] and out["error"].startswith(out["token"] + ":")
    with pytest.raises(ImportRefused, match=r"^line 1: the file mixes domains"):
        import_text(
            'nmx_rack_up{rack="r01",fabric="vr-nvl576"} 1\n'
            'nmx_rack_up{rack="r01",fabric="vr-nvl1152"} 1\n'
        )


TIER = domain_text(parse_query("fabric=vr-nvl576&fail=l2.p05.s3,r02").scenario, 0.0).splitlines()


@pytest.mark.slow
@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=len(TIER) - 1),
    st.integers(min_value=0, max_value=80),
    st.text(alphabet=st.sampled_from('{}",=.rl2ps0123456789 _\n'), min_size=1, max_size=8),
)
def test_a_mangled_domain_scrape_names_its_line(i, pos, junk):
    """Never a crash; a refusal names its line; every message about a line names one."""
    lines = list(TIER)
    lines[i] = lines[i][:pos] + junk + lines[i][pos:]
    text = "\n".join(lines)
    try:
        got = import_text(text)
    except ImportRefused as e:
        assert e.message.startswith(f"line {e.line}:")
        return
    parse_query(got.scenario)
    n = len(text.splitlines())
    for m in got.messages:
        if m.startswith("line "):
            assert 1 <= int(m.split(":")[0].split()[1]) <= n
