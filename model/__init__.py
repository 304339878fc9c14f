"""The fabric twin: a pure, deterministic model of an NVL72 NVLink fabric and its faults.

Never imports dash or flask (docs/ARCHITECTURE.md, "The layers"): the dashboard, the API and the command line all
call `assess(parse_query(q).scenario)` (the one pipeline, model/assess.py) or `evaluate`
(its JSON-ready result). docs/ARCHITECTURE.md is the map.
"""

from model.assess import Assessment, assess
from model.errors import ScenarioError
from model.evaluate import evaluate
from model.fabric.presets import FABRICS, Fabric
from model.query import Parsed, parse_query
from model.scenario import Scenario, to_query

__all__ = [
    "FABRICS",
    "Assessment",
    "Fabric",
    "Parsed",
    "Scenario",
    "ScenarioError",
    "assess",
    "evaluate",
    "parse_query",
    "to_query",
]
