# SPDX-License-Identifier: BSL-1.0
# Sourced by the interop scripts: start_server SERVER [FLAGS...] starts SERVER over Streamable
# HTTP on a free loopback port (port 0: the server logs the address it took) and sets $url,
# $pid and $work; the server is stopped and $work removed when the script exits.
start_server() {
  local server="$1"; shift
  work="$(mktemp -d)"
  local log="$work/server.log"
  "$server" --http 127.0.0.1:0 "$@" 2>"$log" &
  pid=$!
  # SIGINT: stop at once (SIGTERM would drain for http_options::drain_period first).
  trap 'kill -INT $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
  url=""
  for _ in $(seq 1 300); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -1 || true)"
    [ -n "$url" ] && return 0
    kill -0 $pid 2>/dev/null || { echo "server exited:"; cat "$log"; exit 1; }
    sleep 0.1
  done
  echo "server did not start"; cat "$log"; exit 1
}
