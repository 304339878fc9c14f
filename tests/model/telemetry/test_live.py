"""Live mode's pure half: Prometheus's answers read (garbage refused, naming the series), the
scrape text they make (two timestamped readings of the per-GPU sums: a rate), the union with
NMX-Manager's answers, and the drain rule on a measured trend."""

from __future__ import annotations

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
