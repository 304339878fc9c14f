#!/usr/bin/env bash
# Set up and serve the app at http://127.0.0.1:8050 (embedded defaults, no external service).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh python
bash scripts/setup.sh
exec .venv/bin/python app.py
