"""Lifetime goodput on the 576- and 1,152-GPU domains (model/reliability/domain.py, site.py):
what is counted, that both methods agree, and that the relations one rack holds hold here."""

import pytest

from model.fabric.features import FEATURE_KEYS
from model.multirack.domains import DOMAINS, l2_trays
from model.query import parse_query
from model.reliability import compare as C
from model.reliability import domain as DOM
from model.reliability import goodput as G
from model.reliability.rates import DEFAULT_RATES, DOMAIN_ONLY_FIELDS, HOURS_PER_YEAR
from model.reliability.site import site_of

R = DEFAULT_RATES


def _s(q: str):
    return parse_query(q).scenario


def _kinds(r: dict) -> dict[str, float]:
    return {k["kind"]: k["per_rack_year"] for k in r["kinds"]}


@pytest.mark.parametrize("key", sorted(DOMAINS))
def test_every_part_of_the_domain_is_counted(key):
    d = DOMAINS[key]
    rack = _kinds(G.closed_form(_s("fabric=vr-nvl72")))
    k = _kinds(G.closed_form(_s(f"fabric={key}")))
    y = HOURS_PER_YEAR
    # the racks' own parts: every rack's, so a rack's rate times the racks
    for kind in ("gpu", "compute-tray", "software", "cable", "link end", "switch-chip"):
        assert k[kind] == pytest.approx(rack[kind] * d.racks)
    # trays and controllers: R - 1 rack leaders and one global home beside the other trays
    assert k["switch-tray"] + k["leader switch-tray"] + k["rack-leader switch-tray"] == (
        pytest.approx(R.switch_tray_per_h * d.racks * 9 * y)
    )
    assert k["rack-leader controller"] == pytest.approx(R.controller_per_h * (d.racks - 1) * y)
    # only a domain has these: the L2 tier and the trunks, each with its rate
    assert k["L2 switch-chip"] == pytest.approx(R.switch_chip_per_h * d.l2_chips * y)
    assert k["L2 switch-tray"] == pytest.approx(R.switch_tray_per_h * l2_trays(d) * y)
    trunks = k["trunk link"] + k["trunk link, flagged by telemetry"]
    assert trunks == pytest.approx(R.trunk_link_per_h * d.racks * 36 * 72 * y)
    assert site_of(_s(f"fabric={key}")).trunks == d.racks * 36 * 72


def test_the_domains_trunks_rate_is_its_own_and_named():
    s = _s("fabric=vr-nvl576")
    base = G.closed_form(s)["fraction"]
    more = G.closed_form(s, R.with_overrides(trunk_link_per_h=R.trunk_link_per_h * 50))
    assert more["fraction"] < base  # trunk faults cost something (reroute stalls, swaps)
    # one rack never reads it: the same answer whatever it is
    one = _s("fabric=vr-nvl72")
    a = G.closed_form(one)["fraction"]
    assert G.closed_form(one, R.with_overrides(trunk_link_per_h=1e-3))["fraction"] == a
    assert "trunk_link_per_h" in DOMAIN_ONLY_FIELDS


@pytest.mark.parametrize("key", sorted(DOMAINS))
def test_closed_form_and_monte_carlo_agree_on_a_domain(key):
    s = _s(f"fabric={key}")
    cf = G.closed_form(s)
    mc = G.monte_carlo(s, key="domain", sample_racks=G.default_sample_racks(1.0, 1))
    assert abs(cf["fraction"] - mc["fraction"]) < 0.002
    lo, hi = mc["ci95"]
    assert lo <= mc["fraction"] <= hi


def test_a_domain_is_one_job_its_racks_faults_stop_it_all():
    """A 1,152-GPU domain has sixteen racks' faults and one job: its goodput is below one
    rack's, and above nothing: every fault the rack survives, it survives too."""
    rack = G.closed_form(_s("fabric=vr-nvl72"))["fraction"]
    small = G.closed_form(_s("fabric=vr-nvl576"))["fraction"]
    big = G.closed_form(_s("fabric=vr-nvl1152"))["fraction"]
    assert big < small < rack
    assert big > 0.5


@pytest.mark.parametrize("q", ["fabric=vr-nvl576", "fabric=vr-nvl576&workload=train"])
def test_more_faults_or_fewer_features_never_raise_a_domains_goodput(q):
    s = _s(q)
    base = G.closed_form(s)["fraction"]
    assert G.closed_form(s, R.scaled(2.0))["fraction"] <= base + 1e-12
    assert G.closed_form(s, job_racks=2)["fraction"] <= base + 1e-12  # a job over two domains
    for k in ("partial-rack", "reroute", "hot-swap", "issu", "cp-resilience"):
        off = G.closed_form(_s(f"{q}&off={k}"))["fraction"]
        assert off <= base + 1e-12, k


def test_the_degraded_rate_is_the_domains_own_job():
    """delivered() reads the domain's decode frontier and training step: a lost rack costs
    its share of the GPUs, a lost L2 group a little, the healthy domain nothing."""
    assert DOM.delivered(_s("fabric=vr-nvl1152")) == pytest.approx(1.0)
    lost = DOM.delivered(_s("fabric=vr-nvl1152&fail=r03&workload=train"))
    assert lost == pytest.approx(15 / 16, rel=0.02)
    l2 = ",".join(f"l2.p05.s{k}" for k in range(8))
    x = DOM.delivered(_s(f"fabric=vr-nvl1152&fail={l2}&workload=train"))
    assert 0.99 < x < 1.0
    assert DOM.healthy_tokens_per_s(_s("fabric=vr-nvl1152")) > 16 * (
        DOM.healthy_tokens_per_s(_s("fabric=vr-nvl576")) / 8 * 0.99
    )


def test_the_seven_features_on_a_domain_beside_one_rack():
    v = C.feature_values(scales=C.scales_for(1, False, "vr-nvl1152"), fabric="vr-nvl1152")
    kept = [sc.pop("kept") for sc in v["scales"]]
    assert v["scales"] == [{"job_racks": 1, "spares": False, "gpus": 1152}]
    # why it keeps its goodput, said of the domain (issue 28, 6)
    assert kept[0]["sentence"].startswith("a job over 1 domain (1,152 GPUs) keeps")
    keys = [r["key"] for r in v["rows"]]
    assert keys[0] == "vr-nvl1152" and len(keys) == 8  # all seven, then each off
    for row in v["rows"][1:]:
        a = row["at"][0]
        assert a["value_pp"] >= -1e-9
        assert a["gpu_hours_per_year"] == pytest.approx(a["value_pp"] / 100 * 1152 * 8766)
        assert a["why"]
    # partial-rack operation is worth more to a domain than to one rack: a GPU's fault
    # anywhere in sixteen racks would take the whole domain down for its repair
    rack = C.feature_values(scales=((1, False),))
    pr = {r["key"]: r["at"][0]["value_pp"] for r in rack["rows"]}
    dm = {r["key"]: r["at"][0]["value_pp"] for r in v["rows"]}
    assert dm["partial-rack"] > pr["partial-rack"]


def test_the_docs_carry_the_domain_beside_one_rack():
    """docs/GOODPUT.md's domain section is compare.beside's table: three columns (one rack,
    sixteen racks on scale-out, the 1,152-GPU domain), the reference row and seven features,
    each feature with its sentence for every column."""
    from pathlib import Path

    b = C.beside()
    assert len(b["columns"]) == 3 and [r["key"] for r in b["rows"]][1:] == list(FEATURE_KEYS)
    md = C.markdown_beside(b)
    rows = [x for x in md.splitlines() if x.startswith("| ") and not x.startswith("| feature")]
    assert len(rows) == 8 and all(x.count("|") == 1 + 3 * 3 + 1 for x in rows)
    sentences = [x for x in md.splitlines() if x.startswith("- **")]
    assert len(sentences) == 7 and all(x.count("(+") + x.count("(-") == 3 for x in sentences)
    doc = Path(__file__).resolve().parents[3].joinpath("docs", "GOODPUT.md").read_text()
    head, _, rest = doc.partition("<!-- domain:begin -->")
    section, _, _ = rest.partition("<!-- domain:end -->")
    assert head and section.count("\n| ") == 9  # the header and the eight rows, generated


@pytest.mark.parametrize("q", ["fabric=vr-nvl1152&fail=r03.st2", "fabric=vr-nvl576&workload=train"])
def test_one_answer_on_a_domain_evaluate_goodput_and_the_timeline(q):
    """evaluate's goodput and training blocks, the API's goodput and the timeline read the
    same functions: one checkpoint interval, one degraded rate, nothing left unmodelled."""
    from model import evaluate
    from model.reliability.accounting import checkpoint_interval_s
    from model.reliability.timeline import timeline

    s = _s(q)
    r = evaluate(s)
    assert r["not_modelled_yet"] == []
    assert r["goodput"]["fraction"] == G.closed_form(s)["fraction"]
    tau = checkpoint_interval_s(s)
    assert r["goodput"]["checkpoint_interval_s"] == tau
    assert r["delivered_fraction"] == DOM.delivered(s)
    assert r["training"]["step_time_s"] is not None
    if s.fail:
        assert timeline(s, s.fail[0])["checkpoint_interval_s"] == pytest.approx(tau)


def test_repair_policies_and_the_optimiser_on_a_domain():
    """Deferred repairs on a domain: a dark plane is its chip in every rack (site.dark_ids),
    the slowdown is the domain's own; the optimiser never does worse than repairing at once."""
    from model.reliability import outcomes
    from model.reliability.site import dark_ids

    s = _s("fabric=vr-nvl576")
    ids = dark_ids(s, site_of(s), 2, 1)
    assert len(ids) == 2 + 8 and all(i.startswith("r") for i in ids)
    slow = outcomes.dark_slowdown(s, 2, 1)
    assert 0.0 <= slow < 1.0
    b = G.best_policy(s)
    now = next(t for t in b["tried"] if t["policy"] == "now")
    assert len(b["tried"]) == 22 and b["gain_vs_now"] >= 0.0
    assert max(t["fraction"] for t in b["tried"]) == pytest.approx(
        now["fraction"] + b["gain_vs_now"]
    )
