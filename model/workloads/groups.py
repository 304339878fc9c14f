"""What decode needs of a fabric in a state (workloads/hardware.py builds it for a scenario,
a preset or a comparison; workloads/decode.py's frontier reads it): the GPU, the GPUs
installed and, per EP size, the groups of ranks it can form, each as its slowest rank's view
of the fabric."""

from __future__ import annotations

from dataclasses import dataclass

from model.workloads import decode_params as D
from model.workloads import moe_a2a
from model.workloads.models import GPU

Groups = tuple[tuple[moe_a2a.EPFabric, int], ...]  # (slowest rank's view, groups like it)


@dataclass(frozen=True)
class Hardware:
    """What decode needs of a fabric in a state: the GPU, the GPUs installed (the per-GPU
    denominator: a lost GPU counts as zero) and, per EP size, the groups it can form."""

    key: str
    gpu: GPU
    installed: int
    groups: tuple[tuple[int, Groups], ...]  # (ep, groups) for every EP size that fits
    in_service: int | None = None  # GPUs in service (None: every GPU installed)

    def __post_init__(self) -> None:
        if self.in_service == self.installed:  # a healthy state equals its preset's Hardware
            object.__setattr__(self, "in_service", None)

    @property
    def serving(self) -> int:
        """GPUs in service: what a deployment's groups may use, the rest of them idle."""
        return self.installed if self.in_service is None else self.in_service

    def groups_for(self, ep: int) -> Groups:
        return dict(self.groups).get(ep, ())

    @property
    def max_ep(self) -> int:
        return max((e for e, g in self.groups if g), default=0)


def leftover(n: int, ep: int) -> int:
    """GPUs left after floor(n / ep) groups of ep that form one smaller group of their own
    (at least the smallest EP size that holds the experts; fewer stay idle)."""
    r = n % ep
    return r if r >= min(D.EP_SIZES) else 0


def elastic(n: int, ep: int, installed: int) -> bool:
    """Whether n GPUs in service, too few for one group of ep, serve as one group of all n:
    at the smallest EP size above n that the healthy pool of `installed` forms (at the next
    size up they would form the same group again). Serving frameworks keep an EP group going
    on its survivors, the lost ranks' experts spread over the rest [D: SGLang's `mooncake`
    all-to-all backend, "an extension of DeepEP for elastic inference"; vLLM's EPLB
    fault tolerance, which redistributes the experts and reloads their weights after a peer
    dies]."""
    if n >= ep or ep > installed or n < min(D.EP_SIZES):
        return False
    return ep == min(e for e in D.EP_SIZES if e > n)


def healthy_groups(installed: int, view) -> tuple[tuple[int, Groups], ...]:
    """Every EP size's groups on a healthy domain: floor(installed / ep) alike (view(ep)), and
    the GPUs left over as one smaller group (view(rest))."""
    out = []
    for e in D.EP_SIZES:
        if e > installed:
            continue
        groups = [(view(e), installed // e)]
        if r := leftover(installed, e):
            groups.append((view(r), 1))
        out.append((e, tuple(groups)))
    return tuple(out)
