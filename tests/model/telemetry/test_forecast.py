"""The failure forecast from a link's recovery and replay trend (model/telemetry/forecast.py)."""

import numpy as np

from model import telemetry as T
from tests.model.telemetry.helpers import sc

GB200 = "fabric=gb200-nvl72&on=telemetry&flaky=gpu07-st3.sw1"


def test_the_gb200_case_is_drained_before_it_fails():
    """The public case, read every half day from day 1 to an hour before the link-down the
    model projects at five days: drain now every time, so before the failure."""
    s = sc(GB200)
    for t in [*np.arange(1, 5, 0.5) * 86400, T.FLAKY_TTF_S - 3600]:
        f = T.forecast(s, "gpu07-st3.sw1", float(t))
        assert f.action == "drain now", (t, f)
        assert f.flagged_windows > 15
    assert T.counters(s, T.FLAKY_TTF_S - 60).state[7, 4] == T.ACTIVE  # still up when drained
    doc = T.forecast(s, "gpu07-st3.sw1", 4 * 86400).to_json()
    assert "GB200" in doc["source"] and "drain now" in doc["rule"]


def test_time_to_failure_is_right_on_the_median():
    """24 degrading links read a day before they fail: the median forecast is within 6 h of
    the truth (24 h); one link's is noisy (~6 recoveries an hour), as the docs say."""
    links = [f"gpu{g:02d}-st{g % 9 + 1}.sw{g % 4}" for g in range(0, 72, 3)]
    s = sc("flaky=" + ",".join(links))
    est = [T.forecast(s, x, T.FLAKY_TTF_S - 86400).time_to_failure_s for x in links]
    assert all(x is not None for x in est)
    assert abs(np.median(est) / 3600 - 24) < 6


def test_healthy_down_and_blind_links():
    s = sc("flaky=gpu07-st3.sw2&fail=gpu09-st1.sw0")
    healthy = T.forecast(s, "gpu08-st3.sw2", 3 * 86400)
    assert healthy.action == "fine" and healthy.time_to_failure_s is None
    down = T.forecast(s, "gpu09-st1.sw0", 3 * 86400)
    assert down.action == "drain now" and "down already" in down.why
    blind = T.forecast(sc("flaky=gpu07-st3.sw2&off=telemetry"), "gpu07-st3.sw2", 3 * 86400)
    assert blind.action == "fine" and "feature is off" in blind.why
    assert blind.recoveries > 0  # the counters are there; nothing acts on them
