#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The load benchmark: Candor's bench-server and the TypeScript SDK peers — peer (SDK 1.x, the
# 2025 wire) and peer2 (SDK 2.x, the 2026-07-28 wire and its 2025 fallback) — run interleaved
# (A B A B …) in the same run, every reply validated. Called by `scripts/bench --load`.
# Settings (environment): LOAD_REPS (2), LOAD_SECONDS (4, measured per run), LOAD_WARMUP (2),
# LOAD_CONNECTIONS (16), LOAD_MODES ("pinned unpinned"), LOAD_WIRES ("2025 2026": the HTTP wires
# measured), LOAD_RESULTS (file for the raw lines), LOAD_BUILD (the build folder whose bench/
# holds the binaries: build/bench, which scripts/bench builds; build/ci for a quick check).
# HTTP wires (rows transport=http and transport=http-2026):
#   2025  MCP-Protocol-Version 2025-06-18, no session: Candor --stateless, peer, peer2 (its
#         default stateless fallback for 2025-era requests);
#   2026  the stateless revision (_meta and the MCP-Protocol-Version, Mcp-Method and Mcp-Name
#         headers): Candor without options (it serves both revisions on one endpoint), peer2.
# Each RESULT line also gives steal_pct: the share of the server's CPU (pinned: CPU 0) the
# hypervisor gave to others during the run — the guest's view of a noisy host.
# Pinned: server on CPU 0 (`taskset -c 0`, Candor with --threads 1), load generator on CPU 1.
# Pinned stdio also runs, to show where the time goes:
#   - the floor (stdio-floor: a precomputed reply per request, row server=floor): the pipes and
#     the load generator alone;
#   - the workload by hand (stdio-direct, row server=direct): the same reply without a framework;
#   - `echo {"text":"hello"}` on both servers and by hand (transport stdio-echo): what a call
#     costs each framework without the paging work;
#   - HTTP with one connection: latency without queueing, the host's own tail.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/load"
reps="${LOAD_REPS:-2}"
seconds="${LOAD_SECONDS:-4}"
warmup="${LOAD_WARMUP:-2}"
conns="${LOAD_CONNECTIONS:-16}"
modes="${LOAD_MODES:-pinned unpinned}"
wires="${LOAD_WIRES:-2025 2026}"
build="${LOAD_BUILD:-$root/build/bench}"
results="${LOAD_RESULTS:-$build/load-results.txt}"
candor="$build/bench/bench-server"
stdio_load="$build/bench/stdio-load"
stdio_floor="$build/bench/stdio-floor"
stdio_direct="$build/bench/stdio-direct"
floor_result="$(dirname "$results")/floor-result.json"
peer=(node "$here/peer/server.mjs")
peer2=(node "$here/peer2/server.mjs")
for wire in $wires; do
  case "$wire" in 2025|2026) ;; *) echo "load: unknown wire '$wire' in LOAD_WIRES (2025, 2026)" >&2; exit 2 ;; esac
done

[ -x "$candor" ] || { echo "load: $candor is not built" >&2; exit 2; }
[ -x "$stdio_load" ] || { echo "load: $stdio_load is not built" >&2; exit 2; }
[ -x "$stdio_floor" ] || { echo "load: $stdio_floor is not built" >&2; exit 2; }
[ -x "$stdio_direct" ] || { echo "load: $stdio_direct is not built" >&2; exit 2; }
command -v wrk >/dev/null || { echo "load: wrk is missing (scripts/setup-deps --load)" >&2; exit 2; }
for dir in peer peer2; do
  if [ ! -d "$here/$dir/node_modules" ] || [ "$here/$dir/package.json" -nt "$here/$dir/node_modules" ]; then
    (cd "$here/$dir" && npm install --prefer-offline --no-audit --no-fund --loglevel=error && touch node_modules)
  fi
done
mkdir -p "$(dirname "$results")"
: > "$results"

server_pid=""
# SIGINT: the server stops at once (SIGTERM would drain it for a few seconds first).
cleanup() { if [ -n "$server_pid" ]; then kill -INT "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

source "$here/lib.sh"
# Steal: ticks (1/100 s) in which the hypervisor ran something else while this guest wanted the
# CPU. steal_ticks PIN: of the server's CPU when pinned (CPU 0), else per CPU on average.
steal_ticks() {
  if [ "$1" = pinned ]; then awk '$1 == "cpu0" {print $9}' /proc/stat
  else awk -v n="$(nproc)" '$1 == "cpu" {printf "%d\n", $9 / n}' /proc/stat; fi
}

# start_http NAME PIN WIRE -> sets server_pid and url
start_http() {
  local name="$1" pin="$2" wire="$3" port; port="$(free_port)"
  local -a cmd
  case "$name" in
    candor)
      cmd=("$candor" --http "127.0.0.1:$port")
      # The handshake revisions' stateless mode; the stateless revision needs no option.
      [ "$wire" = 2025 ] && cmd+=(--stateless)
      [ "$pin" = pinned ] && cmd+=(--threads 1) ;;
    peer) cmd=("${peer[@]}" --http "$port") ;;
    peer2) cmd=("${peer2[@]}" --http "$port") ;;
  esac
  if [ "$pin" = pinned ]; then taskset -c 0 "${cmd[@]}" 2>/dev/null & else "${cmd[@]}" 2>/dev/null & fi
  server_pid=$!
  url="http://127.0.0.1:$port/mcp"
  wait_for_port "$port" && return 0
  echo "load: $name did not start on port $port" >&2
  exit 1
}

stop_server() { cleanup; server_pid=""; }

failed=0
record() {  # record LINE: append, and fail the run on invalid replies
  echo "$1" | tee -a "$results"
  local bad; bad="$(field invalid "$1")"
  if [ "${bad:-1}" != 0 ] || [ "$(field non2xx "$1")" != "${2:-0}" ]; then failed=1; fi
}

run_http() {  # run_http NAME PIN WIRE REP [CONNECTIONS]
  local name="$1" pin="$2" wire="$3" rep="$4" conns="${5:-$conns}" load=() threads=2 transport=http
  [ "$pin" = pinned ] && { load=(taskset -c 1); threads=1; }
  [ "$wire" = 2026 ] && transport=http-2026
  start_http "$name" "$pin" "$wire"
  "${load[@]}" wrk -t"$threads" -c"$conns" -d"${warmup}s" --timeout 10s -s "$here/search_tickets.lua" "$url" -- "$wire" >/dev/null
  local before; before="$(ticks "$server_pid")"
  local out t_start t_end steal_start steal_end; t_start="$(children_ticks)"; steal_start="$(steal_ticks "$pin")"
  out="$("${load[@]}" wrk -t"$threads" -c"$conns" -d"${seconds}s" --timeout 10s -s "$here/search_tickets.lua" "$url" -- "$wire")"
  local after peak; after="$(ticks "$server_pid")"; peak="$(hwm "$server_pid")"; t_end="$(children_ticks)"; steal_end="$(steal_ticks "$pin")"
  stop_server
  local line; line="$(grep '^WRK_RESULT' <<<"$out")"
  grep '^WRK_FIRST_FAILURE' <<<"$out" >&2 || true
  local n cpu; n="$(field requests "$line")"
  cpu="$(awk -v t=$((after - before)) -v n="$n" 'BEGIN { printf "%.1f", n ? t * 10000 / n : 0 }')"
  local secs scpu lcpu; secs="$(field seconds "$line")"
  scpu="$(awk -v t=$((after - before)) -v s="$secs" 'BEGIN { printf "%.0f", s ? t / s : 0 }')"
  lcpu="$(awk -v t=$((t_end - t_start)) -v s="$secs" 'BEGIN { printf "%.0f", s ? t / s : 0 }')"
  local steal; steal="$(awk -v t=$((steal_end - steal_start)) -v s="$secs" 'BEGIN { printf "%.1f", s ? t / s : 0 }')"
  record "RESULT server=$name transport=$transport pin=$pin conc=$conns rep=$rep rps=$(field rps "$line") p50_us=$(field p50_us "$line") p90_us=$(field p90_us "$line") p99_us=$(field p99_us "$line") cpu_us=$cpu rss_kb=$peak invalid=$(field invalid "$line") errors=$(field socket_errors "$line") non2xx=$(field non2xx "$line") server_cpu_pct=$scpu load_cpu_pct=$lcpu steal_pct=$steal"
}

# The stdio load generator: stdio-load (C++), or the Node driver (driver.mjs) as a second
# opinion — it spends most of its core above 25,000 calls/s and cannot measure beyond ~30,000.
run_stdio() {  # run_stdio NAME PIN REP INFLIGHT [cpp|node|echo]
  local name="$1" pin="$2" rep="$3" inflight="$4" driver="${5:-cpp}" load=() srv=() gen=("$stdio_load") transport=stdio
  [ "$pin" = pinned ] && { load=(taskset -c 1); srv=(taskset -c 0); }
  [ "$driver" = node ] && { gen=(node "$here/driver.mjs" stdio); transport=stdio-node; }
  [ "$driver" = echo ] && { gen=("$stdio_load" --call echo); transport=stdio-echo; }
  case "$name" in
    candor) srv+=("$candor" --stdio) ;;
    floor) srv+=("$stdio_floor" "$floor_result") ;;
    direct) srv+=("$stdio_direct") ;;
    *) srv+=("${peer[@]}" --stdio) ;;
  esac
  local out steal_start start_ns steal_end end_ns
  steal_start="$(steal_ticks "$pin")"; start_ns="$(now_ns)"
  out="$("${load[@]}" "${gen[@]}" --inflight "$inflight" --warmup "$warmup" --duration "$seconds" -- "${srv[@]}")" || true
  steal_end="$(steal_ticks "$pin")"; end_ns="$(now_ns)"
  # Over the whole run (warm-up included): the driver measures its window itself.
  local steal; steal="$(awk -v t=$((steal_end - steal_start)) -v ns=$((end_ns - start_ns)) 'BEGIN { printf "%.1f", ns ? t * 1e9 / ns : 0 }')"
  local line; line="$(grep '^STDIO_RESULT' <<<"$out" || true)"
  grep '^STDIO_FIRST_FAILURE' <<<"$out" >&2 || true
  [ -n "$line" ] || { echo "load: stdio driver failed for $name" >&2; failed=1; return; }
  record "RESULT server=$name transport=$transport pin=$pin conc=$inflight rep=$rep rps=$(field cps "$line") p50_us=$(field p50_us "$line") p90_us=$(field p90_us "$line") p99_us=$(field p99_us "$line") cpu_us=$(field cpu_us_per_call "$line") rss_kb=$(field peak_rss_kb "$line") invalid=$(field invalid "$line") errors=0 non2xx=0 server_cpu_pct=$(field server_cpu_pct "$line") load_cpu_pct=$(field load_cpu_pct "$line") steal_pct=$steal"
}

# The servers measured on an HTTP wire, Candor first.
wire_servers() { if [ "$1" = 2025 ]; then echo candor peer peer2; else echo candor peer2; fi; }
echo "== verifying the servers (pages, cursors, enums, echo) over HTTP on each wire, and stdio"
for wire in $wires; do
  for name in $(wire_servers "$wire"); do
    start_http "$name" unpinned "$wire"
    echo "-- $name, HTTP, $wire wire"
    node "$here/driver.mjs" verify-http "$url" "$wire"
    stop_server
  done
done
echo "-- candor and peer, stdio"
node "$here/driver.mjs" verify-stdio -- "$candor" --stdio
node "$here/driver.mjs" verify-stdio -- "${peer[@]}" --stdio
if [[ " $wires " == *" 2026 "* ]]; then
  echo "-- candor and peer2, stdio, 2026 wire"
  node "$here/driver.mjs" verify-stdio 2026 -- "$candor" --stdio
  node "$here/driver.mjs" verify-stdio 2026 -- "${peer2[@]}" --stdio
fi

# The floor's reply: the measured call's result as bench-server gives it (a real page, cursor
# included, that the load generator validates as usual).
printf '%s\n' \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"run.sh","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tickets","arguments":{"department":"dept-3","status":"open","page_size":20}}}' |
  "$candor" --stdio 2>/dev/null | tail -1 |
  node -e 'let t="";process.stdin.on("data",(d)=>t+=d).on("end",()=>process.stdout.write(JSON.stringify(JSON.parse(t).result)))' > "$floor_result"

# Which machine, as far as a guest can tell (runs on different hosts are not comparable: the
# pipes' floor alone moved from 1.5 to 3.3–5.0 µs per call between two of them).
hypervisor="$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor:[[:space:]]*//p')"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "== machine: $(nproc) CPUs, $cpu, ${hypervisor:+hypervisor $hypervisor, }kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $reps repetitions, ${warmup}s warm-up + ${seconds}s measured per run, modes: $modes, HTTP wires: $wires"
# run_http_wires PIN REP [CONNECTIONS]: Candor on each wire, one after the other (in turn which
# goes first, so that a drift of the host does not favour one wire), then the peers.
run_http_wires() {
  local pin="$1" rep="$2" order=($wires) wire name
  [ $((rep % 2)) = 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
  for wire in "${order[@]}"; do run_http candor "$pin" "$wire" "$rep" ${3:+"$3"}; done
  for wire in $wires; do
    for name in $(wire_servers "$wire"); do [ "$name" = candor ] || run_http "$name" "$pin" "$wire" "$rep" ${3:+"$3"}; done
  done
}
for rep in $(seq "$reps"); do
  for pin in $modes; do
    run_http_wires "$pin" "$rep"
    for name in candor peer; do run_stdio "$name" "$pin" "$rep" 64; done
    if [ "$pin" = pinned ]; then
      for name in candor peer; do run_stdio "$name" "$pin" "$rep" 64 node; done
      run_stdio floor "$pin" "$rep" 64
      run_stdio direct "$pin" "$rep" 64
      for name in candor peer direct; do run_stdio "$name" "$pin" "$rep" 64 echo; done
      for name in candor peer; do run_stdio "$name" "$pin" "$rep" 1; done
      run_http_wires "$pin" "$rep" 1
    fi
  done
done
echo "== load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
node "$here/report.mjs" "$results"
if [ "$failed" != 0 ]; then echo "load: FAILED — some replies were invalid (see above)" >&2; exit 1; fi
