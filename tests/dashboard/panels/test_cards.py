"""The headline panel's summary: cards, counts, events, the readers' questions, by name."""

from __future__ import annotations

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

    def test_a_domain_says_what_it_does_not_model(self):
        out = cards.summary("?fabric=vr-nvl576&fail=r02.st3")
        assert "r02.st3 failed" in str(out["events"])
        assert "single racks" in str(out["questions"])
