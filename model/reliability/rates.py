"""Lifetime reliability parameters: failure rates per component kind and the job's timings.

Each value cites its FACTS.md row (section 6 unless said) or research/goodput.md, or is
marked [A], an assumption of this project, with why. Repair times, the controller restart,
the in-service update per tray and the maintenance window are the model's own
(model/params.py, used through model/fate.py) and are not redefined here.

`Rates` is frozen: override any value with `Rates().with_overrides(name=value)` (the API
exposes a few as query parameters); every value is range-checked and a bad one raises
ScenarioError naming it. `rate_facts(rates)` gives the rows for the assumptions panel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from model.errors import ScenarioError
from model.fabric.presets import Fact
from model.params import CABLE_SWAP_RACK_DOWN_H

HOURS_PER_YEAR = 8766.0  # [D] 365.25 days x 24 h

# Llama 3 405B run (FACTS.md §6; research/goodput.md §1): 419 unexpected interruptions in
# 54 days on 16,384 GPUs in 2,048 eight-GPU hosts.
LLAMA3_GPU_HOURS = 16_384 * 54 * 24  # [M] 21.2 M GPU-hours
LLAMA3_HOST_HOURS = 2_048 * 54 * 24  # [M] 2.65 M host-hours
LLAMA3_INTERRUPTIONS = 419  # [M] unexpected
# Host hardware causes (SSD 3, PSU 3, chassis 2, IO board 2, CPU 2, DRAM 2) [M]:
LLAMA3_HOST_HW_COUNT = 3 + 3 + 2 + 2 + 2 + 2
# Software / unknown share of interruptions: software bug 54 + host maintenance 32 + NCCL
# watchdog 7 + dependency 2 = 95 of 419, "~22%" (research/goodput.md §2) [M].
SOFTWARE_SHARE = 0.22

# Link-dark faults, copper and optical [A / M]: see the cable_per_h and link_end_per_h rows.
OPTICAL_LINK_PER_H = 7.8e-7  # [M] FACTS.md §6: Alibaba HPN, 0.057% of NIC-ToR links a month
OPTICAL_END_PER_H = OPTICAL_LINK_PER_H / 2  # [D] one transceiver, of the two a link has
COPPER_END_PER_H = OPTICAL_END_PER_H / 4  # [A] no laser: a connector and a SerDes
COPPER_CABLE_PER_H = 1.0 / 5e7  # [A] passive twinax: no active part (vendors' DAC MTBFs)

HOST_HW_PER_H = LLAMA3_HOST_HW_COUNT / LLAMA3_HOST_HOURS  # [D] 5.3e-6 per host-hour
SOFTWARE_PER_GPU_H = SOFTWARE_SHARE * LLAMA3_INTERRUPTIONS / LLAMA3_GPU_HOURS  # [D] 4.3e-6


def _p(
    default: float,
    unit: str,
    tag: str,
    source: str,
    lo: float,
    hi: float,
    span: tuple[float, float, str] | None = None,
) -> float:
    """A Rates field with its unit, FACTS tag, source and accepted range; an assumption [A]
    also its plausible span (low, high, why), which the sensitivity (sensitivity.py) tries."""
    meta = {"unit": unit, "tag": tag, "source": source, "range": (lo, hi), "span": span}
    return field(default=default, metadata=meta)  # type: ignore[return-value]


# Failure rates are bounded only at one failure per component-hour: the closed form nets
# overlapping down time exactly (model/reliability/goodput.py), so any published case can be
# written, and the Monte Carlo refuses only what it cannot sample in time (MAX_MC_EVENTS).
MAX_FAILURE_PER_H = 1.0
FAILURE_RATE_FIELDS = (
    "gpu_per_h",
    "cable_per_h",
    "link_end_per_h",
    "switch_chip_per_h",
    "switch_tray_per_h",
    "compute_tray_per_h",
    "controller_per_h",
    "software_per_gpu_h",
)
# Rates only a multi-rack domain has (model/reliability/domain.py): left out of a single
# rack's rows and parameters, so one rack's answers are as before.
DOMAIN_ONLY_FIELDS = ("trunk_link_per_h",)
DOMAIN_FAILURE_RATE_FIELDS = FAILURE_RATE_FIELDS + DOMAIN_ONLY_FIELDS


@dataclass(frozen=True)
class Rates:
    """Every lifetime-goodput input that is not a fabric count or a model repair time."""

    # --- failure rates (per component-hour; Poisson, independent) ---
    gpu_per_h: float = _p(
        1.26e-5,
        "per GPU-hour",
        "D",
        "FACTS.md §6: Llama 3 GPU-attributed failures (GPU, HBM, SRAM, GSP, SDC, thermal)",
        0.0,
        MAX_FAILURE_PER_H,
    )
    # Link-dark faults, by what fails (issue 14, item 3). The NVL72 spine is passive copper
    # (FACTS.md §1): no laser, no optics. The only public per-link rate is optical (Alibaba's
    # NIC-ToR links, two transceivers and a fibre): OPTICAL_LINK_PER_H above, an upper bound
    # for copper. docs/GOODPUT.md "Failure rates by what fails" gives the argument.
    cable_per_h: float = _p(
        COPPER_CABLE_PER_H,
        "per spine cable-hour (passive copper)",
        "A",
        "a passive copper twinax cable has no active part: cable makers quote MTBFs of tens of "
        "millions of hours for passive DACs; 5e7 h taken (optical: the fibre itself, about "
        "the same; its transceivers are the link ends)",
        0.0,
        MAX_FAILURE_PER_H,
        span=(1e-8, 1e-7, "an MTBF of 100 M h to 10 M h: the vendors' passive-DAC figures"),
    )
    link_end_per_h: float = _p(
        COPPER_END_PER_H,
        "per link end-hour (connector and SerDes, 2 a link)",
        "A",
        "a link end is the blind-mate connector, its pins and the SerDes behind it: a quarter "
        "of an optical end (3.9e-7, Alibaba HPN's 7.8e-7 a NIC-ToR link over its two "
        "transceivers, FACTS.md §6), since the laser, the optical part most often failing, "
        "is absent; not lower, as early GB200 spines were reported unreliable",
        0.0,
        MAX_FAILURE_PER_H,
        span=(
            OPTICAL_END_PER_H / 10,
            OPTICAL_END_PER_H,
            "a tenth of an optical end to a whole one, the optical upper bound (docs/GOODPUT.md)",
        ),
    )
    switch_chip_per_h: float = _p(
        7.0e-7,
        "per switch-chip-hour",
        "M",
        "FACTS.md §6: Alibaba HPN switch critical failures; one NVLink switch chip = a switch",
        0.0,
        MAX_FAILURE_PER_H,
    )
    switch_tray_per_h: float = _p(
        HOST_HW_PER_H,
        "per switch-tray-hour",
        "A",
        "whole-tray loss (PSU, board, chassis): a switch tray is a small host, so the Llama 3 "
        "host-hardware rate (research/goodput.md §2); no NVSwitch-tray figure exists",
        0.0,
        MAX_FAILURE_PER_H,
        span=(HOST_HW_PER_H / 2, 2 * HOST_HW_PER_H, "half to twice the Llama 3 host rate"),
    )
    compute_tray_per_h: float = _p(
        HOST_HW_PER_H,
        "per compute-tray-hour",
        "A",
        "host hardware other than GPUs (SSD, PSU, chassis, IO board, CPU, DRAM): Llama 3 "
        "host rate (research/goodput.md §2), per compute tray instead of per 8-GPU host",
        0.0,
        MAX_FAILURE_PER_H,
        span=(HOST_HW_PER_H / 2, 2 * HOST_HW_PER_H, "half to twice the Llama 3 host rate"),
    )
    controller_per_h: float = _p(
        HOST_HW_PER_H,
        "per management-controller-hour",
        "A",
        "a switch tray's management CPU (NVOS, NMX-C) is a small host: Llama 3 host rate; "
        "no NMX failure figure is published",
        0.0,
        MAX_FAILURE_PER_H,
        span=(HOST_HW_PER_H / 2, 2 * HOST_HW_PER_H, "half to twice the Llama 3 host rate"),
    )
    software_per_gpu_h: float = _p(
        SOFTWARE_PER_GPU_H,
        "per GPU-hour",
        "A",
        "software / unknown interruptions, ~22% of Llama 3's 419 (research/goodput.md §2), "
        "per GPU-hour of the job; the same on every fabric",
        0.0,
        MAX_FAILURE_PER_H,
        span=(
            SOFTWARE_PER_GPU_H / 2,
            2 * SOFTWARE_PER_GPU_H,
            "half to twice Llama 3's software share",
        ),
    )
    trunk_link_per_h: float = _p(
        OPTICAL_LINK_PER_H,
        "per trunk link-hour (multi-rack domains: L1 chip to L2 chip)",
        "A",
        "a trunk runs between racks, metres beyond passive copper's reach at NVLink 6's "
        "200G lanes, so it is taken as an optical link (two transceivers and a fibre): "
        "Alibaba HPN's 7.8e-7 a NIC-ToR link-hour [M] (FACTS.md §6), applied as it is; the "
        "domain's topology itself is [A] (docs/MULTIRACK.md)",
        0.0,
        MAX_FAILURE_PER_H,
        span=(
            OPTICAL_LINK_PER_H / 4,
            2 * OPTICAL_LINK_PER_H,
            "a quarter to twice Alibaba's optical link rate",
        ),
    )
    # --- flaky links ---
    flaky_share: float = _p(
        0.5,
        "of link failures",
        "A",
        "share of hard link failures preceded by a degrading phase telemetry can see; one "
        "public GB200 case (FACTS.md §3) shows it, no share is published: a midpoint",
        0.0,
        1.0,
        span=(0.0, 1.0, "none to every link failure: no share is published"),
    )
    flaky_lead_h: float = _p(
        120.0,
        "h",
        "M",
        "FACTS.md §3: the public GB200 link showed recovery events five days before it failed",
        0.0,
        2000.0,
    )
    # --- detection, restart, checkpoint ---
    detect_timeout_s: float = _p(
        600.0,
        "s",
        "M",
        "FACTS.md §6: detection by timeout, 10 min (ByteRobust, MegaScale)",
        0.0,
        86400.0,
    )
    detect_telemetry_s: float = _p(
        30.0,
        "s",
        "M",
        "FACTS.md §6: 10-30 s with good telemetry; the upper end",
        0.0,
        86400.0,
    )
    detect_other_s: float = _p(
        600.0,
        "s",
        "A",
        "GPU, host and software faults: link telemetry does not see them, so the FACTS §6 "
        "timeout (10 min) on every fabric",
        0.0,
        86400.0,
        span=(30.0, 1200.0, "telemetry-grade 30 s to a 20-minute timeout (FACTS.md §6)"),
    )
    restart_s: float = _p(
        600.0,
        "s",
        "M",
        "FACTS.md §6: restart overhead 10 min (5-20), Meta",
        0.0,
        86400.0,
    )
    checkpoint_write_s: float = _p(
        10.0,
        "s",
        "M",
        "FACTS.md §6: blocking checkpoint write, Llama 3 scale",
        0.01,
        86400.0,
    )
    diagnosis_no_telemetry_h: float = _p(
        24.0,
        "h",
        "A",
        "FACTS.md §3 'repair takes longer' without per-link counters: finding the failed "
        "cable, port, chip or tray; root-causing took hours to days before C4 "
        "(research/goodput.md §1). One day",
        0.0,
        2000.0,
        span=(4.0, 72.0, "hours to days (research/goodput.md §1)"),
    )
    # --- software updates and the control plane ---
    updates_per_year: float = _p(
        4.0,
        "per year",
        "A",
        "switch firmware / NVOS updates: a quarterly release train; no public cadence",
        0.0,
        365.0,
        span=(1.0, 12.0, "a yearly to a monthly release train"),
    )
    spare_swap_h: float = _p(
        0.0,
        "h",
        "A",
        "a job over many racks with hot spare racks: re-forming the job on a spare is part "
        "of its restart (restart_s, which the Llama 3 and Meta figures include); raise it for "
        "spares that must be brought up first",
        0.0,
        24.0,
        span=(0.0, 2.0, "a hot spare to one brought up first"),
    )
    # --- the rack-down swap ---
    cartridge_swap_h: float = _p(
        CABLE_SWAP_RACK_DOWN_H,
        "h, rack down",
        "A",
        "a spine cable cartridge swap with the rack down: trays unseated from the spine "
        "(model/params.py CABLE_SWAP_RACK_DOWN_H, which the repairs and the timeline show); "
        "goodput reads it here, so it can be tried and overridden: an override moves goodput "
        "alone",
        0.0,
        2000.0,
        span=(2.0, 8.0, "half to twice the 4 h: a practised crew to a first swap"),
    )
    # --- spare parts on site (repair=...,onsite) ---
    onsite_cable_h: float = _p(
        6.0,
        "h",
        "A",
        "a spine cartridge on site: the 4 h rack-down swap (model/params.py) and 2 h to start "
        "it, instead of the 24-72 h of FACTS.md §6 that include getting the part",
        0.0,
        2000.0,
        span=(4.0, 12.0, "the swap alone to half a day"),
    )
    onsite_tray_h: float = _p(
        2.2,
        "h",
        "M",
        "a compute or switch tray on site: NCSA Delta's 2.2 h average node recovery with "
        "spares at hand (research/goodput.md §2), instead of 24 h",
        0.0,
        2000.0,
    )
    # --- what an hour is worth ---
    price_per_gpu_h: float = _p(
        8.5,
        "$ per GPU-hour",
        "M",
        "SemiAnalysis InferenceX (2026-09-14): a 3-year rental of a Vera Rubin GPU cost more "
        "than $8.5 an hour in July 2026 (research/operators_and_data.md); what a GPU-hour of "
        "goodput is worth to whoever pays for it",
        0.0,
        1000.0,
    )
    failover_gap_h: float = _p(
        5.0 / 60.0,
        "h",
        "A",
        "control-plane failover: a peer takes the management address over and restarts "
        "NMX-C (FACTS.md §2); a few minutes, shorter than restarting the failed controller",
        0.0,
        24.0,
        span=(1.0 / 60.0, 0.5, "one minute to half an hour"),
    )
    # Degraded running is not a rate here: it is the scenario's own delivered fraction
    # (model/workloads/throughput.py), the number the timeline and the page show. Tokens per
    # second come from the same place (decode at the reference interactivity, or training).

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            lo, hi = f.metadata["range"]
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                raise ScenarioError(f"{f.name} must be a finite number, not {v!r}", token=f.name)
            if not lo <= v <= hi:
                raise ScenarioError(
                    f"{f.name} = {v:g} is out of range: from {lo:g} to {hi:g} {f.metadata['unit']}",
                    token=f.name,
                )

    def with_overrides(self, **values: float) -> Rates:
        """A copy with some values replaced; an unknown name raises ScenarioError."""
        known = {f.name for f in fields(self)}
        for name in values:
            if name not in known:
                raise ScenarioError(
                    f"unknown reliability parameter '{name}' (known: {', '.join(sorted(known))})",
                    token=name,
                )
        return replace(self, **values)

    def scaled(self, factor: float) -> Rates:
        """Every failure rate times `factor` (a sensitivity knob: more faults, same timings)."""
        if not math.isfinite(factor) or factor < 0:
            raise ScenarioError(f"scale factor must be >= 0, not {factor!r}", token="scale")
        return replace(self, **{k: getattr(self, k) * factor for k in DOMAIN_FAILURE_RATE_FIELDS})


DEFAULT_RATES = Rates()


def rate_facts(rates: Rates = DEFAULT_RATES, *, domain: bool = False) -> tuple[Fact, ...]:
    """The reliability inputs in force, one Fact each, for the assumptions panel; a
    multi-rack domain's own rates (DOMAIN_ONLY_FIELDS) only with `domain`."""
    return tuple(
        Fact(
            f.name,
            getattr(rates, f.name),
            f.metadata["unit"],
            f.metadata["tag"],
            f.metadata["source"],
        )
        for f in fields(rates)
        if domain or f.name not in DOMAIN_ONLY_FIELDS
    )


RELIABILITY_FACTS: tuple[Fact, ...] = rate_facts(DEFAULT_RATES)
DOMAIN_RELIABILITY_FACTS: tuple[Fact, ...] = rate_facts(DEFAULT_RATES, domain=True)
