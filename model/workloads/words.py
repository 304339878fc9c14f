"""Decode's sentences: the interactivity a deployment runs at, and why the best deployment
changes along it or under a fault (model/workloads/choices.py), written from its choices
(model/words.py holds the fabric's; model/multirack/words.py a domain's)."""

from __future__ import annotations

from model.words import count, sig


def interactivity(at: float) -> str:
    """The interactivity a deployment runs at, in words: '50 tokens/s per user: a token
    every 20.0 ms to each user, about 38 words a second'."""
    # [A] ~0.75 English words a token (OpenAI's rule of thumb for its tokenisers)
    return (
        f"{at:g} tokens/s per user: a token every {sig(1000 / at)} ms to each user, about "
        f"{count(at * 0.75)} words a second"
    )


# why a deployment gives way to another (choices.deployment_changes, choices.fault_changes)
DEPLOYMENT_WHY = {
    "ep_up": "wider EP groups hold fewer experts a GPU, so each step reads fewer expert weights",
    "ep_down": "narrower EP groups send less of each step's all-to-all over the fabric",
    "mtp_on": "a drafted token a step buys interactivity that a smaller batch no longer can",
    "mtp_off": "verifying a draft for every request costs more than the token it adds",
    "mtp_more": "another draft a step buys interactivity that a smaller batch no longer can",
    "mtp_fewer": "the last draft is accepted too rarely to pay for verifying it",
    "tp_on": (
        "tensor-parallel attention: at a few requests a GPU, reading a share of the attention "
        "weights and all-reducing twice a layer beats every GPU reading all of them"
    ),
    "tp_off": (
        "data-parallel attention: with more requests, every GPU keeping the whole group's "
        "cache and all-reducing each layer costs more than reading all the attention weights"
    ),
    "overlap_on": "two micro-batches: one half's compute now hides the other's all-to-all",
    "overlap_off": "one batch: reading every weight twice costs more than the all-to-all it hid",
    "kv": "the KV cache's precision changes how many requests fit",
    "fits": "the GPUs left in service hold no group of the healthy rack's EP size",
    "elastic": (
        "the GPUs left in service are too few for a group of the healthy rack's EP size, so "
        "they serve as one group of them all, the lost GPUs' experts spread over the rest "
        "(elastic EP)"
    ),
}


def idle_clause(idle: int | None, serving: int, sep: str = "; ", end: str = "") -> str:
    """'; its groups leave 3 of the 67 GPUs in service idle', or '' when none is idle."""
    if not idle:
        return ""
    return f"{sep}its groups leave {idle} of the {serving} GPUs in service idle{end}"


def deployment_change(
    before: str, after: str, x: float, why: str, idle: int | None = 0, serving: int = 0
) -> str:
    """One line: where along interactivity the best deployment changes, and why (and the GPUs
    in service its groups leave idle, where any)."""
    return (
        f"at {sig(x)} tokens/s per user, {before} → {after}: {DEPLOYMENT_WHY[why]}"
        + idle_clause(idle, serving)
    )


def fault_change(
    healthy: str, here: str, lo: float, hi: float, why: str, idle: int | None = 0, serving: int = 0
) -> str:
    """One line: over which interactivities the fault moves the best deployment, and why."""
    span = f"{sig(lo)} tokens/s per user" if lo == hi else f"{sig(lo)}-{sig(hi)} tokens/s per user"
    return f"at {span} the fault moves {healthy} → {here}: {DEPLOYMENT_WHY[why]}" + idle_clause(
        idle, serving
    )
