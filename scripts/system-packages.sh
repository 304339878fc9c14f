#!/usr/bin/env bash
# Debian packages: Python with venv (for .venv), and for the tests Chromium (the browser
# tests drive it through Playwright; never a downloaded browser) and redis-server (the
# scale-out tests start and stop it themselves) and prometheus (the monitoring tests start the
# real binary against the app's /metrics, with promtool to check the rules, and against the
# stand-in rack for live mode) and nginx (the
# router test and bench put four web processes behind it, its config in a temp directory).
# Usage: system-packages.sh [python]
set -euo pipefail
PY=${PYTHON:-python3}
need=()
if ! command -v "$PY" >/dev/null 2>&1; then
  need+=(python3 python3-venv)
elif ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need+=(python3-venv)
fi
if [ "${1:-}" != python ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
  command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
fi
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
