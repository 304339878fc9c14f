"""Model parameters that are not fabric counts: each with its FACTS.md row or marked [A].

[A] rows are assumptions of this project (no public figure); they are returned by the API
under `assumptions` and shown on screen.
"""

from __future__ import annotations

from model.fabric.presets import ETH_MTU_BYTES, Fact

# A flaky (degrading) link stays up, but CRC errors force flit replays and now and then a
# link recovery (retraining). [A] 10% of its bandwidth is lost to replays and recoveries: no
# public figure exists; 10% is a visible, conservative cost. The public GB200 case shows
# ~3 recovery events per 21 minutes days before the link failed (FACTS.md §3).
FLAKY_LINK_EFFICIENCY = 0.90

# Latency under load [A]: the fabric carries bulk traffic at half of each healthy port's
# rate; a message of 8 KiB (about one token's hidden state, FACTS.md §5) queues at the
# busier of its two ports as in an M/M/1 queue. Losing planes raises the other ports' load.
OFFERED_LOAD = 0.5
LATENCY_MESSAGE_BYTES = 8192
# Ethernet frames carry up to 4 KiB [A]; NVLink packets are counted at 128 B. Both are
# defined in fabrics.py (Fabric.packet_bytes); ETH_MTU_BYTES is imported above for its row.

# Repairs (FACTS.md §6: node 24 h, cable 24-72 h [M]); the service actions are [A].
REPAIR_NODE_H = 24.0  # [M] replace a compute tray or a switch tray (parts and service)
REPAIR_CABLE_H = 48.0  # [M] 24-72 h, mid-point
CABLE_SWAP_RACK_DOWN_H = 4.0  # [A] spine cartridge swap: trays unseated from the spine
SWITCH_TRAY_SWAP_H = 0.5  # [A] pulling and seating a 1RU switch tray
SWITCH_TRAY_SWAP_RACK_DOWN_H = 2.0  # [A] the same swap with the rack drained and restarted
CONTROLLER_RESTART_H = 0.25  # [A] restart the NMX service or the tray's management CPU
ISSU_PER_TRAY_H = 0.5  # [A] drain, flash, reboot and re-admit one switch tray
MAINTENANCE_WINDOW_H = 4.0  # [A] whole-rack switch firmware update window

PARAM_FACTS: tuple[Fact, ...] = (
    Fact("flaky link efficiency", FLAKY_LINK_EFFICIENCY, "fraction", "A", "replays cost 10%"),
    Fact("offered load for latency", OFFERED_LOAD, "of link rate", "A", "half-busy fabric"),
    Fact("latency message", LATENCY_MESSAGE_BYTES, "bytes", "A", "about one token, FACTS §5"),
    Fact("Ethernet MTU", ETH_MTU_BYTES, "bytes", "A", "jumbo-ish frames on scale-up Ethernet"),
    Fact("repair: node", REPAIR_NODE_H, "h", "M", "FACTS.md §6"),
    Fact("repair: cable", REPAIR_CABLE_H, "h", "M", "FACTS.md §6: 24-72 h"),
    Fact("cable cartridge swap, rack down", CABLE_SWAP_RACK_DOWN_H, "h", "A", "no figure"),
    Fact("switch tray hot-swap", SWITCH_TRAY_SWAP_H, "h", "A", "no figure"),
    Fact("switch tray swap, rack down", SWITCH_TRAY_SWAP_RACK_DOWN_H, "h", "A", "no figure"),
    Fact("controller restart", CONTROLLER_RESTART_H, "h", "A", "no figure"),
    Fact("in-service update per tray", ISSU_PER_TRAY_H, "h", "A", "no figure"),
    Fact("maintenance window", MAINTENANCE_WINDOW_H, "h", "A", "no figure"),
)
