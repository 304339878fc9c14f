#!/usr/bin/env bash
# Set up like the tests, then run the benchmarks (bench/README.md) and print them against
# their budgets. Arguments pick benchmarks: model click page mc browser load.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-packages.sh
bash scripts/setup.sh dev
export PATH="$PWD/.venv/bin:$PATH" PYTHONPATH="$PWD"
exec python -m bench.run "$@"
