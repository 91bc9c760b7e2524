#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs the official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance)
# against Candor's conformance client, for one protocol revision's frozen requirement set.
# Usage: run-conformance-client.sh CLIENT_BINARY REQUIREMENTS   (2025-11-25 or 2026-07-28)
# Every scenario the set requires of a client runs, the OAuth ones (auth/*) included, each on its
# own; the script prints each scenario's checks and the count of the set's required scenarios
# that pass. Strict: it fails when a scenario listed in
# conformance-client-passing-REQUIREMENTS.txt does not pass every check (a ratchet: what passes
# today cannot regress). Newly passing scenarios are reported.
set -euo pipefail
client="$(realpath "$1")"
requirements="$2"
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/node_modules/@modelcontextprotocol/conformance"
passing="$here/conformance-client-passing-$requirements.txt"
[ -f "$suite/dist/index.js" ] || { echo "conformance suite not installed: run scripts/setup-node-deps" >&2; exit 1; }
[ -f "$passing" ] || { echo "no ratchet file for requirement set '$requirements' ($passing)" >&2; exit 1; }
yaml="$suite/requirements/$requirements.yaml"
# The scenarios under `client:` (up to the next top-level key).
mapfile -t required < <(sed -n '/^client:/,/^[a-z_]*:/p' "$yaml" | sed -n 's/^  - \([^ ]*\)$/\1/p')
[ "${#required[@]}" -gt 0 ] || { echo "no client scenarios in $yaml" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
result=0
for name in "${required[@]}"; do
  # A scenario not passing yet gets 10 s, not the suite's 30: it often waits for what the client
  # does not do yet.
  timeout=30000
  grep -qx "$name" "$passing" || timeout=10000
  set +e
  (cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite/dist/index.js" client --command "$client" \
    --scenario "$name" --timeout "$timeout") >"$work/out" 2>&1
  status=$?
  set -e
  summary="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$work/out" | tail -1 || true)"
  ok=0
  if [ "$status" -eq 0 ] && [ -n "$summary" ] && grep -q ' 0 failed' <<<"$summary" &&
    ! grep -q 'CLIENT EXITED WITH ERROR' "$work/out"; then
    ok=1
    passed=$((passed + 1))
  fi
  echo "$name: ${summary:-no result}$([ "$ok" = 1 ] || echo ' (fails)')"
  if grep -qx "$name" "$passing"; then
    if [ "$ok" != 1 ]; then
      echo "REGRESSION: $name passed before and does not now"
      grep -E 'FAILURE|Error:' "$work/out" | head -10 || true
      result=1
    fi
  elif [ "$ok" = 1 ]; then
    echo "NEW: $name passes now; add it to tests/interop/$(basename "$passing")"
  fi
done
echo
echo "client conformance $requirements: $passed of ${#required[@]} required scenarios pass"
# Beyond the requirement set: the scenarios in conformance-client-extensions-REQUIREMENTS.txt
# (extensions Candor's client speaks, and ones of no revision) must pass every check; every other
# client scenario the suite has runs too and is reported, not scored.
extensions="$here/conformance-client-extensions-$requirements.txt"
if [ -f "$extensions" ]; then
  mapfile -t listed < <(grep -v '^$' "$extensions")
  mapfile -t all < <(cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite/dist/index.js" list --client |
    sed -n 's/^  - \([^ ]*\) .*$/\1/p')
  for name in "${all[@]}"; do
    printf '%s\n' "${required[@]}" | grep -qx "$name" && continue
    scored=0
    printf '%s\n' "${listed[@]}" | grep -qx "$name" && scored=1
    set +e
    (cd "$work" && node --import "$here/fs-globsync-shim.mjs" "$suite/dist/index.js" client --command "$client" \
      --scenario "$name" --timeout 10000) >"$work/out" 2>&1
    status=$?
    set -e
    summary="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$work/out" | tail -1 || true)"
    if [ "$scored" = 1 ]; then
      echo "extension $name: ${summary:-no result}"
      if [ "$status" -ne 0 ] || [ -z "$summary" ] || ! grep -q ' 0 failed, 0 warnings' <<<"$summary" ||
        grep -q 'CLIENT EXITED WITH ERROR' "$work/out"; then
        echo "FAIL: extension scenario $name"
        grep -E 'FAILURE|WARNING' "$work/out" | head -10 || true
        result=1
      fi
    else
      echo "not scored $name: ${summary:-no result}"
    fi
  done
fi
exit $result
