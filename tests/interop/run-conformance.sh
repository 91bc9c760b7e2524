#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, active server
# suite) against the fixture server over Streamable HTTP, prints the suite's pass/fail counts
# and the failing scenarios, and fails unless every scenario passes.
# Usage: run-conformance.sh SERVER_BINARY
set -euo pipefail
server="$1"
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite" ]; then
  echo "conformance suite not installed: run scripts/setup-node-deps" >&2
  exit 1
fi
work="$(mktemp -d)"
log="$work/server.log"
# Port 0: the server picks a free loopback port and says which on stderr.
"$server" --http 127.0.0.1:0 2>"$log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
url=""
for _ in $(seq 1 300); do
  url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -1 || true)"
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { echo "server exited:"; cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "server did not start"; cat "$log"; exit 1; }
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
if [ "$status" -ne 0 ] || [ "$failed" -gt 0 ] || [ "$passed" -eq 0 ]; then exit 1; fi
