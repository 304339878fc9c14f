"""The story's cards agree (issue 13, problem 8): a job that is not running gets none of the
bandwidth the fabric still has, and the bandwidth cards say so."""

from dashboard.infra import results
from dashboard.panels import cards
from model.scenario import parse_query


def _bandwidth_cards(q: str) -> list:
    return cards.cards(results.result(parse_query(q).scenario))[:2]


def _note(c) -> str:
    return c.children[2].children


def test_an_aborted_job_gets_none_of_the_bandwidth():
    for c in _bandwidth_cards("fail=st3&off=reroute"):  # rerouting off: the job aborts
        assert _note(c).endswith("The job is aborted: it gets none of it.")
        assert "bad" in c.className.split()


def test_a_running_job_s_cards_say_nothing_of_it():
    for c in _bandwidth_cards("fail=st3"):  # rerouted: degraded, running
        assert "gets none of it" not in _note(c) and "bad" not in c.className.split()
