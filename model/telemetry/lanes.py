"""The per-scenario lane model behind every counter: which lanes are down, degrading or
drained and from when, their BER and traffic, and the seeded Poisson error events per
simulated day (model/telemetry/snapshot.py reads it; the package docstring says what is
modelled)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from model.assess import assess
from model.fabric.presets import Fabric
from model.ids import parse_id, plane_of
from model.params import FLAKY_LINK_EFFICIENCY, OFFERED_LOAD
from model.scenario import Scenario
from model.telemetry.fields import (
    ACTIVE,
    BER_JITTER,
    BER_READING_S,
    BER_SPREAD,
    CRC_DATA_PER_FLIT,
    DATA,
    EVENT_BUCKET_S,
    FLAKY_BER,
    FLAKY_RAMP_K,
    FLAKY_RECOVERY_PER_S,
    FLAKY_TTF_S,
    FLIT,
    HEALTHY_BER,
    IDLE,
    INACTIVE,
    MAX_T_S,
    REC,
    flaky_recoveries_by,
)


# --- the per-scenario model ------------------------------------------------------------------
def lanes_any(a: np.ndarray) -> np.ndarray:
    """Logical or over the last (cable) axis; a loop over the 2-4 cables, fast on small axes."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        out |= a[..., i]
    return out


def lanes_sum(a: np.ndarray) -> np.ndarray:
    """Sum over the last (cable) axis, cable by cable (the same order everywhere)."""
    out = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        out += a[..., i]
    return out


def seeded_rng(key: str, *parts: object) -> np.random.Generator:
    """A Generator seeded by sha256 of a key (the fabric's or the scenario's) and a
    stream/bucket label."""
    text = "|".join([key, *(str(p) for p in parts)])
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "little")
    return np.random.Generator(np.random.PCG64(seed))


# --- the lanes' own noise: common to every scenario of a fabric --------------------------------
# A lane's static BER (its cable, connectors and SerDes), its background flit errors and the
# jitter of each BER reading are properties of that lane and that moment, not of what else in
# the rack has failed: they are seeded by the fabric, so two scenarios differ only where their
# faults do (common random numbers; a cable pulled elsewhere moves no other lane's counters).
# Only the degrading lanes' events are seeded by the scenario (which lanes degrade is its own).


@dataclass(frozen=True)
class LaneNoise:
    """A fabric's per-lane static noise: the BER spread factor, the healthy BER, and the
    cumulative background flit-error rate the day's events are drawn against (read-only)."""

    spread: np.ndarray  # float[E]: lognormal factor on the lane's BER
    bg_ber: np.ndarray  # float[E]: the lane's BER while healthy
    bg_cum: np.ndarray  # float[E]: cumulative sum of the lanes' background flit-error rates (/s)


def _lane_bits_s(f: Fabric) -> float:
    """Bits a second one lane carries at the offered load (one direction of a cable's share)."""
    return f.link_gbs_bidir * 8e9 * OFFERED_LOAD / f.cables_per_link


@lru_cache(maxsize=16)
def lane_noise(f: Fabric) -> LaneNoise:
    """The fabric's LaneNoise, drawn once (seeded by the fabric's key)."""
    z = seeded_rng(f.key, "ber-static").standard_normal(f.gpus * f.planes * f.cables_per_link)
    spread = np.exp(BER_SPREAD * z)
    bg_ber = HEALTHY_BER * spread
    out = LaneNoise(spread, bg_ber, np.cumsum(bg_ber * _lane_bits_s(f)))
    for a in (out.spread, out.bg_ber, out.bg_cum):
        a.flags.writeable = False
    return out


@lru_cache(maxsize=256)
def _background_day(
    f: Fabric, day: int, times: bool
) -> tuple[tuple[int, np.ndarray, np.ndarray], ...]:
    """The fabric's background flit and data CRC events of one clock bucket: (process, lanes,
    event times or empty), read-only; the same for every scenario of the fabric."""
    t0 = day * EVENT_BUCKET_S
    cum = lane_noise(f).bg_cum
    rng = seeded_rng(f.key, "background", day)
    lams = (cum[-1] * EVENT_BUCKET_S, cum[-1] * CRC_DATA_PER_FLIT * EVENT_BUCKET_S)
    ns = [int(rng.poisson(lam)) for lam in lams]
    lanes = [np.searchsorted(cum, rng.random(n) * cum[-1], side="right") for n in ns]
    taus = [t0 + rng.random(n) * EVENT_BUCKET_S if times else np.empty(0) for n in ns]
    for a in (*lanes, *taus):
        a.flags.writeable = False
    return ((FLIT, lanes[0], taus[0]), (DATA, lanes[1], taus[1]))


@lru_cache(maxsize=64)
def _reading_jitter(f: Fabric, bucket: int) -> np.ndarray:
    """The lognormal jitter exponent of every lane's BER reading in one reading bucket
    (standard normals, read-only); a prefix of it is what fewer lanes would draw."""
    z = seeded_rng(f.key, "ber", bucket).standard_normal(f.gpus * f.planes * f.cables_per_link)
    z.flags.writeable = False
    return z


@dataclass(frozen=True)
class LaneModel:
    """Everything about a scenario the counters need, flattened to lanes e = (g*P + p)*C + c."""

    key: str
    fabric: Fabric
    telemetry: bool
    onset: float
    whole: np.ndarray  # bool[L]: link down from onset for a whole-link cause
    down: np.ndarray  # bool[L]: link down from onset for any cause
    cable_failed: np.ndarray  # bool[E]
    flaky_whole: np.ndarray  # bool[L]: the link itself degrades and fails as a whole at TTF
    flaky_lane: np.ndarray  # bool[E]: lane degrading
    flaky_link: np.ndarray  # bool[L]: any lane of the link degrading
    mc_down: np.ndarray  # bool[T]
    planned: np.ndarray  # bool[P]: drained on purpose from onset (update / maintenance)
    lane_ber: np.ndarray  # float[E]: true BER of each lane
    bg_cum: np.ndarray  # float[E]: cumulative sum of the lanes' background flit-error rates (/s)
    dense: np.ndarray  # int[D]: degrading lanes
    dense_rates: np.ndarray  # float[3, D]: extra flit, data and recovery rates (/s)
    gbs: np.ndarray  # float[E]: GB/s both directions while carrying traffic
    freeze: np.ndarray  # float[E]: when the lane stops counting (inf: never)
    gpu_alive: np.ndarray  # bool[G]: the GPU (and its driver, which NVML reads) is there
    reroute: bool  # dynamic traffic rerouting is on (routes move off a dead link)

    @property
    def shape(self) -> tuple[int, int, int]:
        f = self.fabric
        return f.gpus, f.planes, f.cables_per_link

    def stale_planes(self, t: float) -> np.ndarray:
        """bool[P]: planes whose tray controller is down at t (its counters stop)."""
        if t < self.onset:
            return np.zeros(self.fabric.planes, bool)
        return np.repeat(self.mc_down, self.fabric.chips_per_tray)

    def end_times(self, t: float, switch_side: bool = True) -> np.ndarray:
        """float[E]: the time up to which each lane's counters have advanced when read at t.

        switch_side: as the switch tray reports them (they stop while its controller is
        silent); False: as the GPU driver reports them (no switch tray in the way).
        """
        c = self.fabric.cables_per_link
        if not switch_side:
            return np.minimum(self.freeze, t)
        stale = np.tile(np.repeat(self.stale_planes(t), c), self.fabric.gpus)
        last = np.where(stale, min(t, self.onset), math.inf)
        return np.minimum(np.minimum(self.freeze, last), t)


def lane_model(s: Scenario, onset_s: float) -> LaneModel:
    """The scenario's assessed state (model/assess.py), flattened to lanes."""
    st = assess(s).state
    f = st.fabric
    g, p, c = f.gpus, f.planes, f.cables_per_link
    key = s.key()
    listed = np.zeros((g, p), bool)
    for comp in st.failed:
        if comp.kind == "link":
            listed[comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])] = True
    flaky_whole = np.zeros((g, p), bool)
    for comp in (parse_id(x, f) for x in s.flaky):
        if comp.kind == "link":
            flaky_whole[comp.nums[0], plane_of(f, comp.nums[1], comp.nums[2])] = True
    whole = ~st.gpu_alive[:, None] | ~st.chip_in_service[None, :] | listed
    down = whole | lanes_any(st.cable_failed)
    flaky_lane = st.flaky_cable | flaky_whole[:, :, None]
    flaky_link = lanes_any(flaky_lane)

    noise = lane_noise(f)
    bg_ber = noise.bg_ber
    lane_ber = np.where(flaky_lane.ravel(), FLAKY_BER * noise.spread, bg_ber)
    bits = _lane_bits_s(f)  # bit/s per lane at the offered load
    dense = np.flatnonzero(flaky_lane)
    extra = (lane_ber[dense] - bg_ber[dense]) * bits
    whole_d = np.repeat(flaky_whole.ravel(), c)[dense]
    rec = np.where(whole_d, FLAKY_RECOVERY_PER_S / c, FLAKY_RECOVERY_PER_S)
    dense_rates = np.stack([extra, extra * CRC_DATA_PER_FLIT, rec])

    gbs_link = np.where(flaky_link, FLAKY_LINK_EFFICIENCY, 1.0) * f.link_gbs_bidir * OFFERED_LOAD
    freeze_link = np.minimum(
        np.where(down, onset_s, math.inf), np.where(flaky_link, FLAKY_TTF_S, math.inf)
    )
    planned = st.chip_drained.copy() if not st.maintenance else np.ones(p, bool)
    return LaneModel(
        key=key,
        fabric=f,
        telemetry="telemetry" in st.features,
        onset=float(onset_s),
        whole=whole.ravel(),
        down=down.ravel(),
        cable_failed=st.cable_failed.ravel(),
        flaky_whole=flaky_whole.ravel(),
        flaky_lane=flaky_lane.ravel(),
        flaky_link=flaky_link.ravel(),
        mc_down=~st.mc_alive,
        planned=planned,
        lane_ber=lane_ber,
        bg_cum=noise.bg_cum,
        dense=dense,
        dense_rates=dense_rates,
        gbs=np.repeat(gbs_link.ravel() / c, c),
        freeze=np.repeat(freeze_link.ravel(), c),
        gpu_alive=st.gpu_alive.copy(),
        reroute="reroute" in st.features,
    )


def lane_state(m: LaneModel, tau: float, faults: bool) -> np.ndarray:
    """int8[E]: each lane's state at tau; `faults`: the scenario's faults are in force."""
    c = m.fabric.cables_per_link
    failed_by_ttf = tau >= FLAKY_TTF_S
    whole_dead = (faults & m.whole) | (failed_by_ttf & m.flaky_whole)
    lane_dead = (faults & m.cable_failed) | (failed_by_ttf & m.flaky_lane)
    link_up = ~whole_dead & ~lanes_any(lane_dead.reshape(-1, c))
    dead = np.repeat(whole_dead, c) | lane_dead
    return np.where(np.repeat(link_up, c), ACTIVE, np.where(dead, INACTIVE, IDLE)).astype(np.int8)


def day_events(
    m: LaneModel, day: int, times: bool, background: bool = True
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(process, lanes, event times or empty) of one clock bucket; draws in a fixed order.
    background=False: the degrading lanes' events alone (the only recoveries)."""
    out = list(_background_day(m.fabric, day, times)) if background else []
    t0 = day * EVENT_BUCKET_S
    if m.dense.size:
        rng = seeded_rng(m.key, "degrading", day)
        # Recoveries follow the rising ramp (fields.FLAKY_RAMP_K): this day's share of it.
        t1 = t0 + EVENT_BUCKET_S
        ramp = (flaky_recoveries_by(t1) - flaky_recoveries_by(t0)) / FLAKY_RECOVERY_PER_S
        scale = np.array([[EVENT_BUCKET_S], [EVENT_BUCKET_S], [ramp]])
        counts = rng.poisson(m.dense_rates * scale)
        for proc in (FLIT, DATA, REC):
            n = counts[proc]
            u = rng.random(int(n.sum()))
            tau = (
                (_ramp_times(t0, t1, u) if proc == REC else t0 + u * EVENT_BUCKET_S)
                if times
                else np.empty(0)
            )
            out.append((proc, np.repeat(m.dense, n), tau))
    return out


def _ramp_times(t0: float, t1: float, u: np.ndarray) -> np.ndarray:
    """Event times in [t0, t1) drawn from the ramp's density (inverse of its integral)."""
    hi = min(t1, FLAKY_TTF_S)
    if hi <= t0:
        return np.full(u.shape, t0)
    k1 = FLAKY_RAMP_K + 1.0
    a, b = (t0 / FLAKY_TTF_S) ** k1, (hi / FLAKY_TTF_S) ** k1
    return FLAKY_TTF_S * (a + u * (b - a)) ** (1.0 / k1)


def counts_at(
    m: LaneModel, end: np.ndarray, t: float, procs: tuple[int, ...] = (FLIT, DATA, REC)
) -> np.ndarray:
    """int64[3, E]: flit, data and recovery events of each lane up to its end time (only
    the processes `procs` counted; the others' rows stay zero)."""
    n_lanes = end.size
    out = np.zeros((3, n_lanes), np.int64)
    ends = {t, min(t, m.onset), min(t, FLAKY_TTF_S)}
    for day in range(int(t // EVENT_BUCKET_S) + 1):
        lo, hi = day * EVENT_BUCKET_S, (day + 1) * EVENT_BUCKET_S
        if not (end >= lo).any():
            break
        partial = any(lo <= x < hi for x in ends)
        full = end >= hi
        background = FLIT in procs or DATA in procs  # the lanes' own events are CRC only
        for proc, lanes, tau in day_events(m, day, times=partial, background=background):
            if proc not in procs:
                continue
            keep = full[lanes]
            if partial:
                keep |= (end[lanes] >= lo) & (tau <= end[lanes])
            out[proc] += np.bincount(lanes[keep], minlength=n_lanes)
    return out


def ber_at(m: LaneModel, tau: float, active: np.ndarray, upto: int | None = None) -> np.ndarray:
    """float[E] (or the first `upto` lanes): the BER reading covering tau; NaN if not ACTIVE."""
    n = m.lane_ber.size if upto is None else upto
    bucket = int(tau // BER_READING_S)
    f = m.fabric  # a prefix of the whole fabric's draw (a series reads a few lanes, many times)
    z = (
        _reading_jitter(f, bucket)
        if upto is None
        else seeded_rng(f.key, "ber", bucket).standard_normal(n)
    )
    return np.where(active[:n], m.lane_ber[:n] * np.exp(BER_JITTER * z), np.nan)


def check_t(t: float) -> float:
    t = float(t)
    if not 0.0 <= t <= MAX_T_S:
        raise ValueError(f"simulated time {t} s is outside 0..{MAX_T_S:g} s")
    return t
