"""nvidia-smi's NVLink views in and out (model/telemetry/importers/nvsmi.py): the twin's own
`nvlink --status`, `nvlink -e` and `-q` Fabric section of a scenario, imported, give back
what each carries: every link's state, the degrading links, every GPU's fabric health."""

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from model import telemetry as T
from model.ids import link_id
from model.query import parse_query
from model.telemetry.importers import ImportRefused, import_text, nvsmi
from tests.strategies import scenarios

READ_S = 3 * 86400.0  # three days in: a degrading link has ~180 recoveries
SAMPLE = (
    Path(__file__).resolve().parents[2] / "data" / "telemetry" / "nvidia-smi-gb200-one-tray.txt"
)


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(["vr-nvl72", "gb200-nvl72&on=telemetry"]).flatmap(
        lambda f: scenarios(fabric=f.split("&")[0])
    )
)
def test_the_twins_own_nvidia_smi_round_trips(s):
    snap = T.counters(s, READ_S)
    f = snap.fabric
    # --status: every link's state, exactly, in the scenario it builds.
    got = import_text(nvsmi.nvlink_status(snap))
    again = T.counters(parse_query(got.scenario).scenario, READ_S)
    assert np.array_equal(again.state, snap.state), (s.key(), got.scenario)
    # -q: every GPU's fabric health.
    health = import_text(nvsmi.fabric_query(snap)).fabric_health
    assert [health[f"gpu{g:02d}"]["mask"] for g in range(f.gpus)] == snap.health.mask.tolist()
    assert [health[f"gpu{g:02d}"]["summary"] for g in range(f.gpus)] == snap.health.summary.tolist()
    if not snap.telemetry:
        return
    # --status and -e together: the degrading links are the ACTIVE links that recovered.
    both = import_text(nvsmi.nvlink_status(snap) + nvsmi.nvlink_errors(snap))
    up = snap.state == T.ACTIVE
    want = {
        link_id(f, int(g), int(p))
        for g, p in zip(*np.nonzero(up & (snap.link[T.RECOVERY] > 0)), strict=True)
    }
    assert set(both.attribution["degrading"]) == want
    assert both.confidence.startswith("medium")


def test_the_sample_one_gb200_tray():
    got = import_text(SAMPLE.read_bytes())
    assert got.format == "nvidia-smi"
    assert got.scenario == "fabric=gb200-nvl72&fail=gpu02-st3.sw1&flaky=gpu01-st2.sw1&on=telemetry"
    assert got.fabric_health["gpu02"] == {"mask": 0xA9, "summary": 3, "state": 3}
    assert set(got.fabric_health) == {"gpu00", "gpu01", "gpu02", "gpu03"}
    assert any("1224 of 1296 links have no state" in m for m in got.messages)


BASE = SAMPLE.read_text().splitlines()


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=len(BASE) - 1),
    st.integers(min_value=0, max_value=60),
    st.text(alphabet=st.sampled_from("GPU Link:<>/ \t0123456789.abcX\n"), min_size=1, max_size=8),
)
def test_a_mangled_nvidia_smi_file_names_its_line(i, pos, junk):
    """Never a crash; a refusal names its line; the rest still builds a scenario."""
    lines = list(BASE)
    lines[i] = lines[i][:pos] + junk + lines[i][pos:]
    try:
        got = import_text("\n".join(lines))
    except ImportRefused as e:
        assert e.message.startswith(f"line {e.line}:")
        return
    assert got.scenario.startswith("fabric=")
    for m in got.messages:
        if m.startswith("line "):
            n = int(m.split(":")[0].split()[1])
            assert 1 <= n <= len("\n".join(lines).splitlines())
