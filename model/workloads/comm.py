"""GET /api/v1/collectives' answer: one NCCL collective or one MoE dispatch / combine.

`answer(a, params)` reads the parameters a route was given (none of them defaulted by the
parser, so a parameter that does not apply to the op is named, not ignored) and returns the
JSON-ready result; every bad parameter is a ScenarioError naming it.
"""

from __future__ import annotations

from collections.abc import Mapping

from model.assess import Assessment
from model.errors import ScenarioError
from model.workloads import moe_a2a, nccl
from model.workloads.models import moe_model

MAX_BYTES = 1 << 36  # 64 GiB, nccl-tests' range and then some
NCCL_KEYS = ("algo", "bytes", "ranks")
MOE_KEYS = ("tokens", "ep", "precision")
DEFAULTS = {"op": "all_reduce", "algo": "auto", "bytes": 1 << 30, "precision": "bf16"}


def _refuse_foreign(op: str, given: Mapping, foreign: tuple[str, ...]) -> None:
    for key in foreign:
        if key in given:
            takes = MOE_KEYS if op in moe_a2a.OPS else NCCL_KEYS
            raise ScenarioError(f"{key} does not apply to {op} (it takes {', '.join(takes)})", key)


def answer(a: Assessment, given: Mapping[str, object]) -> dict:
    """The collective the parameters ask for, on the scenario `a`."""
    op = str(given.get("op", DEFAULTS["op"]))
    f = a.fabric
    base = {"scenario": a.scenario.key(), "fabric": f.key}
    if op in moe_a2a.OPS:
        _refuse_foreign(op, given, NCCL_KEYS)
        if "tokens" not in given:
            raise ScenarioError(
                f"{op} needs tokens (per rank, 1 to {moe_a2a.MAX_TOKENS})", "tokens"
            )
        tokens = int(given["tokens"])
        ep = int(given.get("ep", 8))
        precision = str(given.get("precision", DEFAULTS["precision"]))
        m = moe_model(a.scenario.workload)
        v = moe_a2a.ep_fabric(a, ep)
        return (
            base | {"workload": a.scenario.workload} | moe_a2a.moe_op(op, tokens, m, precision, v)
        )
    if op not in nccl.OPS:
        known = ", ".join((*nccl.OPS, *moe_a2a.OPS))
        raise ScenarioError(f"op '{op}' is not one of {known}", token="op")
    _refuse_foreign(op, given, MOE_KEYS)
    ranks = int(given.get("ranks", a.gpus_in_service if a.job_runs else 0))
    if ranks < 2:
        raise ScenarioError(
            "no GPU is in service: the job does not run in this scenario"
            if "ranks" not in given
            else f"ranks {ranks}: at least 2",
            token="ranks",
        )
    jf = nccl.job_fabric(a, ranks)
    algo = str(given.get("algo", DEFAULTS["algo"]))
    return base | nccl.collective(op, algo, float(given.get("bytes", DEFAULTS["bytes"])), jf)
