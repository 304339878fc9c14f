"""The documents the app serves at /docs/<name> (dashboard/web/docs.py renders them) and the page
cites (dashboard/panels/sources.py turns each citation into a link): name in the URL -> the
file in this repository, and what it is."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = {  # name in the URL -> the file, and what it is
    "FACTS.md": ("docs/FACTS.md", "Fabric facts and model parameters, with their sources"),
    "MODEL.md": ("docs/MODEL.md", "How the model works"),
    "CALIBRATION.md": ("docs/CALIBRATION.md", "How the decode model is calibrated"),
    "GOODPUT.md": ("docs/GOODPUT.md", "Goodput and what each feature buys"),
    "TELEMETRY.md": ("docs/TELEMETRY.md", "Telemetry as DCGM and NMX report it"),
    "MULTIRACK.md": ("docs/MULTIRACK.md", "Multi-rack domains"),
    "ARCHITECTURE.md": ("docs/ARCHITECTURE.md", "How the app is built"),
}
