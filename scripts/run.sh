#!/usr/bin/env bash
# Set up and serve the app at http://127.0.0.1:8050 (embedded defaults, no external service),
# with the Procfile's own web: command (gunicorn, as the hosted app runs), never Flask's
# development server. PORT and WEB_CONCURRENCY as in the Procfile; SKIP_SETUP=1 serves an
# already set-up checkout without touching the system packages or the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_SETUP:-0}" != 1 ]; then
  bash scripts/system-packages.sh python
  bash scripts/setup.sh
fi
web=$(sed -n 's/^web:[[:space:]]*//p' Procfile)
[ -n "$web" ] || { echo "no web: line in Procfile" >&2; exit 1; }
export PATH="$PWD/.venv/bin:$PATH"  # the Procfile's gunicorn is the venv's
echo "serving on http://127.0.0.1:${PORT:-8050} ($web)"
exec bash -c "exec $web"
