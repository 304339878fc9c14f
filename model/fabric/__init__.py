"""The fabric: presets, feature switches, fault state, bandwidth and latency, control plane, partition and job fate."""
