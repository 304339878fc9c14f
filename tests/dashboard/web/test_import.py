"""POST /api/v1/import and `python -m model import`: a rack's telemetry file in, its scenario
out (model/telemetry/importers). The twin's own /metrics scrape of a random scenario,
imported, gives back the same failed, degrading and silent components; garbage never gets a
500, and every line it cannot read is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import flask
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from dashboard.exporter.metrics import render_scenario
from dashboard.web.blueprint import web
from model import telemetry
from model.evaluate import TELEMETRY_READ_S
from model.query import parse_query
from model.telemetry.importers import MAX_BYTES, MAX_LINES, ImportRefused, import_text
from model.telemetry.importers.promtext import parse_line
from tests.strategies import scenarios

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "tests" / "data" / "telemetry" / "dcgm-exporter-gb200-two-trays.prom"
DEFAULT_TWO = (
    ROOT / "tests" / "data" / "telemetry" / "dcgm-exporter-gb200-default-two-readings.prom"
)
ATTRIBUTED = ("failed", "degrading", "silent", "planned")


@pytest.fixture(scope="module")
def client() -> flask.testing.FlaskClient:
    app = flask.Flask(__name__)
    app.register_blueprint(web)
    return app.test_client()


def _post(client, body: bytes | str):
    data = body.encode() if isinstance(body, str) else body
    return client.post("/api/v1/import", data=data, content_type="text/plain")


# --- the round trip --------------------------------------------------------------------------
@pytest.mark.slow
@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # a failure is reported as drawn: shrinking a
    # whole-rack scrape takes minutes
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from(["vr-nvl72", "gb200-nvl72"]).flatmap(lambda f: scenarios(fabric=f)))
def test_the_twins_own_scrape_round_trips(s):
    """The scrape of s, imported: the attribution it makes is the twin's own attribution of s,
    and the scenario it builds is attributed the same again."""
    want = telemetry.attribution(telemetry.counters(s, TELEMETRY_READ_S)).to_json()
    got = import_text(render_scenario(s, TELEMETRY_READ_S, lanes=True))
    for key in (*ATTRIBUTED, "possible"):
        assert got.attribution[key] == want[key], (key, s.key())
    again = parse_query(got.scenario).scenario
    twice = telemetry.attribution(telemetry.counters(again, TELEMETRY_READ_S)).to_json()
    if want["possible"]:
        for key in ("failed", "degrading", "silent"):
            assert twice[key] == want[key], (key, s.key(), got.scenario)
    else:  # up/down only: the same links down
        assert twice["updown"] == want["updown"]
    assert got.confidence.startswith("high" if want["possible"] else "low")


def test_the_issue_case_round_trips_with_its_link_named(client):
    """A silent controller and a degrading cable behind it: the file names the controller and
    the link (not the cable: the lane view of that tray is stale)."""
    s = parse_query("fail=st3.mc&flaky=gpu07-st3.sw2.c1").scenario
    r = _post(client, render_scenario(s, 7200.0))
    assert r.status_code == 200
    body = r.get_json()
    assert body["scenario"] == "fabric=vr-nvl72&fail=st3.mc&flaky=gpu07-st3.sw2"
    assert body["format"] == "dcgm-exporter"
    keys = {"format", "scenario", "confidence", "components", "messages", "attribution"}
    assert set(body) == keys | {
        "fabric_health",
        "partition",
        "unreadable",
        "erring_gpus",
        "readings",
    }
    assert body["erring_gpus"] == []  # per-link counters: the links themselves are attributed
    assert body["unreadable"] == []  # the twin's own scrape: every line a sample
    health = body["fabric_health"]  # every GPU healthy: a silent controller degrades none
    assert len(health) == 72 and {h["mask"] for h in health.values()} == {0xAA}


def test_a_real_format_sample_from_two_hosts():
    """dcgm-exporter's own labels (gpu per host, hostname, nvlink): hosts in name order are
    the compute trays; 18 links a GPU is gb200-nvl72."""
    got = import_text(SAMPLE.read_bytes())
    assert got.scenario == "fabric=gb200-nvl72&fail=gpu02-st3.sw1&flaky=gpu01-st2.sw1&on=telemetry"
    assert got.confidence.startswith("medium")
    assert any("no nmx_nvlink_lane_state" in m for m in got.messages)
    assert any("have no DCGM_FI_DEV_NVLINK_GET_STATE" in m for m in got.messages)  # 8 of 72 GPUs


def test_a_default_scrape_with_only_per_gpu_sums():
    """dcgm-exporter's default counters have no per-link field: the import says which GPUs
    recover and which report degraded bandwidth, and that it cannot name a link."""
    lab = 'UUID="GPU-b",pci_bus_id="x",device="nvidia1",modelName="NVIDIA GB200",Hostname="n1"'
    text = (
        f'DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{{gpu="0",{lab}}} 0\n'
        f'DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL{{gpu="1",{lab}}} 41\n'
        f'DCGM_FI_DEV_FABRIC_HEALTH_MASK{{gpu="1",{lab}}} 169\n'
    )
    got = import_text(text)
    assert got.scenario == "fabric=gb200-nvl72" and got.confidence.startswith("none")
    assert [x["gpu"] for x in got.erring_gpus] == ["gpu01"]  # gpu00's 0 is no error
    assert any(
        m.startswith("gpu01: 41 recoveries counted (DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL)")
        and m.endswith("summed over its links; on ct01 by its host's place in name order")
        for m in got.messages
    )
    assert any(m.startswith("gpu01: fabric health mask 0xa9: DEGRADED_BW") for m in got.messages)
    assert got.fabric_health == {"gpu01": {"mask": 169}}


def test_the_api_takes_the_operators_host_map(client):
    """?hosts= places a default scrape's erring GPU; a bad map is a 400 naming it, not a 500."""
    body = DEFAULT_TWO.read_bytes()
    r = client.post("/api/v1/import?hosts=gb200-node-07:ct02", data=body, content_type="text/plain")
    assert r.status_code == 200
    (x,) = r.get_json()["erring_gpus"]
    assert (x["gpu"], x["compute_tray"], x["tray_from"]) == (
        "gpu06",
        "ct02",
        "the operator's host map",
    )
    for bad in ("gb200-node-07", "gb200-node-07:ct19"):
        r = client.post(f"/api/v1/import?hosts={bad}", data=body, content_type="text/plain")
        assert r.status_code == 400 and r.get_json()["token"] == "hosts"


# --- bad input -------------------------------------------------------------------------------
def _line_numbers(messages: list[str]) -> set[int]:
    out = set()
    for m in messages:
        if m.startswith("line "):
            out.add(int(m.split(":")[0].split()[1]))
    return out


BASE = SAMPLE.read_text().splitlines()


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    st.integers(min_value=0, max_value=len(BASE) - 1),
    st.integers(min_value=0, max_value=200),
    st.text(alphabet=st.sampled_from('{}",=\\ \t#x9.-+eNaI\n\x00é'), min_size=1, max_size=6),
)
def test_a_mutated_file_names_the_bad_line_and_keeps_the_rest(i, pos, junk):
    """One line of a good file mangled: never a crash; if that line no longer reads, the
    answer names it (its number, from 1), and the good lines are still used."""
    lines = list(BASE)
    j = min(pos, len(lines[i]))
    lines[i] = lines[i][:j] + junk + lines[i][j:]
    text = "\n".join(lines)
    try:
        got = import_text(text)
    except ImportRefused as e:
        assert e.message.startswith(f"line {e.line}:") and e.line >= 1
        return
    broken = []
    for n, ln in enumerate(text.splitlines(), start=1):
        try:
            parse_line(ln, n)
        except ValueError:
            broken.append(n)
    assert set(broken) <= _line_numbers(list(got.messages)), broken
    assert got.scenario.startswith("fabric=")


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.one_of(st.binary(max_size=3000), st.text(max_size=3000)))
def test_garbage_is_never_a_500(client, body):
    """Anything at all as the body: 200 with the scenario, or 400 naming the line."""
    r = _post(client, body)
    assert r.status_code in (200, 400), r.get_data()[:300]
    out = r.get_json()
    if r.status_code == 400:
        assert out["token"].startswith("line ") and out["error"].startswith(out["token"] + ":")
    else:
        assert "scenario" in out and "messages" in out


_TWO_READINGS_HEAD = "\n".join(DEFAULT_TWO.read_text().splitlines()[:40])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(max_size=80), st.integers(0, 39), st.text(max_size=40))
def test_a_garbage_host_map_or_reading_is_never_a_500(client, hosts, at, junk):
    """Any hosts= and a mangled line of a two-reading default scrape: 200 or a 400 naming
    the host map or the line."""
    lines = _TWO_READINGS_HEAD.splitlines()
    lines[at] = lines[at][: len(lines[at]) // 2] + junk
    r = client.post(
        "/api/v1/import",
        query_string={"hosts": hosts},
        data="\n".join(lines),
        content_type="text/plain",
    )
    assert r.status_code in (200, 400), r.get_data()[:300]
    if r.status_code == 400:
        assert r.get_json()["token"] == "hosts" or r.get_json()["token"].startswith("line ")


@pytest.mark.parametrize(
    "body, line, words",
    [
        (b"", 1, "empty"),
        (b"\n\n  \n", 1, "empty"),
        (b"hello world\n", 1, "no sample of a known format"),
        (b'# only a comment\nfoo{a="1"} 2\n', 2, "cannot tell the fabric"),
        ('DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="0"} 1\n\xff'.encode("latin-1"), 2, "UTF-8"),
        (
            (
                b'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="0",fabric="vr-nvl72"} 1\n'
                b'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="1",fabric="gb200-nvl72"} 1\n'
            ),
            1,
            "mixes fabrics",
        ),
        (b'[\n{"Members": [], "Health": "HEALTHY"},\n{"Members": \n', 3, "expected JSON"),
        (b'[{"Name": "x"}] trailing', 1, "expected a JSON array or object"),
        (b"[1, 2, 3]\n", 1, "no NMX-Manager Partition, GPU or Port object"),
    ],
)
def test_what_cannot_be_read_is_refused_naming_the_line(client, body, line, words):
    r = _post(client, body)
    assert r.status_code == 400
    out = r.get_json()
    assert out["token"] == f"line {line}" and words in out["error"], out


def test_size_and_line_limits(client):
    big = b"#" * (MAX_BYTES + 1)
    r = _post(client, big)
    assert r.status_code == 413 and r.get_json()["token"] == "body"
    with pytest.raises(ImportRefused, match=r"^line 1: the file is over"):
        import_text(big)
    many = "\n".join(["# x"] * (MAX_LINES + 1))
    with pytest.raises(ImportRefused, match=rf"^line {MAX_LINES + 1}: more than"):
        import_text(many)


def test_get_is_405_saying_post(client):
    r = client.get("/api/v1/import")
    assert r.status_code == 405 and "POST" in r.get_json()["error"]


def test_bad_lines_are_reported_and_the_rest_used():
    text = SAMPLE.read_text().splitlines()
    text[10] = 'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="8" 1'  # no closing brace
    text[20] = 'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="0",nvlink="99",hostname="gb200-node-a"} 1'
    got = import_text("\n".join(text))
    assert any(m.startswith("line 11: expected ',' or '}'") for m in got.messages)
    assert any(m.startswith("line 21: DCGM_FI_DEV_NVLINK_GET_STATE") for m in got.messages)
    assert "fail=gpu02-st3.sw1" in got.scenario  # the rest still says what it said


def test_nothing_from_a_file_is_html(client):
    """Label values travel as JSON strings; the page writes them as text (never as HTML)."""
    body = 'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="<script>",nvlink="0",fabric="vr-nvl72"} 0\n'
    r = _post(client, body)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("application/json")
    assert any("<script>" not in m or m.startswith("line 1:") for m in r.get_json()["messages"])


NMX_SAMPLE = SAMPLE.parent / "nmx-manager-gb200-answers.txt"


def test_an_nmx_manager_answer_through_the_api(client):
    r = _post(client, NMX_SAMPLE.read_bytes())
    assert r.status_code == 200
    out = r.get_json()
    assert out["format"] == "nmx-manager" and out["partition"]["health"] == "DEGRADED"
    assert "gpu02-st3.sw1" in out["scenario"]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.text(alphabet=st.sampled_from('[]{}",:0123456789 \nMembersHealthPortNum'), max_size=400))
def test_json_like_garbage_is_never_a_500(client, body):
    """Bodies that look like NMX-Manager JSON: 200, or 400 naming the line."""
    r = _post(client, "[" + body)
    assert r.status_code in (200, 400), r.get_data()[:300]
    if r.status_code == 400:
        out = r.get_json()
        assert out["token"].startswith("line ") and out["error"].startswith(out["token"] + ":")


# --- the command line --------------------------------------------------------------------------
def test_the_command_line(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "model", "import", str(SAMPLE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["scenario"].startswith("fabric=gb200-nvl72&fail=gpu02-st3.sw1")
    bad = tmp_path / "bad.prom"
    bad.write_bytes(b"not a scrape\n")
    r = subprocess.run(
        [sys.executable, "-m", "model", "import", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert r.returncode == 2 and json.loads(r.stderr)["token"] == "line 1"


ONE_LINE = 'DCGM_FI_DEV_NVLINK_GET_STATE{gpu="3",nvlink="5"} 0\n'


def test_one_line_is_read_as_the_page_s_fabric(client):
    """Issue 28 (10): one pasted DCGM line was refused ("cannot tell the fabric") though the
    page knows its fabric. Told the fabric, the line is read, and the answer says so."""
    assert _post(client, ONE_LINE).status_code == 400  # the file alone cannot tell
    # no counter in the file: on vr-nvl72 (telemetry on by default) that reads as it off
    for fabric, rest in (
        ("gb200-nvl72", "fail=gpu03-st3.sw1"),
        ("vr-nvl72", "fail=gpu03-st2.sw1&off=telemetry"),
    ):
        r = client.post(f"/api/v1/import?fabric={fabric}", data=ONE_LINE.encode())
        out = r.get_json()
        assert r.status_code == 200, out
        assert out["scenario"] == f"fabric={fabric}&{rest}"
        assert any(m.startswith(f"fabric {fabric}: the page's") for m in out["messages"])
    # a domain's page reads a rack's line as one of its racks' preset
    assert import_text(ONE_LINE, "vr-nvl576").scenario.startswith("fabric=vr-nvl72&fail=gpu03-")
    # a label in the file wins over the page's
    labelled = ONE_LINE.replace('nvlink="5"', 'nvlink="5",fabric="vr-nvl72"')
    assert import_text(labelled, "gb200-nvl72").scenario.startswith("fabric=vr-nvl72&")
    bad = client.post("/api/v1/import?fabric=nvl9000", data=ONE_LINE.encode())
    assert bad.status_code == 400 and "nvl9000" in bad.get_json()["error"]


def test_a_mixed_paste_names_its_unreadable_line():
    """Issue 28 (10): a paste with a line of garbage among samples did not name that line;
    it is now listed apart from the other messages, with what it reads."""
    text = ONE_LINE + "this is garbage{\n" + ONE_LINE.replace('"5"', '"6"')
    got = import_text(text, "gb200-nvl72")
    assert got.scenario == "fabric=gb200-nvl72&fail=gpu03-st3.sw1,gpu03-st4.sw0"
    (line,) = got.unreadable
    assert line.startswith("line 2: ") and "(the line reads 'this is garbage{')" in line
    assert import_text(ONE_LINE + ONE_LINE, "gb200-nvl72").unreadable == ()
