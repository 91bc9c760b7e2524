#!/usr/bin/env bash
# Starts SERVER over Streamable HTTP on a free loopback port and runs a Node client script
# against it in http mode. Usage: run-http.sh SERVER SCRIPT [SERVER FLAGS...]
set -euo pipefail
server="$1"; script="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
log="$work/server.log"
"$server" --http 127.0.0.1:0 "$@" 2>"$log" &
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
node "$here/$script" http "$url"
