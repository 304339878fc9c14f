"""The headline panel's summary: cards, counts, events, the readers' questions, by name."""

from __future__ import annotations

import pytest

from dashboard.panels import cards
from model import evaluate, parse_query


class TestCards:
    def test_summary_renders_counts_and_drops_bad_tokens(self):
        out = cards.summary("?fail=st3,st10")
        assert tuple(out) == cards.OUTPUTS
        assert out["ready"] == "?fail=st3,st10"
        assert "3.2 TB/s" in str(out["cards"]) + str(out["counts"])
        assert "st10" in str(out["messages"]) and "fail=st3" in out["scenario"]
        assert evaluate(parse_query("fail=st3").scenario)["events"][0] in str(out["events"])
        assert len(out["questions"]) == 4 and "NCCL" in str(out["questions"])

    def test_each_changed_card_says_the_healthy_racks_value(self):
        out = cards.summary("?fail=st3")
        shown = {c.children[0].children: c for c in out["cards"]}
        worst = shown["Worst GPU bandwidth"]
        assert worst.children[1].children == "3.2 TB/s"
        assert worst.children[2].children == "healthy rack: 3.6 TB/s"
        assert shown["Rack bandwidth"].children[2].children == "healthy rack: 259.2 TB/s"
        # the healthy rack's own figure, from the model: the healthy scenario's card
        healthy = {c.children[0].children: c for c in cards.summary("")["cards"]}
        for title, card in shown.items():
            if card.children[2].className == "card-healthy":
                assert (
                    card.children[2].children
                    == f"healthy rack: {healthy[title].children[1].children}"
                )
            else:  # unchanged: no line
                assert card.children[1].children == healthy[title].children[1].children
        assert all(len(c.children) == 3 for c in healthy.values())  # the healthy rack: none

    def test_a_domain_shows_every_block_the_model_answers(self):
        out = cards.summary("?fabric=vr-nvl576&fail=r02.st3")
        r = evaluate(parse_query("fabric=vr-nvl576&fail=r02.st3").scenario)
        shown = {c.children[0].children: c for c in out["cards"]}
        for title in ("Domain bandwidth", "Switch chips", "Partition", "Job", "MoE decode"):
            assert title in shown, title
        assert shown["Job"].children[1].children == r["job"]["state"]  # the model's answer
        worst = shown["Worst GPU bandwidth"]
        assert worst.children[2].children == "healthy domain: 3.6 TB/s"
        assert ("Not modelled yet" in shown) == bool(r["not_modelled_yet"])

    def test_a_domain_says_what_it_does_not_model(self):
        out = cards.summary("?fabric=vr-nvl576&fail=r02.st3")
        assert "r02.st3 failed" in str(out["events"])
        assert "single racks" in str(out["questions"])


class TestEveryFabricInItsOwnWords:
    def _cards(self, q: str) -> str:
        from dashboard.infra import results
        from dashboard.panels import cards as cards_panel
        from model import parse_query

        return str(cards_panel.cards(results.result(parse_query(q).scenario)))

    def test_ethernet_has_no_leader_no_dcgm_and_is_the_baseline(self):
        text = self._cards("fabric=eth-x72&fail=st3")
        assert "leader" not in text and "DCGM" not in text and "x eth-x72" not in text
        assert "no central controller" in text
        # like for like: Ethernet's decode is held against the same Rubin GPUs on NVLink 6
        assert "x vr-nvl72 (the same Rubin GPUs on NVLink 6)" in text
        assert "switch ports' FEC/CRC error counters" in text

    def test_nvlink_fabrics_name_their_own_technology(self):
        assert "DCGM NVLink 6 link counters" in self._cards("fail=st3")
        assert "DCGM NVLink 5 link counters" in self._cards(
            "fabric=gb200-nvl72&fail=st3&on=telemetry"
        )
        assert "x eth-x72 (the same Rubin GPUs on off-the-shelf Ethernet" in self._cards("fail=st3")
        gb200 = self._cards("fabric=gb200-nvl72")
        assert "x b200-roce (the same B200 GPUs as nine 8-GPU HGX islands" in gb200
        assert "eth-x72" not in gb200  # never B200 against a Rubin baseline

    def test_the_features_heading_names_the_fabric(self):
        from dashboard.panels import controls

        assert controls.features_title("vr-nvl72").startswith("NVLink 6 resiliency")
        assert controls.features_title("gb200-nvl72").startswith("NVLink 5 resiliency")
        assert controls.features_title("eth-x72").startswith("What Ethernet does")
        assert "ECMP" in str(controls.feature_options("eth-x72"))


def test_the_decode_card_names_the_deployment_as_run_and_its_idle_gpus():
    """A GPU out: its 71 peers as one elastic group, named by its ranks; five out on gb200 at
    200 tokens/s per user: TEP8, whose groups of 8 leave 3 of the 67 idle, as the model says."""
    from dashboard.panels.cards import decode_card

    one = evaluate(parse_query("fail=gpu08").scenario)["decode"]
    assert (
        "on EP71 elastic, " in decode_card(one, {}).children[2].children and one["idle_gpus"] == 0
    )
    links = "gpu19-st2.sw0,gpu31-st1.sw0,gpu33-st5.sw1,gpu36-st6.sw1,gpu51-st7.sw1"
    five = evaluate(parse_query(f"fabric=gb200-nvl72&at=200&fail={links}").scenario)["decode"]
    note = decode_card(five, {}).children[2].children
    assert (five["idle_gpus"], five["gpus_in_service"]) == (3, 67)
    assert "on TEP8, MTP 3, FP8 KV (its groups leave 3 of the 67 GPUs in service idle): " in note


def test_parked_gpus_are_said_apart_from_the_gpus_the_job_runs_on():
    """gb200 in full-bandwidth mode parks a GPU short of a link: the job restarts on the 70
    others, at full bandwidth. The worst-GPU card, the events' last line and the counts all
    say the GPUs in service, and the parked ones apart (they kept 1.7 TB/s)."""
    from dashboard.panels.cards import cards, counts_table

    r = evaluate(parse_query("fabric=gb200-nvl72&fail=gpu19-st2.sw0,gpu31-st1.sw0").scenario)
    worst = cards(r)[0]
    assert worst.children[1].children == "1.8 TB/s"
    assert worst.children[2].children.endswith("2 parked GPUs keep 1.7 TB/s, out of service.")
    assert r["events"][-1].startswith(
        "now: 70 GPUs in service (2 parked), worst GPU in service 1.8"
    )
    rows = {str(tr.children[0].children): tr.children[1].children for tr in counts_table(r)}
    assert rows["GPUs active (not lost)"] == "72 of 72"
    assert rows["GPUs in service (not parked)"] == "70 of 72" == f"{r['gpus_in_service']} of 72"


def test_the_latency_card_says_when_a_queue_never_clears():
    from dashboard.panels.cards import cards
    from model import evaluate, parse_query

    links = ",".join(f"gpu07-st{t}.sw{c}" for t in range(1, 6) for c in range(4))
    card = cards(evaluate(parse_query(f"fail={links}").scenario))[3]
    title, value, note = (c.children for c in card.children)
    assert title == "Latency p50 / p99" and value.endswith("/ unbounded µs")
    assert note.startswith("queue unstable") and "bad" in card.className
    calm = cards(evaluate(parse_query("").scenario))[3]
    assert "unbounded" not in calm.children[1].children and "bad" not in calm.className


def test_the_cards_answer_carries_the_fault_chips():
    """One request a press for the cards and the chips: the summary, and the chips of the
    same scenario (panels/faults.py)."""
    from dashboard.panels import faults

    q = "?fail=st3&flaky=gpu07-st4.sw1"
    out = cards.summary_and_chips(q)
    assert out.keys() == cards._outputs().keys()  # what the callback answers, by name
    assert set(cards.OUTPUTS) - set(cards.STATIC) < out.keys()
    assert str(out["chips"]) == str(faults.chips(q))
    assert "gpu07-st4.sw1" in str(out["chips"]) and "st3" in str(out["chips"])


def _same(comp, node) -> None:
    """A component tree and its static form agree: tag, class and text, at every level."""
    if isinstance(comp, str | int | float):
        assert node == str(comp)
        return
    assert node[0] == type(comp).__name__.lower()
    assert node[1].get("className") == getattr(comp, "className", None)
    kids = comp.children if isinstance(comp.children, list | tuple) else [comp.children]
    kids = [k for k in kids if k is not None]
    assert len(node[2]) == len(kids), (node, comp)
    for k, n in zip(kids, node[2], strict=True):
        _same(k, n)


@pytest.mark.parametrize(
    "q", ["", "?fail=st3", "?fabric=vr-nvl576&fail=r02.st3", "?fabric=eth-x72&fail=gpu04"]
)
def test_the_static_summary_is_the_summary_as_data(q):
    """The cards, counts, events and questions the browser writes (assets/summary.js) are
    summary()'s components, element for element: the same tags, classes and text."""
    whole = cards.summary(q)
    static = cards.summary_and_chips(q)["static"]
    assert static["search"] == q
    for key, box in cards.STATIC.items():
        got = static["html"][box]
        assert len(got) == len(whole[key]), key
        # every part holds something; the feature notes only off the features' own fabric
        assert got or (key == "feature_notes" and "eth-x72" not in q), key
        for comp, node in zip(whole[key], got, strict=True):
            _same(comp, node)
    first = static["html"][cards.ids.CARDS][0]
    assert first[1]["className"].startswith("card") and first[2][0][2] == ["Worst GPU bandwidth"]


def test_static_html_takes_plain_html_only():
    from dash import dcc, html

    from dashboard.panels.common import static_html

    assert static_html(html.Details([html.Summary("q"), html.P("a")], open=True)) == [
        "details",
        {"open": True},
        [["summary", {}, ["q"]], ["p", {}, ["a"]]],
    ]
    assert static_html(html.Td(3)) == ["td", {}, ["3"]]
    for bad in (dcc.Input(), html.Button("x"), html.Div("x", id="an-id")):
        with pytest.raises(TypeError):
            static_html(bad)
