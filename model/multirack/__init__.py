"""Multi-rack domains (576 and 1,152 GPUs): presets, IDs and the two-tier fabric."""
