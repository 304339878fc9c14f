"""Which DCGM release each exported name is from, and the other spellings
(model/telemetry/names.py, issue 29): every DCGM name a scrape has is a row; a scrape in
dcgm-exporter's or DCGM 4.6.0's spelling imports as the twin's own does."""

from __future__ import annotations

import re

import pytest

from dashboard.exporter.metrics import render_scenario
from model import parse_query, telemetry
from model.evaluate import TELEMETRY_READ_S
from model.telemetry import names
from model.telemetry.importers import import_text

FAMILY = re.compile(r"^# TYPE (\S+) ", re.MULTILINE)


def _families(text: str) -> set[str]:
    return set(FAMILY.findall(text))


def test_every_dcgm_or_nvml_name_of_a_scrape_is_a_row():
    s = parse_query("fabric=gb200-nvl72&flaky=gpu07-st3.sw1").scenario
    fams = _families(render_scenario(s, TELEMETRY_READ_S, lanes=True))
    dcgm = {f for f in fams if f.startswith(("DCGM_", "NVML_"))}
    assert dcgm and dcgm <= set(names.BY_NAME), dcgm - set(names.BY_NAME)


def test_the_generations_as_dcgm_fields_h_has_them():
    by = names.BY_NAME
    assert {by[n].since for n in telemetry.METRICS if n in by and "PER_LINK" in n} == {"4.6.0"}
    rec = by[telemetry.GPU_TOTALS[telemetry.RECOVERY]]
    assert rec.field_id == 439 and rec.exporter == rec.name
    assert rec.dcgm_46 == "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_TOTAL"
    port = by["DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERROR_TOTAL"]
    assert port.since == "4.6.0" and port.exporter == "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS"
    assert by[telemetry.CRC_FLIT].exporter is None  # no dcgm-exporter release has 1525
    ids = [r.field_id for r in names.NAMES if r.field_id is not None]
    assert len(ids) == len(set(ids))  # one row a field


@pytest.mark.parametrize("spelling", [names.EXPORTER, names.DCGM46])
def test_a_spelled_scrape_imports_as_the_twins_own(spelling):
    s = parse_query("fail=gpu02-st3.sw1.c0&flaky=gpu07-st2.sw1").scenario
    own = import_text(render_scenario(s, TELEMETRY_READ_S, lanes=True))
    text = render_scenario(s, TELEMETRY_READ_S, lanes=True, spelling=spelling)
    fams = _families(text)
    assert fams != _families(render_scenario(s, TELEMETRY_READ_S, lanes=True))
    for row in names.NAMES:
        if row.name in _families(render_scenario(s, TELEMETRY_READ_S, lanes=True)):
            assert row.spelled(spelling) in fams
    got = import_text(text)
    assert (got.scenario, got.confidence) == (own.scenario, own.confidence)
    assert got.attribution == own.attribution


def test_any_spelling_reads_back_to_the_twins_name():
    for row in names.NAMES:
        for sp in names.SPELLINGS:
            assert names.canonical(row.spelled(sp)) == row.name
    assert names.canonical("nmx_switch_chip_up") == "nmx_switch_chip_up"
