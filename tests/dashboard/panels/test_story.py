"""The story's cards agree (issue 13, problem 8): a job that is not running gets none of the
bandwidth the fabric still has, and the bandwidth cards say so."""

from dashboard.infra import results
from dashboard.panels import cards
from model.query import parse_query


def _bandwidth_cards(q: str) -> list:
    return cards.cards(results.result(parse_query(q).scenario))[:2]


def _note(c) -> str:
    return c.children[2].children


def _value(c) -> str:
    return c.children[1].children


def test_an_aborted_job_gets_none_of_the_bandwidth():
    worst, rack = _bandwidth_cards("fail=st3&off=reroute")  # rerouting off: the job aborts
    for c in (worst, rack):
        assert _value(c) == "0 TB/s"  # the job's, not the fabric's (issue 28, problem 5)
        assert "The job is aborted and restarts after repair: until then it gets none" in _note(c)
        assert _note(c).endswith(" TB/s.") and ". The" in _note(c)  # sentences, punctuated
        assert "bad" in c.className.split()
    assert "none of the fabric's 3.2 TB/s." in _note(worst)


def test_a_job_restarted_at_once_gets_what_remains_and_the_cards_say_so():
    """Issue 28 (1): /?fail=gpu08,st3 said "aborted" and "it gets none of it" beside decode's
    98% and 227 TB/s of all-to-all: the job restarts at once on the 71 GPUs that remain."""
    for c in _bandwidth_cards("fail=gpu08,st3"):
        assert "gets none" not in _note(c) and _value(c) != "0 TB/s"
        assert _note(c).endswith(
            "The job restarts at once on the 71 GPUs that remain: this is what it gets then."
        )


def test_a_running_job_s_cards_say_nothing_of_it():
    for c in _bandwidth_cards("fail=st3"):  # rerouted: degraded, running
        assert "gets none of it" not in _note(c) and "bad" not in c.className.split()


def _job_card(q: str):
    (job,) = [
        c
        for c in cards.cards(results.result(parse_query(q).scenario))
        if c.children[0].children == "Job"
    ]
    return job


def test_the_job_card_tells_the_same_story_as_the_bandwidth_cards():
    """Issue 28 (1): the job card said "aborted" beside decode's 98%. A job restarted at once
    reads as restarted on what remains (warn, it runs), one stopped until repair as such (bad),
    and a rerouted one as degraded."""
    for q, value, tone in (
        ("fail=gpu08,st3", "restarted on 71 GPUs", "warn"),
        ("fail=st3&off=reroute", "aborted until repair", "bad"),
        ("fail=st3", "degraded", "warn"),
        ("", "running", "ok"),
    ):
        c = _job_card(q)
        assert (_value(c), tone) == (value, c.className.split()[-1]), q
    assert _note(_job_card("fail=gpu08,st3")).endswith(
        "it restarted from its checkpoint at once on the 71 GPUs that remain"
    )


def test_ethernet_s_card_is_not_nmx_s_partition():
    """Issue 28 (4): eth-x72's card read NMX's "HEALTHY" with ports down on every GPU, though
    Ethernet has no NMX partition. It is titled and valued in ECMP's words."""
    for q, value, tone in (
        ("fabric=eth-x72", "all ports up", "ok"),
        ("fabric=eth-x72&fail=st3", "fewer ports", "warn"),  # bandwidth lost, not healthy
        ("fabric=eth-x72&fail=gpu08", "GPUs out", "warn"),
        ("fabric=eth-x72&fail=st3&off=reroute", "dead ports in use", "bad"),
    ):
        (c,) = [
            c
            for c in cards.cards(results.result(parse_query(q).scenario))
            if c.children[0].children == "ECMP routing"
        ]
        assert (_value(c), c.className.split()[-1]) == (value, tone), q
    titles = [c.children[0].children for c in cards.cards(results.result(parse_query("").scenario))]
    assert "Partition" in titles and "ECMP routing" not in titles


def test_a_domain_s_partition_and_job_count_the_same_gpus():
    """Issue 28 (1): on vr-nvl576 the partition said the domain shrinks to 71 GPUs (its rack's
    words) while the job card said 575. Both now count the domain's."""
    r = results.result(parse_query("fabric=vr-nvl576&fail=r01.gpu10,r02.st3").scenario)
    assert r["job"]["headline"] == "restarted on 575 GPUs"
    why = r["partition"]["explanation"]
    assert why.endswith("the domain shrinks to 575 GPUs") and "to 71" not in why, why
