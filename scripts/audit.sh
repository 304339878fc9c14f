#!/usr/bin/env bash
# Check every installed dependency (runtime, dev and transitive) for known vulnerabilities
# (issue 7). --strict: a package that could not be checked fails the run, so a network that
# cannot reach an advisory service gives a clear failure, never a vacuous "no known
# vulnerabilities found". Not in .ci/run: from this project's network no advisory service
# answers (docs/HARDENING.md); pass e.g. "-s osv" to pick the service.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/python -m pip install --quiet pip-audit==2.10.1
exec .venv/bin/pip-audit --strict --local "$@"
