#!/usr/bin/env bash
# Set up from nothing and run the whole test suite: lint, import contracts, unit, API, browser
# and server tests. Usage: scripts/test.sh [--fast] [pytest args...]
#
# --fast is the loop to work in: no apt, pip only when a requirements file changed since the
# last set-up, no browser and no server process, the slow exhaustive checks left to the full
# run; two pytest-xdist workers.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = --fast ]; then
  fast=1
  shift
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ "$fast" = 0 ]; then
  bash scripts/system-packages.sh
fi
if [ "$fast" = 0 ] || [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  bash scripts/setup.sh dev
  echo "$want" >"$stamp"
fi
export PATH="$PWD/.venv/bin:$PATH"
ruff check .
ruff format --check .
lint-imports
if [ "$fast" = 1 ]; then
  python -m pytest -n 2 -m "not browser and not server and not slow" "$@"
else
  # The model, figure, panel and API tests on two workers; then the tests that drive a
  # browser or start servers (gunicorn, redis-server, Celery, nginx, Prometheus), on two
  # workers too: each worker starts its own servers on ports of its own band
  # (harness/servers.py: free_port). The deployment tests mostly wait on their servers (a
  # worker's death, a watchdog's bound), and those waits overlap the browser tests.
  python -m pytest -n 2 -m "not browser and not server" "$@"
  python -m pytest -n 2 -m "browser or server" "$@" || [ $? = 5 ]  # 5: the arguments chose none
fi
