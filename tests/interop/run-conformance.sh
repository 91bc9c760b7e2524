#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, active server
# suite) against the fixture server over Streamable HTTP, prints the suite's pass/fail counts
# and the failing scenarios.
# Usage: run-conformance.sh SERVER_BINARY [--all]
# With --all (what the ctest runs) it fails unless every active scenario passes. Without it, it
# is a ratchet: it fails when a scenario listed in conformance-passing.txt fails (all 30 active
# scenarios are listed) and reports newly passing ones (e.g. of a newer suite version).
set -euo pipefail
server="$1"
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ]; then
  echo "conformance suite not installed: run scripts/setup-node-deps" >&2
  exit 1
fi
source "$here/server-lib.sh"
start_server "$server"
log="$work/server.log"
echo "fixture at $url"

set +e
(cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite" server --url "$url") >"$work/suite.out" 2>&1
status=$?
set -e
sed -n '/=== SUMMARY ===/,$p' "$work/suite.out"
passed=$(grep -c '^✓ ' "$work/suite.out" || true)
failed=$(grep -c '^✗ ' "$work/suite.out" || true)
echo
echo "conformance: $passed of $((passed + failed)) scenarios pass"
if [ "$failed" -gt 0 ]; then
  echo "failing scenarios:"
  grep '^✗ ' "$work/suite.out" | sed 's/^✗ /  /; s/:.*//'
fi
kill -0 $pid 2>/dev/null || { echo "the server died during the suite:"; cat "$log"; exit 1; }
[ "$passed" -gt 0 ] || { echo "the suite ran no scenario"; exit 1; }
if [ "${2:-}" = "--all" ]; then
  if [ "$status" -ne 0 ] || [ "$failed" -gt 0 ]; then exit 1; fi
  exit 0
fi
regressed=0
while read -r name; do
  [ -n "$name" ] || continue
  if ! grep -q "^✓ $name" "$work/suite.out"; then
    echo "REGRESSION: $name passed before and does not now"
    regressed=1
  fi
done <"$here/conformance-passing.txt"
for name in $(grep '^✓ ' "$work/suite.out" | sed 's/^✓ //; s/:.*//'); do
  grep -qx "$name" "$here/conformance-passing.txt" || echo "NEW: $name passes now; add it to tests/interop/conformance-passing.txt"
done
exit $regressed
