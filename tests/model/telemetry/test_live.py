"""Live mode's pure half: Prometheus's answers read (garbage refused, naming the series), the
scrape text they make (two timestamped readings of the per-GPU sums: a rate), the union with
NMX-Manager's answers, and the drain rule on a measured trend."""

from __future__ import annotations

import math

import pytest

from model.assess import assess
from model.query import parse_query
from model.telemetry import counters
from model.telemetry.forecast import FAIL_RATE_PER_S, from_rates
from model.telemetry.importers import nmx_answers
from model.telemetry.importers import prometheus as promapi
from model.telemetry.live import build

REPLAY = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"
STATE = "DCGM_FI_DEV_NVLINK_GET_STATE"


def _vector(*rows: tuple[str, dict, str], t: float = 1000.0) -> dict:
    result = [{"metric": {"__name__": n, **lab}, "value": [t, v]} for n, lab, v in rows]
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


def test_the_queries_name_the_rack_and_the_window():
    q = promapi.queries('job="rack-a"', 300)
    assert q["sums_over_window"].endswith("[300s]") and 'job="rack-a"' in q["gpu_links"]
    assert q["rate_link_recovery"].startswith("rate(") and "[300s])" in q["rate_link_recovery"]
    assert "offset 300s" in q["rate_link_recovery_before"]
    assert "," not in promapi.queries("", 60)["gpu_links"]  # no selector: no dangling comma


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        (STATE, "7", "not a link state"),
        (STATE, "NaN", "not a link state"),
        (REPLAY, "-5", "not a count"),
        (REPLAY, "+Inf", "not a count"),
        (REPLAY, "lots", "not a number"),
    ],
)
def test_garbage_is_refused_naming_the_series(name, value, said):
    with pytest.raises(promapi.Garbage) as e:
        promapi.series("q", _vector((name, {"gpu": "3", "link": "gpu03-st1.sw0"}, value)))
    assert said in str(e.value) and name in str(e.value) and 'gpu="3"' in str(e.value)


def test_a_nan_ber_and_a_zero_state_are_no_garbage():
    got = promapi.series(
        "q",
        _vector(
            ("NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER", {"link": "x"}, "NaN"),
            (STATE, {"link": "x"}, "0"),
        ),
    )
    assert [s.name for s in got] == ["NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER", STATE]


@pytest.mark.parametrize(
    "answer",
    [
        {"status": "error", "error": "parse error"},
        {"status": "success", "data": {"resultType": "scalar", "result": [1, "2"]}},
        ["not", "an", "object"],
    ],
)
def test_an_answer_that_is_no_vector_is_refused(answer):
    with pytest.raises(promapi.Garbage):
        promapi.series("q", answer)


def test_the_sums_over_the_window_are_two_readings_with_a_rate():
    """A default scrape's one erring GPU, as Prometheus answers it: its replays 100 then 700
    over 60 s of the window: the importer reads a rate of 10/s on its host's tray."""
    lab = {"gpu": "2", "UUID": "GPU-a", "Hostname": "node-07", "modelName": "NVIDIA GB200"}
    others = [
        {"gpu": str(g), "UUID": f"GPU-{h}{g}", "Hostname": f"node-{h:02d}"}
        for h in range(1, 19)
        for g in range(4)
        if (h, g) != (7, 2)
    ]
    window = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {"metric": {"__name__": REPLAY, **lab}, "values": [[940, "100"], [1000, "700"]]},
                *(
                    {"metric": {"__name__": REPLAY, **o}, "values": [[940, "3"], [1000, "3"]]}
                    for o in others
                ),
            ],
        },
    }
    sums = promapi.series("w", window)
    instant = promapi.series(
        "i", _vector((REPLAY, lab, "700"), *((REPLAY, o, "3") for o in others))
    )
    got = build(promapi.scrape_text(instant, sums), None, {}, 60.0, "gb200-nvl72")
    assert [x["gpu"] for x in got.erring_gpus] == ["gpu26"]
    x = got.erring_gpus[0]
    assert x["compute_tray"] == "ct07" and x["counters"][REPLAY]["per_s"] == pytest.approx(10.0)
    assert got.query == "fabric=gb200-nvl72"


def test_nmx_managers_failed_parts_join_the_dcgm_sides():
    """A GPU NMX-Manager reports gone, and no DCGM fault: the live scenario fails it, and
    what to do names its tray's repair."""
    s = parse_query("fabric=gb200-nvl72&fail=gpu33&off=partial-rack").scenario
    snap, part = counters(s, 3600.0), assess(s).partition
    nmx = "\n".join(
        (
            nmx_answers.partitions_answer(snap, part),
            nmx_answers.gpus_answer(snap, part),
            nmx_answers.ports_answer(snap),
        )
    )
    got = build(None, nmx, {}, 60.0)
    assert "gpu33" in parse_query(got.query).scenario.fail
    assert got.todo[0]["id"] == "gpu33" and "ct09" in got.todo[0]["sentence"]
    assert got.cost["gpu_hours_per_h"] > 0
    assert got.partition.get("health") not in (None, "HEALTHY")


def test_the_drain_rule_on_a_measured_trend():
    """At the pre-failure rate: drain now; a rate rising to it within a day: drain now; a
    steady low rate: watch; nothing: fine."""
    assert from_rates("l", FAIL_RATE_PER_S, 0.0, 600, 0.0)["action"] == "drain now"
    rising = from_rates("l", FAIL_RATE_PER_S / 2, FAIL_RATE_PER_S / 4, 3600, 0.1)
    assert rising["action"] == "drain now" and rising["time_to_failure_h"] == pytest.approx(2.0)
    steady = from_rates("l", FAIL_RATE_PER_S / 10, FAIL_RATE_PER_S / 10, 3600, 0.1)
    assert steady["action"] == "watch" and steady["time_to_failure_h"] is None
    assert from_rates("l", 0.0, 0.0, 3600, 0.0)["action"] == "fine"


def _twin_answers(q: str) -> tuple[list, list]:
    """The twin's own scrape of scenario q as Prometheus would answer live mode's queries:
    each family an instant vector, the per-GPU sums a range of two readings."""
    from dashboard.exporter.metrics import reading_text
    from dashboard.exporter.reading import Reading
    from model.telemetry import health_rule
    from model.telemetry.importers.promtext import parse

    s = parse_query(q).scenario
    snap, a = counters(s, 3 * 86400.0), assess(s)
    text = reading_text(Reading(snap, a.state, a.partition, health_rule(s, snap.t_s)), False)
    samples, _ = parse(text.splitlines())
    sums = [x for x in samples if x.name.endswith("_COUNT_TOTAL")]
    rows = [(x.name, x.labels, repr(x.value)) for x in samples if x not in sums]
    instant = promapi.series("i", _vector(*rows, t=2000.0))
    ranged = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {
                    "metric": {"__name__": x.name, **x.labels},
                    "values": [[1990, "0"], [2000, repr(x.value)]],
                }
                for x in sums
            ],
        },
    }
    return instant, promapi.series("r", ranged)


def test_the_samples_are_the_texts_line_for_line():
    """What live mode imports with no text between is what importing the text gives."""
    from model.telemetry.importers.promtext import parse

    instant, sums = _twin_answers("fabric=gb200-nvl72&flaky=gpu07-st3.sw1&on=telemetry")
    got = promapi.scrape_samples(instant, sums)
    text_samples, problems = parse(promapi.scrape_text(instant, sums).splitlines())
    assert problems == [] and len(got) == len(text_samples) > 1000
    assert [(x.name, x.labels, x.line, x.ts_ms) for x in got] == [
        (x.name, x.labels, x.line, x.ts_ms) for x in text_samples
    ]
    same = [
        a.value == b.value or (math.isnan(a.value) and math.isnan(b.value))
        for a, b in zip(got, text_samples, strict=True)
    ]
    assert all(same)


@pytest.mark.parametrize(
    "q",
    [
        "fabric=gb200-nvl72&flaky=gpu07-st3.sw1&on=telemetry",
        "fabric=gb200-nvl72&fail=gpu07-st3.sw1&on=telemetry",
        "fabric=vr-nvl72&fail=st2.sw1,gpu33",
    ],
)
def test_the_narrowed_queries_read_the_rack_the_whole_scrape_does(q):
    """Live mode asks only the families the importer reads (and the error counters where
    they are not 0): the scenario is the one the whole scrape's import gives."""
    import re

    from model.telemetry.importers import import_text

    instant, sums = _twin_answers(q)
    whole = import_text(promapi.scrape_text(instant, sums))
    asked = re.compile("|".join(f"(?:{promapi.INSTANT[k]})" for k in promapi.INSTANT))
    erring = re.compile("|".join(f"(?:{v})" for v in promapi.ERRING.values()))
    narrow = [x for x in instant if asked.fullmatch(x.name)]
    narrow += [x for x in instant if erring.fullmatch(x.name) and x.points[-1][1] != 0]
    assert len(narrow) < len(instant) / 2  # the zeros, throughputs and port states not asked
    got = build(promapi.scrape_samples(narrow, sums), None, {}, 10.0)
    assert got.query == whole.scenario
    assert parse_query(got.query).scenario.fail == parse_query(q).scenario.fail
    assert parse_query(got.query).scenario.flaky == parse_query(q).scenario.flaky


def test_the_scrape_interval_and_times_are_read_from_the_answers():
    ranged = {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {
                    "metric": {"__name__": REPLAY, "gpu": "0"},
                    "values": [[10, "1"], [25, "2"], [40, "3"]],
                },
            ],
        },
    }
    assert promapi.scrape_interval_s(promapi.series("r", ranged)) == 15
    probe = _vector(("", {"instance": "node-1:9400"}, "1234.5"))
    assert promapi.scrape_times(promapi.series("p", probe)) == {"node-1:9400": 1234.5}
    assert "timestamp(" in promapi.probe_query('job="r"') and 'job="r"' in promapi.probe_query(
        'job="r"'
    )
