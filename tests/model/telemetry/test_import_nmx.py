"""NMX-Manager's REST answers in and out (model/telemetry/importers/nmx.py, nmx_answers.py):
the twin's own GET /nmx/v1/partitions, /gpus and /ports of a scenario, imported, give back
every link's state, every GPU's NMX health and the partition's health; a mangled answer
names its line."""

import json
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from model import telemetry as T
from model.assess import assess
from model.query import parse_query
from model.telemetry.importers import ImportRefused, import_text
from model.telemetry.importers import nmx_answers as nmx
from tests.strategies import scenarios

SAMPLE = (
    Path(__file__).resolve().parents[2] / "data" / "telemetry" / "nmx-manager-gb200-answers.txt"
)


def answers(s, ports: bool = True) -> tuple[str, T.Counters, object]:
    snap, part = T.counters(s, 0.0), assess(s).partition
    text = nmx.partitions_answer(snap, part) + nmx.gpus_answer(snap, part)
    return text + (nmx.ports_answer(snap) if ports else ""), snap, part


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from(["vr-nvl72", "gb200-nvl72"]).flatmap(lambda f: scenarios(fabric=f)))
def test_the_twins_own_nmx_answers_round_trip(s):
    text, snap, part = answers(s)
    got = import_text(text)
    assert got.format == "nmx-manager"
    # The partition's health and every GPU's NMX health, as the file gave them.
    assert got.partition["health"] == nmx.API_STATE[part.state]
    health = nmx.gpu_health(snap, part)
    assert got.partition["gpus"] == {g: h for g, h in enumerate(health)}
    # Every link's state (the GPU ports), exactly, in the scenario it builds, on every plane
    # not drained for a switch update (an update runs tray by tray: one instant's drained
    # chips do not say which trays the update holds, see the next test).
    s2 = parse_query(got.scenario).scenario
    again = T.counters(s2, 0.0)
    keep = ~snap.planned
    assert np.array_equal(again.state[:, keep], snap.state[:, keep]), (s.key(), got.scenario)
    if s.update:
        return
    # The rebuilt scenario's answers say the same again: every GPU's health and the
    # partition's (its mode read from parked or DEGRADED_BW GPUs, partial-rack operation
    # from lost GPUs in a DEGRADED or UNHEALTHY partition).
    part2 = assess(s2).partition
    assert nmx.gpu_health(again, part2) == health, (s.key(), got.scenario)
    assert part2.state is part.state, (s.key(), got.scenario, part.explanation)


def test_a_drained_tray_reads_back_as_its_update():
    s = parse_query("update=st3&fail=gpu07-st5.sw1").scenario
    got = import_text(answers(s)[0])
    assert got.scenario == "fabric=vr-nvl72&fail=gpu07-st5.sw1&update=st3"


def test_the_sample_a_gb200_rack_with_a_parked_gpu_and_a_lost_tray():
    got = import_text(SAMPLE.read_bytes())
    assert got.format == "nmx-manager"
    assert got.partition["health"] == "DEGRADED"
    assert got.partition["gpus"][2] == "NO_NVLINK"
    assert [g for g, h in got.partition["gpus"].items() if h == "UNKNOWN"] == [16, 17, 18, 19]
    s = parse_query(got.scenario).scenario
    assert set(s.fail) >= {"gpu02-st3.sw1", "gpu16", "gpu19"}
    assert assess(s).partition.state.value == "DEGRADED"
    assert any("GPU ports of 1 of 72 GPUs" in m for m in got.messages)


def test_without_ports_the_lost_gpus_are_named_and_the_short_ones_said():
    s = parse_query("fail=ct03,gpu30-st2.sw1").scenario
    text, _snap, _part = answers(s, ports=False)
    got = import_text(text)
    assert got.scenario == "fabric=vr-nvl72&fail=gpu08,gpu09,gpu10,gpu11"
    assert any("1 GPUs are short of links" in m for m in got.messages)
    assert got.confidence.startswith("low: NMX health only")


def test_location_members_and_a_slot_without_a_tray_index():
    """Locations are placed by slot rank when TrayIndex is absent; a partition alone still
    answers its health."""
    gpu = {
        "ID": "0" * 23 + "a",
        "LocationInfo": {"ChassisID": 1, "SlotID": 12},
        "DeviceID": 1,
        "DeviceUID": 1,
        "ALIDList": [],
        "Health": "UNKNOWN",
    }
    other = dict(gpu, ID="0" * 23 + "b", LocationInfo={"ChassisID": 1, "SlotID": 3})
    other["Health"] = "HEALTHY"
    member = {"DomainUUID": "x", "ChassisID": 1, "SlotID": 3, "HostID": 1, "DeviceID": 0}
    part = {"ID": "1" * 24, "PartitionID": 7, "Name": "p", "Type": "LOCATION_BASED"}
    part.update(Health="UNHEALTHY", Members=[member])
    got = import_text(json.dumps([part]) + "\n" + json.dumps([gpu, other]))
    assert got.scenario == "fabric=vr-nvl72&fail=gpu05&off=partial-rack"  # slot 12: ct02
    assert got.partition["health"] == "UNHEALTHY"
    alone = import_text(json.dumps(part))
    assert alone.partition["health"] == "UNHEALTHY"
    assert alone.confidence.startswith("none")


BASE = SAMPLE.read_text().splitlines()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=len(BASE) - 1),
    st.integers(min_value=0, max_value=400),
    st.text(alphabet=st.sampled_from('{}[]",:0123456789 \nHEALTHYUNKOW_abc-'), max_size=8),
    st.integers(min_value=0, max_value=20),
)
def test_a_mangled_nmx_answer_names_its_line(i, pos, junk, cut):
    """Never a crash; a refusal names a line of the file; the rest still builds a scenario."""
    lines = list(BASE)
    lines[i] = lines[i][:pos] + junk + lines[i][pos + cut :]
    text = "\n".join(lines)
    n_lines = len(text.splitlines())
    try:
        got = import_text(text)
    except ImportRefused as e:
        assert e.message.startswith(f"line {e.line}:")
        assert 1 <= e.line <= n_lines + 1
        return
    parse_query(got.scenario)
    for m in got.messages:
        if m.startswith("line "):
            assert 1 <= int(m.split(":")[0].split()[1]) <= n_lines


def test_deep_nesting_and_huge_numbers_are_refused_naming_the_line():
    for text in ("[" * 100_000, '[{"Members": [], "PartitionID": ' + "9" * 5000 + "}]"):
        try:
            import_text(text)
        except ImportRefused as e:
            assert e.message.startswith("line 1:")
        else:
            raise AssertionError("accepted")
