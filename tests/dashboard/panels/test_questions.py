"""The readers' questions in the fabric's own words (issue 28): its rerouting, its reduction,
its name for itself, and the article's 1.8 TB/s said once."""

from __future__ import annotations

from dashboard.panels.questions import answers
from model import evaluate, parse_query


def _said(q: str) -> list[str]:
    """The four answers: three days lost, the 1.8 TB/s, the 502s, NCCL."""
    return [answer for _question, answer in answers(evaluate(parse_query(q).scenario))]


def test_gb200_does_not_say_it_is_itself():
    """ "GB200 NVL72 (NVLink 5) gives 1.8 TB/s ... (GB200 NVL72 is the 1.8 TB/s one)"."""
    bw = _said("fabric=gb200-nvl72&fail=st3")[1]
    assert bw.count("GB200") == 1 and "that is the 1.8 TB/s" in bw


def test_ethernet_answers_in_ethernets_words():
    days, _bw, http, nccl = _said("fabric=eth-x72&fail=st3")
    assert "routed around by ECMP reconvergence in about 3 s" in days
    assert "not the Ethernet scale-up fabric" in http and "NVLink" not in http
    assert "no in-switch reduction (off-the-shelf Ethernet switches" in nccl
    assert "0 TFLOPS" not in nccl


def test_vera_rubin_reroutes_in_its_own_words():
    days, bw, http, _nccl = _said("fail=gpu07-st3.sw2")
    assert "routed around by NVLink 6 dynamic rerouting in about 1 ms" in days
    assert "the 1.8 TB/s is GB200 NVL72's, on NVLink 5" in bw
    assert "the worst GPU has 3.5 TB/s and the mean is 3.599" in bw
    assert "not the NVLink 6 scale-up fabric" in http
