"""The three fabric presets: every count and rate of FACTS.md section 1, defined once.

A fabric here is a single-stage crossbar: every GPU has one link to every switch chip
(FACTS.md §1 "Topology"). A "plane" is one switch chip and its links, numbered
plane = (tray - 1) * chips_per_tray + chip.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

DEFAULT_FABRIC = "vr-nvl72"


@dataclass(frozen=True)
class Fact:
    """A number with its FACTS.md tag and source, returned by the API as an assumption row."""

    name: str
    value: float | str
    unit: str
    tag: str  # V vendor, M measured, D derived, A assumption of this project
    source: str


@dataclass(frozen=True)
class Fabric:
    """One fabric preset. All rates are per direction unless named bidirectional."""

    key: str
    name: str
    technology: str
    compute_trays: int
    gpus_per_tray: int
    switch_trays: int
    chips_per_tray: int
    cables_per_link: int
    link_gbs_bidir: float  # GB/s, both directions counted
    sharp_tflops_per_chip: float  # in-network reduction per switch chip, 0 = none
    latency_one_way_us: float  # GPU-to-GPU, one switch hop, unloaded
    packet_rate_gpps_per_gpu: float  # small packets per second per GPU, each way, in G
    reroute_stall_s: float  # traffic stall while routes move off a dead plane
    reroute_how: str
    gpu: str
    facts: tuple[Fact, ...] = field(default=())
    # The fabric in its own words (issue 28): what a switch tray's management controller runs,
    # whether one central fabric manager owns the routes (NMX-Controller on NVLink; none on
    # Ethernet, every switch routing for itself), and what the switches reduce in-network.
    controller_runs: str = "NVOS, NMX-Controller and NMX-Telemetry (FACTS.md §2)"
    fabric_manager: bool = True
    in_network: str = "SHARP on the switch chips in service"
    link_counters: str = "the DCGM NVLink 6 link counters"

    def __hash__(self) -> int:
        """The fields' hash, computed once: a Fabric keys every memo (IDs, curves, states),
        and hashing its 16 fields and facts on each lookup cost ~0.4 ms an evaluate."""
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
        return h

    @property
    def gpus(self) -> int:
        return self.compute_trays * self.gpus_per_tray

    @property
    def chips(self) -> int:
        return self.switch_trays * self.chips_per_tray

    @property
    def planes(self) -> int:
        return self.chips

    @property
    def links(self) -> int:
        return self.gpus * self.chips

    @property
    def cables(self) -> int:
        return self.links * self.cables_per_link

    @property
    def gpu_tbs_bidir(self) -> float:
        return self.chips * self.link_gbs_bidir / 1000.0

    @property
    def rack_tbs_bidir(self) -> float:
        return self.gpus * self.gpu_tbs_bidir

    @property
    def tray_tbs_bidir(self) -> float:
        """Switch-tray bandwidth: its chips' ports, 72 GPUs x chips_per_tray links."""
        return self.gpus * self.chips_per_tray * self.link_gbs_bidir / 1000.0

    @property
    def sharp_tflops(self) -> float:
        return self.chips * self.sharp_tflops_per_chip

    @property
    def ethernet(self) -> bool:
        """Whether the scale-up tier is Ethernet: frames, not NVLink's loads and stores to a
        peer's memory."""
        return self.technology == "Ethernet"

    @property
    def packet_bytes(self) -> int:
        """Payload bytes per packet: a 4 KiB frame on Ethernet, a 128 B write on NVLink [A]."""
        return ETH_MTU_BYTES if self.ethernet else NVLINK_PACKET_BYTES


# Rack layout, top to bottom: power, compute trays 1-10, switch trays 1-9, compute 11-18,
# power [V] FACTS.md §1 "Rack layout" (GB200 photos; the VR NVL72 keeps the Oberon rack).
COMPUTE_TRAYS_ABOVE_SWITCHES = 10

# FACTS.md §4: NVLink one-way GPU-to-GPU latency has no vendor figure; ~0.35 us [A].
NVLINK_LATENCY_US = 0.35
# FACTS.md §4: NVLink 6 has "3x lower GPU-to-GPU latency, 10x higher packet rate" than
# off-the-shelf Ethernet scale-up [V seed article].
ETH_LATENCY_FACTOR = 3.0
ETH_PACKET_RATE_FACTOR = 0.1
# Packet rate: no vendor figure. [A] one 128-byte NVLink write per packet at line rate,
# so a GPU's packet rate each way = (one-way bandwidth) / 128 B.
NVLINK_PACKET_BYTES = 128
# Ethernet frames carry up to 4 KiB [A] (its row in the assumptions: params.PARAM_FACTS).
ETH_MTU_BYTES = 4096
# Dynamic rerouting "within milliseconds" [V seed article, FACTS.md §3]; [A] 1 ms stall.
NVLINK_REROUTE_STALL_S = 1e-3
# [A] ECMP reconvergence after a link or switch loss: BFD detection (3 x 50 ms) plus
# routing-protocol reconvergence and FIB update, a few seconds; 3 s.
ETH_REROUTE_STALL_S = 3.0


def _packet_rate(chips: int, link_gbs_bidir: float) -> float:
    one_way_bytes_s = chips * link_gbs_bidir / 2 * 1e9
    return one_way_bytes_s / NVLINK_PACKET_BYTES / 1e9


_COMMON_FACTS = (
    Fact("compute trays", 18, "trays", "V", "FACTS.md §1: NVIDIA DGX GB200 user guide; VR pages"),
    Fact("GPUs per compute tray", 4, "GPUs", "V", "FACTS.md §1"),
    Fact("switch trays", 9, "trays", "V", "FACTS.md §1"),
    Fact("link bandwidth", 100, "GB/s bidirectional", "V", "FACTS.md §1: NVLink 5 page"),
    Fact("spine cables", 5184, "cables", "V", "FACTS.md §1: DGX GB200 user guide"),
)

VR_NVL72 = Fabric(
    key="vr-nvl72",
    name="Vera Rubin NVL72 (NVLink 6)",
    technology="NVLink 6",
    compute_trays=18,
    gpus_per_tray=4,
    switch_trays=9,
    chips_per_tray=4,  # [V] VR tray photos, FACTS.md §1
    cables_per_link=2,  # [D] 5,184 / 2,592, FACTS.md §1
    link_gbs_bidir=100.0,  # [D] NVLink 6, FACTS.md §1
    sharp_tflops_per_chip=3.6,  # [V] 14.4 TFLOPS FP8 per tray / 4 chips, FACTS.md §1
    latency_one_way_us=NVLINK_LATENCY_US,
    packet_rate_gpps_per_gpu=_packet_rate(36, 100.0),
    reroute_stall_s=NVLINK_REROUTE_STALL_S,
    reroute_how="NVLink 6 dynamic rerouting",
    gpu="Rubin",
    facts=_COMMON_FACTS
    + (
        Fact("switch chips per tray", 4, "chips", "V", "FACTS.md §1: Vera Rubin tray photos"),
        Fact("links per GPU", 36, "links", "D", "FACTS.md §1: 72 x 36 = 36 x 72 ports"),
        Fact("cables per link", 2, "cables", "D", "FACTS.md §1: 5,184 / 2,592"),
        Fact("SHARP per chip", 3.6, "TFLOPS FP8", "V", "FACTS.md §1: 14.4 TFLOPS per tray"),
        Fact("GPU-to-GPU latency", NVLINK_LATENCY_US, "µs one way", "A", "FACTS.md §4"),
        Fact(
            "packet size for packet rate",
            NVLINK_PACKET_BYTES,
            "bytes",
            "A",
            "no vendor figure; one 128 B write per packet",
        ),
        Fact("reroute stall", NVLINK_REROUTE_STALL_S, "s", "A", "FACTS.md §3: 'milliseconds'"),
    ),
)

GB200_NVL72 = Fabric(
    key="gb200-nvl72",
    name="GB200 NVL72 (NVLink 5)",
    technology="NVLink 5",
    compute_trays=18,
    gpus_per_tray=4,
    switch_trays=9,
    chips_per_tray=2,  # [V] Hot Chips 2024, FACTS.md §1
    cables_per_link=4,  # [D] 5,184 / 1,296, FACTS.md §1
    link_gbs_bidir=100.0,  # [V] NVLink 5 page
    sharp_tflops_per_chip=3.6,  # [V] Hot Chips 2024
    latency_one_way_us=NVLINK_LATENCY_US,
    packet_rate_gpps_per_gpu=_packet_rate(18, 100.0),
    reroute_stall_s=NVLINK_REROUTE_STALL_S,
    reroute_how="adaptive-bandwidth rerouting",
    gpu="Blackwell B200",
    facts=_COMMON_FACTS
    + (
        Fact("switch chips per tray", 2, "chips", "V", "FACTS.md §1: Hot Chips 2024"),
        Fact("links per GPU", 18, "links", "D", "FACTS.md §1: 72 x 18 = 18 x 72 ports"),
        Fact("cables per link", 4, "cables", "D", "FACTS.md §1: 5,184 / 1,296"),
        Fact("SHARP per chip", 3.6, "TFLOPS", "V", "FACTS.md §1: Hot Chips 2024"),
        Fact("GPU-to-GPU latency", NVLINK_LATENCY_US, "µs one way", "A", "FACTS.md §4"),
    ),
    link_counters="the DCGM NVLink 5 link counters",
)

ETH_X72 = Fabric(
    key="eth-x72",
    name="72 GPUs on off-the-shelf Ethernet scale-up",
    technology="Ethernet",
    compute_trays=18,
    gpus_per_tray=4,
    switch_trays=9,
    chips_per_tray=4,  # [A] 36 switches, one 400 GbE port per GPU each: same shape as vr-nvl72
    cables_per_link=2,  # [A] mirrors vr-nvl72 so every scenario ID maps across
    link_gbs_bidir=100.0,  # [A] same per-GPU bandwidth as vr-nvl72 by default (adjustable)
    sharp_tflops_per_chip=0.0,  # [A] no in-network reduction on off-the-shelf switches
    latency_one_way_us=NVLINK_LATENCY_US * ETH_LATENCY_FACTOR,
    packet_rate_gpps_per_gpu=_packet_rate(36, 100.0) * ETH_PACKET_RATE_FACTOR,
    reroute_stall_s=ETH_REROUTE_STALL_S,
    reroute_how="ECMP reconvergence",
    gpu="Rubin",
    facts=(
        Fact(
            "topology",
            "36 single-tier Ethernet switches, one 400 GbE port per GPU each",
            "",
            "A",
            "same shape as vr-nvl72 so the comparison isolates latency and packet rate",
        ),
        Fact("per-GPU bandwidth", 3.6, "TB/s bidirectional", "A", "same as vr-nvl72; adjustable"),
        Fact("latency factor", ETH_LATENCY_FACTOR, "x NVLink 6", "V", "FACTS.md §4, seed"),
        Fact("packet rate factor", ETH_PACKET_RATE_FACTOR, "x NVLink 6", "V", "FACTS.md §4"),
        Fact("in-network reduction", 0, "TFLOPS", "A", "none on off-the-shelf switches"),
        Fact("reroute stall", ETH_REROUTE_STALL_S, "s", "A", "ECMP reconvergence, seconds"),
    ),
    controller_runs=(
        "the switch's network OS, management only: no central fabric manager, each switch "
        "routes for itself (BGP/ECMP) [A]"
    ),
    fabric_manager=False,
    in_network="off-the-shelf Ethernet switches do no in-network reduction [A]",
    link_counters="the switch ports' FEC/CRC error counters",
)

FABRICS: dict[str, Fabric] = {f.key: f for f in (VR_NVL72, GB200_NVL72, ETH_X72)}


# Ethernet per GPU as Ethernet people say it: ports a GPU x port speed (Gb/s each way). The
# model spreads the total over eth-x72's 36 switch planes (eth_with_bandwidth); eth_bw= is
# the total in TB/s both ways [D]: ports x Gb/s x 2 / 8 / 1000.
ETH_PORT_CHOICES: tuple[tuple[int, int], ...] = (
    (1, 400),  # one 400 GbE NIC a GPU (ConnectX-7, HGX H100/H200 scale-out)
    (1, 800),  # one 800 GbE NIC a GPU (ConnectX-8 SuperNIC, Spectrum-X scale-out)
    (2, 800),
    (4, 800),
    (9, 800),
    (36, 400),  # NVLink 6's 3.6 TB/s both ways: eth-x72's default
    (36, 800),
    (36, 1600),
)


def eth_ports_tbs(ports: int, gbps: int) -> float:
    """Per-GPU Ethernet bandwidth, TB/s both ways, of `ports` ports at `gbps` Gb/s each way."""
    return ports * gbps * 2 / 8 / 1000


def eth_ports_words(tbs: float) -> str:
    """eth_bw (TB/s both ways a GPU) in Ethernet's words: the port choice it is, or its
    equivalent in 800 GbE ports."""
    for n, g in ETH_PORT_CHOICES:
        if abs(eth_ports_tbs(n, g) - tbs) < 1e-9:
            speed = "1.6 TbE" if g == 1600 else f"{g} GbE"
            return f"{n} × {speed} a GPU ({tbs:g} TB/s both ways)"
    return f"{tbs:g} TB/s a GPU both ways (as {tbs / eth_ports_tbs(1, 800):.2g} × 800 GbE ports)"


def eth_with_bandwidth(gpu_tbs_bidir: float) -> Fabric:
    """eth-x72 with another per-GPU bandwidth: same 36 ports, each at gpu_tbs / 36."""
    link = gpu_tbs_bidir * 1000.0 / ETH_X72.chips
    return replace(
        ETH_X72,
        link_gbs_bidir=link,
        packet_rate_gpps_per_gpu=_packet_rate(ETH_X72.chips, link) * ETH_PACKET_RATE_FACTOR,
    )
