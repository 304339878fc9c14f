#!/usr/bin/env bash
# Debian packages the tests use: Chromium for the browser tests (never a downloaded browser).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
