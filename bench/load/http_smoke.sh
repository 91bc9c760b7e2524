#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The load benchmark's HTTP workload as a test (ctest bench.http_*_smoke), on one wire: starts
# SERVER (bench-server) on a free loopback port as bench/load/run.sh does (2025: --stateless;
# 2026: no option), checks it with `driver.mjs verify-http` (pages, a walk to the end, a tampered
# cursor and bad arguments refused), then sends the measured call for one second on 8 keep-alive
# connections, every reply validated. Fails when any check or reply fails.
#   http_smoke.sh SERVER 2025|2026
set -euo pipefail
server="$1" wire="$2"
here="$(cd "$(dirname "$0")" && pwd)"
command -v node >/dev/null 2>&1 || { echo "FAIL: node is not installed (scripts/setup-deps installs it)"; exit 1; }
flags=()
case "$wire" in
  2025) flags=(--stateless) ;;
  2026) ;;
  *) echo "usage: http_smoke.sh SERVER 2025|2026"; exit 2 ;;
esac
source "$here/../../tests/interop/server-lib.sh"
start_server "$server" "${flags[@]}"
node "$here/driver.mjs" verify-http "$url" "$wire"
node "$here/driver.mjs" http "$url" "$wire" --connections 8 --duration 1
