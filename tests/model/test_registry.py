"""The fabric-kind seam (model/registry.py): every kind provides every part of the protocol,
each fabric name registers one kind, and nothing outside the seam's tables branches on the
kind of fabric."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from model import parts, registry
from model import query as query_mod
from model import scenario as scenario_mod
from model.assess import ASSESS, assess
from model.errors import ScenarioError
from model.evaluate import RESULTS, evaluate
from model.fabric.islands import SCENARIO_ISLANDS
from model.fabric.presets import FABRICS
from model.kinds import FabricKind
from model.multirack.domains import DOMAINS
from model.query import parse_query
from model.reliability import by_kind, site, timeline
from model.scenario import Scenario
from model.workloads import comm, throughput

ROOT = Path(__file__).resolve().parents[2]

TABLES = {
    "assess.ASSESS": ASSESS,
    "evaluate.RESULTS": RESULTS,
    "workloads.throughput.DECODE": throughput.DECODE,
    "workloads.comm.EP_FABRIC": comm.EP_FABRIC,
    "workloads.comm.JOB_FABRIC": comm.JOB_FABRIC,
    "reliability.by_kind.RELIABILITY": by_kind.RELIABILITY,
    "reliability.site._SITES": site._SITES,
    "reliability.timeline._FACTS": timeline._FACTS,
    "query._PARSERS": query_mod._PARSERS,
    "scenario._NOT_ONE_RACK": scenario_mod._NOT_ONE_RACK,
    "parts._PARTS": parts._PARTS,
    "parts._EVERY_ID": parts._EVERY_ID,
    "parts._UPDATES": parts._UPDATES,
    "registry.KINDS": registry.KINDS,
}


@pytest.mark.parametrize("name", TABLES)
def test_every_table_covers_every_kind(name: str) -> None:
    assert set(TABLES[name]) == set(FabricKind), name
    with pytest.raises(TypeError):  # a table is read-only: no kind is added at run time
        TABLES[name][FabricKind.RACK] = None  # type: ignore[index]


def test_every_fabric_name_registers_one_kind() -> None:
    names = {
        FabricKind.RACK: set(FABRICS),
        FabricKind.DOMAIN: set(DOMAINS),
        FabricKind.ISLANDS: set(SCENARIO_ISLANDS),
    }
    assert not (names[FabricKind.RACK] & names[FabricKind.DOMAIN])
    assert not (names[FabricKind.RACK] & names[FabricKind.ISLANDS])
    for kind, fabrics in names.items():
        for fabric in fabrics:
            s = parse_query(f"fabric={fabric}").scenario
            assert s.kind is kind
            k = registry.kind_of(s)
            assert k.kind is kind and registry.kind_named(fabric) is k
            assert k.several_racks == (fabric in DOMAINS)
            assert k.drawn == (fabric not in SCENARIO_ISLANDS)


@pytest.mark.parametrize(
    "query",
    ["fail=st3", "fabric=gb200-nvl72&fail=gpu07", "fabric=vr-nvl576&fail=r02.st3,l2.p05.s1"],
)
def test_a_kind_answers_as_the_endpoints_do(query: str) -> None:
    """The registry's parts are the very functions the endpoints call, so one scenario has
    one answer through either."""
    s = parse_query(query).scenario
    k = registry.kind_of(s)
    assert k.assess(s) is assess(s)
    result = evaluate(s)
    assert {key: result[key] for key in k.evaluate(s)} == k.evaluate(s)
    assert k.decode.block(s) == result["decode"]


def test_an_island_fabric_is_refused_where_it_is_not_modelled() -> None:
    s = parse_query("fabric=b200-roce").scenario
    k = registry.kind_of(s)
    for ask in (k.assess, lambda s: k.topology(s.fabric)):
        with pytest.raises(ScenarioError, match="b200-roce"):
            ask(s)
    assert k.evaluate(s)["fabric"]["key"] == "b200-roce"


def test_parts_read_every_kind_alike() -> None:
    rack = Scenario()
    p = parts.part(rack, "gpu07-st3.sw2")
    assert (p.kind, p.rack, p.local, p.rack_id) == ("link", None, "gpu07-st3.sw2", None)
    dom = Scenario(fabric="vr-nvl576")
    p = parts.part(dom, "r03.gpu07-st3.sw2")
    assert (p.kind, p.rack, p.local, p.rack_id) == ("link", 2, "gpu07-st3.sw2", "r03")
    assert parts.part(dom, "l2.p05.s1").rack is None
    assert parts.part(dom, parts.in_rack(4, "st2")).rack_id == "r05"
    with pytest.raises(ScenarioError):
        parts.part(rack, "r03.gpu07")
    assert len(parts.every_id("vr-nvl72")) == 5184 + 2592 + 72 + 18 + 9 + 36 + 9
    assert parts.update_ids("vr-nvl72") == tuple(f"st{t}" for t in range(1, 10))
    assert parts.update_ids("vr-nvl576")[:2] == ("r01.st1", "r01.st2")


# --- nothing outside the seam branches on the kind -----------------------------------------


def kind_branches(source: str) -> list[str]:
    """Each place in `source` that tells fabric kinds apart by hand: a comparison against a
    FabricKind member (`s.kind is FabricKind.DOMAIN`, `in (FabricKind.RACK, ...)`), or the
    old `.multirack` flag. A table keyed by FabricKind is the seam, not a branch."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "FabricKind"
                ):
                    out.append(f"line {node.lineno}: {ast.unparse(node)}")
                    break
        if isinstance(node, ast.Attribute) and node.attr == "multirack":
            out.append(f"line {node.lineno}: .multirack")
    return out


def test_the_checker_finds_a_branch() -> None:
    planted = (
        "def f(s):\n"
        "    if s.kind is FabricKind.DOMAIN:\n"
        "        return 1\n"
        "    return 2 if s.multirack else 3\n"
        "TABLE = {FabricKind.RACK: f}\n"
    )
    assert kind_branches(planted) == [
        "line 2: s.kind is FabricKind.DOMAIN",
        "line 4: .multirack",
    ]


def test_no_module_branches_on_the_kind_of_fabric() -> None:
    found = {}
    for pkg in ("model", "dashboard", "bench", "harness"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if hits := kind_branches(path.read_text()):
                found[str(path.relative_to(ROOT))] = hits
    for path in (ROOT / "app.py",):
        if hits := kind_branches(path.read_text()):
            found[path.name] = hits
    assert not found, found
