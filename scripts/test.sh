#!/usr/bin/env bash
# Set up from nothing and run the whole test suite: lint, unit, API and browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh
bash scripts/setup.sh dev
export PATH="$PWD/.venv/bin:$PATH"
ruff check .
ruff format --check .
python -m pytest "$@"
