#!/usr/bin/env bash
# Create .venv and install the pinned dependencies. Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = dev ]; then
  .venv/bin/python -m pip install --quiet -r requirements-dev.txt
else
  .venv/bin/python -m pip install --quiet -r requirements.txt
fi
