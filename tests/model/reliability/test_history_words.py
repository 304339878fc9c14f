"""A history's sentences (issue 30): written from its answer, every number the answer's."""

from __future__ import annotations

from model.query import parse_query
from model.reliability.history import STATES, history
from model.reliability.history_words import (
    STATE_WORDS,
    big,
    event_sentence,
    link_answer,
    so_far,
    summary,
    when,
)
from model.words import money

VR = parse_query("").scenario


def test_every_state_has_its_words_and_times_read_in_days():
    assert tuple(STATE_WORDS) == STATES
    assert when(0.0) == "day 0.0" and when(36.0) == "day 1.5" and when(8760.0) == "day 365.0"
    assert big(5.97e11) == "597 billion" and big(2.41e6) == "2.41 million" and big(283) == "283"


def test_an_event_says_when_where_what_and_what_it_cost():
    h = history(VR, racks=16, days=120, seed=1)
    for i in range(20):
        text = event_sentence(h, i)
        e, k = h["events"], h["kinds"]
        assert text.startswith(when(e["t_h"][i]) + f", rack {e['rack'][i]}: ")
        assert k["name"][e["kind"][i]] in text
        assert h["actions"][k["action"][e["kind"][i]]] in text
        if e["cost_h"][i] > 0:
            assert money(e["cost_h"][i] * h["per_hour_lost"]["money"]) in text


def test_the_readers_question_counts_the_models_link_stops():
    for q in ("", "fabric=gb200-nvl72"):
        h = history(parse_query(q).scenario, racks=16, days=365, seed=1)
        ls = h["link_stops"]
        text = link_answer(h)
        assert text.startswith(f"{ls['link_faults']} single links failed in 365 days")
        assert f"; {ls['stopped_the_job']} of them stopped the job" in text
        assert money(ls["total_money"]) + " in all" in text


def test_the_summary_and_the_job_so_far_read_the_series():
    h = history(VR, racks=16, days=60, seed=2)
    assert f"kept {h['fraction']:.1%} goodput" in summary(h)
    i = len(h["series"]["t_h"]) - 1
    assert f"{h['series']['goodput'][i]:.1%} goodput so far" in so_far(h, i)
    assert f"restarted {h['series']['restarts'][i]} times" in so_far(h, i)
