"""The fabric twin: a pure, deterministic model of an NVL72 NVLink fabric and its faults.

Never imports dash or flask (DESIGN.md): the dashboard, the API and the command line all
call `evaluate(parse_query(q).scenario)`.
"""

from model.errors import ScenarioError
from model.evaluate import evaluate
from model.fabric.presets import FABRICS, Fabric
from model.scenario import Parsed, Scenario, parse_query, to_query

__all__ = [
    "FABRICS",
    "Fabric",
    "Parsed",
    "Scenario",
    "ScenarioError",
    "evaluate",
    "parse_query",
    "to_query",
]
