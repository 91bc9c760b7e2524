#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# End-to-end tests of the helpdesk binary with the TypeScript SDK client, on temporary
# databases. Usage: run-helpdesk.sh HELPDESK (stdio|http)
#   stdio: the client starts helpdesk processes itself (one per principal, one with faults)
#   http:  two servers on free loopback ports — the main one with bearer tokens for admin and
#          team-a, and one with faults (--slow-source chat --fail-source knowledge_base,
#          --token-ttl 1) — then the client talks to both.
set -euo pipefail
server="$1"; mode="$2"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  # SIGINT: stop at once (SIGTERM would drain for http_options::drain_period first).
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# One sealing key for every process: tokens issued by one helpdesk process verify in another
# (they share the database, hence the evidence store).
export CANDOR_SEALING_KEYS="e2e:$(printf 'ab%.0s' $(seq 1 32))"

if [ "$mode" = stdio ]; then
  exec node "$here/helpdesk_e2e.mjs" stdio "$server" "$work"
fi

printf 'admin-token admin\nteam-a-token team-a\n' > "$work/tokens.txt"
# start NAME FLAGS...: start a server, wait for its URL, set url_NAME.
start() {
  local name="$1"; shift
  "$server" --http 127.0.0.1:0 "$@" 2>"$work/$name.log" &
  pids+=($!)
  local pid=$! u=""
  for _ in $(seq 1 600); do
    u="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/$name.log" | head -1 || true)"
    [ -n "$u" ] && { printf -v "url_$name" '%s' "$u"; return 0; }
    kill -0 "$pid" 2>/dev/null || { echo "server $name exited:"; cat "$work/$name.log"; exit 1; }
    sleep 0.1
  done
  echo "server $name did not start"; cat "$work/$name.log"; exit 1
}
start main --db "$work/main.db" --tokens "$work/tokens.txt" --kb-stale-after 0
start faults --db "$work/faults.db" --tokens "$work/tokens.txt" --slow-source chat --fail-source knowledge_base --token-ttl 1
node "$here/helpdesk_e2e.mjs" http "$url_main" "$url_faults"
