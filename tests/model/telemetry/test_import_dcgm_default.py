"""A scrape in dcgm-exporter's default shape (18 hosts of 4 GB200 GPUs, labels gpu, UUID,
pci_bus_id, device, modelName, Hostname; per-GPU NVLink sums and NVLink 5's count family, no
per-link field), read twice 5 min apart: the import names the GPU whose links err, its rate,
its tray by host and how sure it is, and never invents a link fault (importers/pergpu.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model.telemetry.importers import ImportRefused, import_text, parse_hosts
from model.telemetry.names import COUNT_FAMILY

ROOT = Path(__file__).resolve().parents[3]
TWO = ROOT / "tests" / "data" / "telemetry" / "dcgm-exporter-gb200-default-two-readings.prom"
REPLAY = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"
LAB = 'gpu="{g}",UUID="GPU-x{g}",device="nvidia{g}",modelName="NVIDIA GB200",Hostname="{h}"'


@pytest.fixture(scope="module")
def text() -> str:
    return TWO.read_text()


def _halves(text: str) -> tuple[str, str]:
    """The fixture's first and second readings (it holds the same series twice)."""
    lines = text.splitlines(keepends=True)
    first = next(i for i, x in enumerate(lines) if x.startswith("DCGM") and x.endswith("200000\n"))
    second = next(i for i, x in enumerate(lines) if x.startswith("DCGM") and "1764835500000" in x)
    start = max(i for i in range(second) if lines[i].startswith("# HELP"))
    assert first < start
    return "".join(lines[:start]), "".join(lines[start:])


def test_the_erring_gpu_is_named_rated_and_placed_by_host(text):
    got = import_text(text)
    assert got.scenario == "fabric=gb200-nvl72"  # no per-GPU fault in the scenario's grammar
    assert got.components == {}
    assert [x["gpu"] for x in got.erring_gpus] == ["gpu26"]  # gb200-node-07, gpu 2
    x = got.erring_gpus[0]
    assert (x["host"], x["gpu_on_host"], x["compute_tray"]) == ("gb200-node-07", "2", "ct07")
    assert x["tray_from"] == "its host's place in name order"
    assert x["rising"] is True
    replay = x["counters"][REPLAY]
    assert replay["rise"] == 1234 and replay["per_s"] == pytest.approx(1234 / 300)
    assert x["confidence"].startswith("low:")
    assert "a rate over 5.0 min" in x["confidence"] and "the link: not known" in x["confidence"]
    assert got.readings == {
        "count": 2,
        "times_s": [1764835200.0, 1764835500.0],
        "interval_s": 300.0,
    }
    assert any(
        m.startswith("gpu26: ") and "1,234 replays in 5.0 min (4.11/s)" in m for m in got.messages
    )
    assert any("REPLAY_ERROR_COUNT_L0.._L17" in m and "(1527)" in m for m in got.messages)
    assert "1 erring GPU named" in got.confidence


def test_old_errors_that_do_not_rise_are_not_erring(text):
    """gb200-node-13's GPU 2 (gpu50) carries 57 replays in both readings: not erring now."""
    got = import_text(text)
    assert "gpu50" not in [x["gpu"] for x in got.erring_gpus]
    first, _second = _halves(text)
    one = import_text(first)  # one reading: counted errors, no rate
    assert [x["gpu"] for x in one.erring_gpus] == ["gpu50"]
    y = one.erring_gpus[0]
    want = {"first": 57.0, "last": 57.0, "rise": None, "per_s": None, "over_s": None}
    assert y["counters"][REPLAY] == want
    assert "one reading: errors since the counters' zero, no rate" in y["confidence"]
    assert one.readings["count"] == 1


def test_the_operators_host_map_places_the_gpu(text):
    """node-07 said to be ct11: its GPU 2 is gpu42, with the map as the basis (medium)."""
    got = import_text(text, hosts=parse_hosts("gb200-node-07:ct11"))
    x = got.erring_gpus[0]
    assert (x["gpu"], x["compute_tray"]) == ("gpu42", "ct11")
    assert x["tray_from"] == "the operator's host map"
    assert x["confidence"].startswith("medium:")
    named = import_text(text.replace("gb200-node-07", "ct05"))  # a host named by its tray
    assert named.erring_gpus[0]["compute_tray"] == "ct05"
    assert named.erring_gpus[0]["tray_from"] == "its host name, a tray ID"


def test_two_readings_without_timestamps_give_a_rise_not_a_rate(text):
    bare = re.sub(r" 17648352\d+$", "", text, flags=re.MULTILINE)
    got = import_text(bare)
    replay = got.erring_gpus[0]["counters"][REPLAY]
    assert replay["rise"] == 1234 and replay["per_s"] is None
    assert got.readings["interval_s"] is None
    assert any("without timestamps" in m for m in got.messages)


def test_a_counter_that_falls_was_reset_and_is_no_rise():
    lab = LAB.format(g=1, h="n1")
    got = import_text(f"{REPLAY}{{{lab}}} 900 1000\n{REPLAY}{{{lab}}} 3 61000\n")
    assert got.erring_gpus == ()
    assert any(m.startswith(f"gpu01: {REPLAY} fell from 900 to 3") for m in got.messages)
    rose = import_text(f"{REPLAY}{{{lab}}} 900 1000\n{REPLAY}{{{lab}}} 960 61000\n")
    assert rose.erring_gpus[0]["counters"][REPLAY]["per_s"] == pytest.approx(1.0)


def test_every_count_family_field_is_read_or_named_unused(text):
    """Each DCGM_FI_DEV_NVLINK_COUNT_* field in the file is in exactly one message: read per
    GPU (as what), or not used (and why)."""
    got = import_text(text)
    fam = [m for m in got.messages if "NVLink 5 count family" in m or m.startswith("not used:")]
    have = {r.name for r in COUNT_FAMILY if r.name + "{" in text}
    assert len(have) == 20  # 1200-1219, in the fixture
    for name in have:
        assert sum(f"{name} (" in m for m in fam) == 1, name
    x = got.erring_gpus[0]["counters"]
    assert x["DCGM_FI_DEV_NVLINK_COUNT_TX_DISCARDS"]["rise"] == 17
    assert x["DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS"]["rise"] == 3
    assert "DCGM_FI_DEV_NVLINK_COUNT_TX_BYTES" not in x  # traffic: not read as a fault sign


def test_dcgm_46_spellings_and_the_fec_bins():
    """DCGM 4.6.0's names of the family read as the old ones; a failed recovery rising names
    the GPU; the FEC bins are named, not used."""
    lab = LAB.format(g=3, h="n2")
    fail = "DCGM_FI_DEV_NVLINK_RECOVERY_FAILED_TOTAL"
    fec = "DCGM_FI_DEV_NVLINK_COUNT_FEC_HISTORY_3"
    got = import_text(
        f"{fail}{{{lab}}} 0 0\n{fec}{{{lab}}} 5 0\n{fail}{{{lab}}} 2 60000\n{fec}{{{lab}}} 9 60000\n"
    )
    x = got.erring_gpus[0]
    assert x["gpu"] == "gpu03"
    c = x["counters"]["DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS"]
    assert c["rise"] == 2 and c["per_s"] == pytest.approx(2 / 60)
    assert any("2 failed recoveries in" in m for m in got.messages)
    assert any(m.startswith("not used:") and f"{fec} (1407)" in m for m in got.messages)


@pytest.mark.parametrize("bad", ["node-a", "node-a:ct0", ":ct01", "node-a:ct00", "a:st1"])
def test_a_bad_host_map_is_refused(bad):
    with pytest.raises(ImportRefused, match="hosts:"):
        parse_hosts(bad)


def test_a_host_map_beyond_the_rack_is_refused(text):
    with pytest.raises(ImportRefused, match="ct01-ct18"):
        import_text(text, hosts=parse_hosts("gb200-node-07:ct19"))


def test_a_gpu_past_the_rack_or_a_timestamp_past_int64_is_named_not_read():
    """Found by trying: gpu="900" is no GPU of a 72-GPU rack, and a 400-digit timestamp is
    no int64; each is a message naming its line, never an error."""
    lab = 'gpu="900",UUID="x",modelName="NVIDIA GB200"'
    got = import_text(f"{REPLAY}{{{lab}}} 5\n")
    assert got.erring_gpus == ()
    assert any(
        m.startswith(f"line 1: {REPLAY}: GPU 900 is not in this rack's 0..71") for m in got.messages
    )
    ok = LAB.format(g=1, h="n1")
    got = import_text(f"{REPLAY}{{{ok}}} 5 1{'9' * 400}\n{REPLAY}{{{ok}}} 5\n")
    assert any(u.startswith("line 1: the timestamp") and "int64" in u for u in got.unreadable)
    assert [x["gpu"] for x in got.erring_gpus] == ["gpu01"]  # line 2 still read


def test_the_legacy_per_link_fields_narrow_it_to_a_link():
    """With ..._REPLAY_ERROR_COUNT_L0.._L17 in the file (as the narrowing message advises),
    the erring GPU's `links` names the link whose counter rose, rated on its own timestamps
    even when the file lists the series in another order; the advice is then not repeated."""
    lab = LAB.format(g=2, h="n7")
    per = "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L"
    text = "".join(
        f"{per}{n}{{{lab}}} {600 if (n == 5 and ts) else 0} {ts}\n"
        for ts in (0, 60000)
        for n in range(18)
    )
    text += f"{REPLAY}{{{lab}}} 0 0\n{REPLAY}{{{lab}}} 600 60000\n"
    got = import_text(text)
    (x,) = got.erring_gpus
    assert list(x["links"]) == ["5"]
    link = x["links"]["5"]
    assert link["link"] == "gpu02-st3.sw1"  # link index 5 taken as plane 5 [A]
    assert link["counters"][f"{per}5"]["per_s"] == pytest.approx(10.0)
    assert x["counters"][REPLAY]["per_s"] == pytest.approx(10.0)  # its own timestamps
    assert "the link: gpu02-st3.sw1 from the per-link fields" in x["confidence"]
    assert "gpu02-st3.sw1 [A]: 600 replays in 60 s (10.0/s)" in x["summary"]
    assert not any(m.startswith("which link, a per-link field would say") for m in got.messages)
    assert got.scenario == "fabric=gb200-nvl72"  # named, not yet a fault of the scenario
