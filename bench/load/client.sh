#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The client benchmark: Candor's client (client-load) and the official TypeScript SDK clients
# (bench/load/client-peer: SDK 1.x on the 2025 wire, 2.x on 2026-07-28) making bench-server's
# measured call, each session one call after the other, every result checked. Interleaved in
# the same run (Candor first on odd repetitions, the SDK first on even ones); the ratios are of
# medians. Called by `scripts/bench --client`.
# Settings (environment): CLIENT_REPS (3), CLIENT_SECONDS (4, measured per run), CLIENT_WARMUP
# (1), CLIENT_SESSIONS ("1 8": sessions at once, each its own stdio server process or HTTP
# connection), CLIENT_BUILD (the build folder whose bench/ holds the binaries; build/bench).
# With 2 CPUs or more the server runs on CPU 0 and the client on CPU 1.
# Rows: stdio (the 2025 handshake over a started server's pipes), http-2025 (a session on the
# 2025-11-25 revision), http-2026 (the stateless revision, 2026-07-28).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/load"
reps="${CLIENT_REPS:-3}"
seconds="${CLIENT_SECONDS:-4}"
warmup="${CLIENT_WARMUP:-1}"
sessions_list="${CLIENT_SESSIONS:-1 8}"
build="${CLIENT_BUILD:-$root/build/bench}"
server="$build/bench/bench-server"
client="$build/bench/client-load"
[ -x "$server" ] || { echo "client bench: $server is not built" >&2; exit 2; }
[ -x "$client" ] || { echo "client bench: $client is not built" >&2; exit 2; }
if [ ! -d "$here/client-peer/node_modules" ] || [ "$here/client-peer/package.json" -nt "$here/client-peer/node_modules" ]; then
  (cd "$here/client-peer" && npm install --prefer-offline --no-audit --no-fund --loglevel=error && touch node_modules)
fi
source "$here/lib.sh"
pin_server=() pin_client=()
if [ "$(nproc)" -ge 2 ]; then pin_server=(taskset -c 0); pin_client=(taskset -c 1); fi

server_pid=""
cleanup() { if [ -n "$server_pid" ]; then kill -INT "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; server_pid=""; }
trap cleanup EXIT

results="$(mktemp)"
failed=0
# measure TRANSPORT SESSIONS CLIENT REP URL: one run, one RESULT line.
measure() {
  local transport="$1" sessions="$2" who="$3" rep="$4" url="$5" out
  local common=(--sessions "$sessions" --warmup "$warmup" --duration "$seconds")
  local cmd
  case "$who:$transport" in
    candor:stdio) cmd=("${pin_client[@]}" "$client" "${common[@]}" -- "${pin_server[@]}" "$server" --stdio) ;;
    candor:http-2025) cmd=("${pin_client[@]}" "$client" "${common[@]}" --protocol 2025 --url "$url") ;;
    candor:http-2026) cmd=("${pin_client[@]}" "$client" "${common[@]}" --protocol 2026 --url "$url") ;;
    sdk1:stdio) cmd=("${pin_client[@]}" node "$here/client-peer/client.mjs" --sdk 1 "${common[@]}" -- "${pin_server[@]}" "$server" --stdio) ;;
    sdk1:http-2025) cmd=("${pin_client[@]}" node "$here/client-peer/client.mjs" --sdk 1 "${common[@]}" --url "$url") ;;
    sdk2:http-2026) cmd=("${pin_client[@]}" node "$here/client-peer/client.mjs" --sdk 2 --protocol 2026 "${common[@]}" --url "$url") ;;
  esac
  out="$("${cmd[@]}" 2>/dev/null)" || true
  local line; line="$(grep '^CLIENT_RESULT' <<<"$out" || true)"
  if [ -z "$line" ] || [ "$(field invalid "$line")" != 0 ]; then
    echo "client bench: $who on $transport ($sessions sessions) failed: ${line:-no result}" >&2
    failed=1
    return
  fi
  echo "RESULT transport=$transport sessions=$sessions client=$who rep=$rep cps=$(field cps "$line") p50_us=$(field p50_us "$line") p99_us=$(field p99_us "$line") cpu_us=$(field cpu_us_per_call "$line")" | tee -a "$results"
}

# The SDK each row compares with.
peer_of() { case "$1" in http-2026) echo sdk2 ;; *) echo sdk1 ;; esac; }

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "== machine: $(nproc) CPUs, $cpu, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $reps repetitions, ${warmup}s warm-up + ${seconds}s measured per run, sessions: $sessions_list"
for rep in $(seq "$reps"); do
  for transport in stdio http-2025 http-2026; do
    url=""
    if [ "$transport" != stdio ]; then
      port="$(free_port)"
      "${pin_server[@]}" "$server" --http "127.0.0.1:$port" --threads 1 2>/dev/null &
      server_pid=$!
      wait_for_port "$port" || { echo "client bench: bench-server did not start" >&2; exit 1; }
      url="http://127.0.0.1:$port/mcp"
    fi
    for sessions in $sessions_list; do
      # Eight stdio sessions are eight server processes on one CPU: a measure of the servers.
      [ "$transport" = stdio ] && [ "$sessions" != 1 ] && continue
      order=(candor "$(peer_of "$transport")")
      [ $((rep % 2)) = 0 ] && order=("${order[1]}" candor)
      for who in "${order[@]}"; do measure "$transport" "$sessions" "$who" "$rep" "$url"; done
    done
    cleanup
  done
done

echo
echo "== medians (calls/s; client CPU µs per call), Candor's client against the SDK's"
printf '%-10s %8s  %10s %10s %7s  %9s %9s %7s\n' transport sessions candor sdk ratio cpu_candor cpu_sdk ratio
for transport in stdio http-2025 http-2026; do
  for sessions in $sessions_list; do
    [ "$transport" = stdio ] && [ "$sessions" != 1 ] && continue
    peer="$(peer_of "$transport")"
    median() {  # median FIELD CLIENT
      grep "transport=$transport sessions=$sessions client=$2 " "$results" | sed -n "s/.* $1=\([^ ]*\).*/\1/p" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
    }
    c="$(median cps candor)"; s="$(median cps "$peer")"; cc="$(median cpu_us candor)"; sc="$(median cpu_us "$peer")"
    awk -v t="$transport" -v n="$sessions" -v c="$c" -v s="$s" -v cc="$cc" -v sc="$sc" -v p="$peer" 'BEGIN {
      printf "%-10s %8s  %10.0f %10.0f %6.1fx  %9.1f %9.1f %6.1fx  (%s)\n", t, n, c, s, s ? c / s : 0, cc, sc, cc ? sc / cc : 0, p }'
  done
done
rm -f "$results"
if [ "$failed" != 0 ]; then echo "client bench: FAILED — some results were invalid (see above)" >&2; exit 1; fi
