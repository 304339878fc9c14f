"""Scale-up islands on a scale-out network: `b200-roce`, the comparison buyers make, and
`h800-ib`, DeepSeek's own production fabric (18 HGX H800 nodes on 400 Gb/s InfiniBand).

72 B200 GPUs as nine 8-GPU HGX B200 nodes (NVLink 5 inside a node through its baseboard's two
NVLink switch chips), one 400 Gb/s RoCE NIC per GPU between nodes, all NICs on one Ethernet
switch [A]. The IDs follow the NVL72 grammar where the part exists there (`gpu17`, a link
`gpu17-sw1.l4`, a switch chip `node03.sw1`) and name the parts it lacks (`node03`, the HGX
node; `gpu17.nic`, its NIC; `leaf`, the scale-out switch):

- a GPU lost: it and its 18 links are gone;
- a node lost: its 8 GPUs are gone;
- a switch chip lost: every GPU of its node keeps 9 of its 18 NVLink links (9 to each chip [D]);
- a link lost: its GPU keeps 17 of 18;
- a NIC lost: its GPU's traffic to other nodes leaves through the NICs left in its node, over
  NVLink (NCCL maps each GPU to a NIC of its node and can share one [A]), so the node's GPUs
  share fewer NICs; a node with no NIC left cannot join a group wider than itself;
- the switch lost: no traffic between nodes; EP stays inside the nodes.

Only the data plane and decode are modelled (ISLANDS_UNMODELLED): b200-roce is here to hold
GB200 NVL72 against, as InferenceX measured it, not a rack this twin operates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from model.errors import ScenarioError
from model.fabric.presets import Fact
from model.kinds import ComponentKind, IslandKind


@dataclass(frozen=True)
class IslandFabric:
    """GPUs in scale-up islands joined by a scale-out network, one NIC per GPU."""

    key: str
    name: str
    gpu: str
    islands: int
    gpus_per_island: int
    island_gbs_one_way: float  # per GPU, inside an island
    island_packet_bytes: int
    nic_gbs_one_way: float  # per GPU, between islands
    nic_mpps: float  # messages per second a NIC issues, millions
    nic_mtu_bytes: int
    nic_latency_us: float  # GPU to GPU one way through the scale-out switch
    facts: tuple[Fact, ...]
    switches_per_island: int = 2
    links_per_gpu: int = 18
    scale_out: str = "RoCE"  # the scale-out network's name, as its IDs are explained

    @property
    def gpus(self) -> int:
        return self.islands * self.gpus_per_island

    @property
    def links_per_chip(self) -> int:
        """A GPU's links to each of its island's switch chips."""
        return self.links_per_gpu // self.switches_per_island

    @property
    def gpu_tbs_bidir(self) -> float:
        """A healthy GPU's NVLink bandwidth, both directions, TB/s."""
        return 2 * self.island_gbs_one_way / 1000.0


B200_ROCE = IslandFabric(
    key="b200-roce",
    name="72 B200 as nine 8-GPU HGX islands on 400 Gb/s RoCE",
    gpu="Blackwell B200",
    islands=9,
    gpus_per_island=8,
    island_gbs_one_way=900.0,  # [V] NVLink 5, 18 links x 50 GB/s: the same per GPU as NVL72
    island_packet_bytes=128,
    nic_gbs_one_way=50.0,  # [V] one ConnectX-7 400 Gb/s per GPU (InferenceX blog, FACTS.md §5)
    nic_mpps=330.0,  # [A] a ConnectX-7-class NIC's message rate, ~330 M/s
    nic_mtu_bytes=4096,  # [A] RoCE MTU
    nic_latency_us=3.0,  # [A] NIC, PCIe and one switch each way: ~3 us GPU to GPU
    facts=(
        Fact("islands", 9, "HGX B200 nodes", "A", "72 GPUs, as the NVL72 it is held against"),
        Fact("GPUs per island", 8, "GPUs", "V", "HGX B200"),
        Fact(
            "NVLink switch chips per island",
            2,
            "chips",
            "V",
            "HGX B200 baseboard: two NVLink switch chips (ServeTheHome, Computex 2024)",
        ),
        Fact("island bandwidth", 900, "GB/s one way per GPU", "V", "NVLink 5, 18 links"),
        Fact("scale-out bandwidth", 50, "GB/s one way per GPU", "V", "ConnectX-7 400 Gb/s"),
        Fact("NIC message rate", 330, "M/s", "A", "ConnectX-7 class"),
        Fact("scale-out latency", 3.0, "µs one way", "A", "NIC + PCIe + one switch"),
        Fact("scale-out switch", 1, "switch", "A", "72 x 400 Gb/s ports fit one 51.2 Tb/s switch"),
        Fact(
            "a lost NIC",
            "shared",
            "",
            "A",
            "its GPU reaches other nodes through a NIC of its own node over NVLink",
        ),
    ),
)
# DeepSeek's own production fabric (issue 29): H800 GPUs in 8-GPU HGX nodes on 400 Gb/s
# InfiniBand, one NIC a GPU; decode EP spans nodes as DeepSeek deploys it (EP144 decode on
# 18 nodes, EP32 prefill on 4: "DeepSeek-V3/R1 Inference System Overview", open-source week
# day 6, 2025-03-01). Its published production figures are checks (model/workloads/calibrate).
H800_IB = IslandFabric(
    key="h800-ib",
    name="144 H800 as eighteen 8-GPU nodes on 400 Gb/s InfiniBand",
    gpu="H800",
    islands=18,
    gpus_per_island=8,
    island_gbs_one_way=200.0,  # [V] H800 NVLink 4: 400 GB/s bidirectional (8 links of 50)
    island_packet_bytes=128,
    nic_gbs_one_way=50.0,  # [V] one ConnectX-7 400 Gb/s InfiniBand NIC per GPU
    nic_mpps=330.0,  # [A] as b200-roce's
    nic_mtu_bytes=4096,
    nic_latency_us=3.0,  # [A] as b200-roce's
    switches_per_island=4,  # [V] HGX H100/H800 baseboard: four NVSwitch chips
    links_per_gpu=8,  # [V] H800: 8 NVLink 4 links (H100 has 18), two to each chip [A]
    scale_out="InfiniBand",
    facts=(
        Fact("nodes", 18, "HGX H800 nodes", "V", "DeepSeek's decode unit: EP144 (day 6)"),
        Fact("GPUs per node", 8, "GPUs", "V", "HGX H800"),
        Fact("NVLink switch chips per node", 4, "chips", "V", "HGX H100/H800 baseboard"),
        Fact(
            "node bandwidth",
            200,
            "GB/s one way per GPU",
            "V",
            "H800 NVLink 4, 400 GB/s both ways (DeepSeek-V3 report: ~160 GB/s achieved)",
        ),
        Fact(
            "scale-out bandwidth",
            50,
            "GB/s one way per GPU",
            "V",
            "one 400 Gb/s InfiniBand NIC a GPU (DeepSeek-V3 report, §3.4: IB 50 GB/s)",
        ),
        Fact("NIC message rate", 330, "M/s", "A", "ConnectX-7 class"),
        Fact("scale-out latency", 3.0, "µs one way", "A", "NIC + PCIe + one switch"),
    ),
)
ISLAND_FABRICS = {B200_ROCE.key: B200_ROCE, H800_IB.key: H800_IB}
# The island fabrics a scenario can name (fabric=...).
SCENARIO_ISLANDS = {B200_ROCE.key: B200_ROCE, H800_IB.key: H800_IB}

# What the island model does not cover, said once (evaluate's not_modelled_yet).
ISLANDS_UNMODELLED = (
    "feature switches, control plane, partition and job fate (an HGX cluster has no NMX)",
    "training, goodput, telemetry and timeline",
    "flaky links and switch updates",
)

_GPU = re.compile(r"gpu(\d{2,3})")  # 2 digits, 3 from gpu100 (h800-ib's 144)
_NODE = re.compile(r"node(\d{2})")
_CHIP = re.compile(r"node(\d{2})\.sw(\d)")
_LINK = re.compile(r"gpu(\d{2,3})-sw(\d)\.l(\d)")
_NIC = re.compile(r"gpu(\d{2,3})\.nic")
LEAF = "leaf"


@dataclass(frozen=True)
class IslandPart:
    """A parsed island-fabric ID: what it is and where (0-based GPU, node, chip, link)."""

    id: str
    kind: ComponentKind | IslandKind
    gpu: int | None = None
    node: int | None = None
    chip: int | None = None
    link: int | None = None

    def sort_key(self) -> tuple:
        order = (
            IslandKind.LEAF,
            IslandKind.NODE,
            ComponentKind.SWITCH_CHIP,
            ComponentKind.GPU,
            IslandKind.NIC,
            ComponentKind.LINK,
        )
        where = tuple(-1 if v is None else v for v in (self.node, self.chip, self.gpu, self.link))
        return (order.index(self.kind), where)


def _grammar(f: IslandFabric) -> str:
    g, n, c, k = f.gpus - 1, f.islands, f.switches_per_island - 1, f.links_per_chip - 1
    return (
        f"{f.key} IDs are gpu00..gpu{g:02d} (a GPU), node01..node{n:02d} (an HGX node), "
        f"node01.sw0..node{n:02d}.sw{c} (an NVLink switch chip), gpuNN-swK.lJ (a GPU's link "
        f"J = 0..{k} to its node's chip K = 0..{c}), gpuNN.nic (its {f.scale_out} NIC) or {LEAF} "
        "(the scale-out switch)"
    )


def parse_island_part(token: str, f: IslandFabric) -> IslandPart:
    """One ID of an island fabric; ScenarioError names what is wrong and the grammar."""
    t = token.strip().lower()
    if t == LEAF:
        return IslandPart(LEAF, IslandKind.LEAF)
    per = f.gpus_per_island
    if m := _GPU.fullmatch(t):
        g = int(m.group(1))
        if g < f.gpus and m.group(1) == f"{g:02d}":
            return IslandPart(t, ComponentKind.GPU, gpu=g, node=g // per)
    elif m := _NODE.fullmatch(t):
        n = int(m.group(1))
        if 1 <= n <= f.islands:
            return IslandPart(t, IslandKind.NODE, node=n - 1)
    elif m := _CHIP.fullmatch(t):
        n, c = int(m.group(1)), int(m.group(2))
        if 1 <= n <= f.islands and c < f.switches_per_island:
            return IslandPart(t, ComponentKind.SWITCH_CHIP, node=n - 1, chip=c)
    elif m := _LINK.fullmatch(t):
        g, c, j = (int(x) for x in m.groups())
        if (
            m.group(1) == f"{g:02d}"
            and g < f.gpus
            and c < f.switches_per_island
            and j < f.links_per_chip
        ):
            return IslandPart(t, ComponentKind.LINK, gpu=g, node=g // per, chip=c, link=j)
    elif m := _NIC.fullmatch(t):
        g = int(m.group(1))
        if g < f.gpus and m.group(1) == f"{g:02d}":
            return IslandPart(t, IslandKind.NIC, gpu=g, node=g // per)
    raise ScenarioError(f"'{token}': {_grammar(f)}", token)


@dataclass(frozen=True)
class IslandState:
    """Each GPU's NVLink links up, its node's NIC share, and whether the switch is up."""

    fabric: IslandFabric
    gpu_alive: np.ndarray  # bool[G]
    links_up: np.ndarray  # int[G], of links_per_gpu
    nic_up: np.ndarray  # bool[G]
    chips_up: np.ndarray  # bool[islands, switches_per_island]
    leaf_up: bool

    @property
    def node_of(self) -> np.ndarray:
        return np.arange(self.fabric.gpus) // self.fabric.gpus_per_island

    @property
    def nvlink_share(self) -> np.ndarray:
        """float[G]: share of a healthy GPU's NVLink bandwidth each GPU keeps (0 if lost)."""
        return np.where(self.gpu_alive, self.links_up / self.fabric.links_per_gpu, 0.0)

    @property
    def scale_out_share(self) -> np.ndarray:
        """float[G]: share of one NIC's bandwidth each GPU gets to other nodes: its node's NICs
        in service shared by its node's GPUs in service (none without the switch)."""
        f = self.fabric
        if not self.leaf_up:
            return np.zeros(f.gpus)
        nodes = self.node_of
        nics = np.bincount(nodes, weights=self.nic_up & self.gpu_alive, minlength=f.islands)
        gpus = np.bincount(nodes, weights=self.gpu_alive, minlength=f.islands)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(gpus > 0, np.minimum(1.0, nics / gpus), 0.0)
        return np.where(self.gpu_alive, share[nodes], 0.0)


@lru_cache(maxsize=256)
def island_state(f: IslandFabric, fail: tuple[str, ...]) -> IslandState:
    """Propagate the failed parts (IDs as parse_island_part reads them)."""
    g, per, k = f.gpus, f.gpus_per_island, f.links_per_chip
    alive = np.ones(g, bool)
    links = np.zeros((g, f.switches_per_island, k), bool)  # failed links
    nic = np.ones(g, bool)
    chips = np.ones((f.islands, f.switches_per_island), bool)
    leaf = True
    for token in fail:
        p = parse_island_part(token, f)
        if p.kind is IslandKind.LEAF:
            leaf = False
        elif p.kind is IslandKind.NODE:
            alive[p.node * per : (p.node + 1) * per] = False
        elif p.kind is ComponentKind.SWITCH_CHIP:
            chips[p.node, p.chip] = False
        elif p.kind is ComponentKind.GPU:
            alive[p.gpu] = False
        elif p.kind is IslandKind.NIC:
            nic[p.gpu] = False
        else:
            links[p.gpu, p.chip, p.link] = True
    chip_ok = chips[np.arange(g) // per]  # [G, chips]
    up = (~links & chip_ok[:, :, None]).sum(axis=(1, 2))
    for a in (alive, up, nic, chips):
        a.flags.writeable = False
    return IslandState(f, alive, up, nic, chips, leaf)


def all_to_all_gbs(st: IslandState) -> float:
    """The slowest GPU's uniform all-to-all rate over every GPU in service, GB/s one way:
    of its traffic, peers in its node take their share over NVLink and the rest over its share
    of the node's NICs; the slower of the two sets the pace (0 if the nodes cannot reach each
    other and more than one node is in service)."""
    f = st.fabric
    alive = st.gpu_alive
    n = int(alive.sum())
    if n < 2:
        return 0.0
    nodes = st.node_of
    in_node = np.bincount(nodes[alive], minlength=f.islands)[nodes]
    near = (in_node - 1) / (n - 1)
    far = 1.0 - near
    nv = st.nvlink_share * f.island_gbs_one_way
    so = st.scale_out_share * f.nic_gbs_one_way
    with np.errstate(divide="ignore", invalid="ignore"):
        t_near = np.where(near > 0, near / nv, 0.0)
        t_far = np.where(far > 0, far / so, 0.0)
    t = np.maximum(t_near, t_far)[alive]
    return 0.0 if not np.isfinite(t).all() else float(1.0 / t.max())
