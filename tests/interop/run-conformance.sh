#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios)
# against the fixture server over Streamable HTTP for one protocol revision's requirement set,
# prints the suite's pass/fail counts and the failing scenarios.
# Usage: run-conformance.sh SERVER_BINARY REQUIREMENTS   (REQUIREMENTS: 2025-11-25 or 2026-07-28)
# Strict: it fails unless every scored scenario of the set passes (the suite's exit status) and
# every scenario listed in conformance-passing-REQUIREMENTS.txt passes — the scored ones and the
# pending and extension ones (json-schema-2020-12, the header scenarios, tasks-*) that pass
# today, held there so that they cannot regress. Newly passing scenarios are reported. The
# extension scenarios listed in conformance-extensions-REQUIREMENTS.txt run one by one after the
# set and must make every check and pass it, without a warning or a skip.
set -euo pipefail
server="$1"
requirements="$2"
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
passing="$here/conformance-passing-$requirements.txt"
if [ ! -f "$suite" ]; then
  echo "conformance suite not installed: run scripts/setup-node-deps" >&2
  exit 1
fi
if [ ! -f "$passing" ]; then
  echo "no ratchet file for requirement set '$requirements' ($passing)" >&2
  exit 1
fi
source "$here/server-lib.sh"
start_server "$server"
log="$work/server.log"
echo "fixture at $url, requirement set $requirements"

set +e
(cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite" server --url "$url" \
  --requirements "$requirements") >"$work/suite.out" 2>&1
status=$?
set -e
sed -n '/=== SUMMARY ===/,$p' "$work/suite.out"
passed=$(grep -c '^✓ ' "$work/suite.out" || true)
failed=$(grep -c '^✗ ' "$work/suite.out" || true)
echo
echo "conformance $requirements: $passed of $((passed + failed)) scenarios pass"
if [ "$failed" -gt 0 ]; then
  echo "failing scenarios:"
  grep '^✗ ' "$work/suite.out" | sed 's/^✗ /  /; s/:.*//'
fi
kill -0 $pid 2>/dev/null || { echo "the server died during the suite:"; cat "$log"; exit 1; }
[ "$passed" -gt 0 ] || { echo "the suite ran no scenario"; exit 1; }
result=0
if [ "$status" -ne 0 ]; then
  echo "FAIL: a scored scenario of $requirements fails (suite exit status $status)"
  result=1
fi
while read -r name; do
  [ -n "$name" ] || continue
  if ! grep -q "^✓ $name:" "$work/suite.out"; then
    echo "REGRESSION: $name passed before and does not now"
    result=1
  fi
done <"$passing"
for name in $(grep '^✓ ' "$work/suite.out" | sed 's/^✓ //; s/:.*//'); do
  grep -qx "$name" "$passing" || echo "NEW: $name passes now; add it to tests/interop/$(basename "$passing")"
done
# Extension scenarios outside the requirement set (the skills extension's), each run on its own
# (--force: they are not on the revision's timeline) and required to pass every check.
extensions="$here/conformance-extensions-$requirements.txt"
if [ -f "$extensions" ]; then
  while read -r name; do
    [ -n "$name" ] || continue
    set +e
    (cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite" server --url "$url" --scenario "$name" \
      --force) >"$work/extension.out" 2>&1
    status=$?
    set -e
    summary="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$work/extension.out" || true)"
    echo "extension scenario $name: ${summary:-no result}"
    # A skipped check is one the server did not let the suite make (an undeclared extension).
    skipped=$(grep -c 'SKIPPED' "$work/extension.out" || true)
    [ "$skipped" -eq 0 ] || echo "  $skipped check(s) skipped"
    if [ "$status" -ne 0 ] || [ -z "$summary" ] || [ "$skipped" -ne 0 ] ||
      ! grep -q ' 0 failed, 0 warnings' <<<"$summary"; then
      echo "FAIL: extension scenario $name"
      grep -E 'FAILURE|WARNING' "$work/extension.out" | head -20 || true
      result=1
    fi
  done <"$extensions"
fi
exit $result
