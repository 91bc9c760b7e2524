#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The scaling benchmark (`scripts/bench --scaling`): how throughput grows with I/O threads, and
# how the server answers overload. bench-server on the 2026-07-28 wire, every reply validated
# (search_tickets.lua), runs
#   - at 1, 2, 4, … I/O threads up to half the cores, pinned to the first half (taskset), wrk on
#     the other half, SCALING_CONNECTIONS connections;
#   - as two processes of half the most threads each, on the same cores (one wrk per process,
#     half the connections each): what one process loses to contention inside it;
#   - at 1 thread with as many connections as each of the most threads serves (SCALING_CONNECTIONS
#     over the most threads): the same load per thread, which one thread pays for as well (fewer
#     connections a thread, fewer requests found at each wake-up);
#   - at 1 thread and at the most threads with SCALING_CHECK_CONNECTIONS connections (512): the
#     CPU per call of the most threads against one thread's at a load that keeps one thread busy
#     all the time, and no refusal (these rows fail the run on a refused reply as the scaling
#     rows do);
#   - at the most threads with 512 and 4,000 connections (SCALING_OVERLOAD): the share refused
#     (503) and the answered calls' p99; then 64 connections again at once, to show the server
#     is back to normal the moment the load stops.
# Each row: req/s, the server's CPU per call (µs, from /proc), how busy its threads were (CPU
# time over threads × seconds), p50/p99 (µs), efficiency (req/s over threads × the 1-thread row's
# req/s), refused (non-2xx), socket errors and invalid replies. A server whose threads wait for
# work part of the time pays more CPU per call than a busy one (each wake-up finds fewer requests,
# and a read often finds its socket still empty): compare CPU per call between rows equally busy.
# On fewer than 4 cores there is no half to spare: the server runs 1 thread (on CPU 0) then 2
# (on every CPU) with wrk beside it, and only the CPU per call compares.
# The scaling rows run SCALING_REPS times, in turn (1, 2, … threads, then again), and a last line
# gives the median CPU per call of each thread count against one thread's, and the most threads'
# against one thread's at the same connections per thread (the machines are shared: single runs
# vary). An overload row's p50/p99 are of every answer, 503s included;
# `invalid` counts answers that are neither a valid page nor a refusal.
# Settings (environment): SCALING_SECONDS (5), SCALING_WARMUP (2), SCALING_CONNECTIONS (64),
# SCALING_REPS (3), SCALING_CHECK_CONNECTIONS (512; empty: no such rows), SCALING_OVERLOAD
# ("512 4000"; empty: none), SCALING_BUILD (build/bench, which scripts/bench builds).
# Exits 1 when any reply is invalid or a row other than an overload row is refused.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/load"
seconds="${SCALING_SECONDS:-5}"
warmup="${SCALING_WARMUP:-2}"
conns="${SCALING_CONNECTIONS:-64}"
check_conns="${SCALING_CHECK_CONNECTIONS-512}"
reps="${SCALING_REPS:-3}"
overload="${SCALING_OVERLOAD-512 4000}"
build="${SCALING_BUILD:-$root/build/bench}"
candor="$build/bench/bench-server"
source "$here/lib.sh"

[ -x "$candor" ] || { echo "scaling: $candor is not built" >&2; exit 2; }
command -v wrk >/dev/null || { echo "scaling: wrk is missing (scripts/setup-deps --load)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "scaling: taskset is missing (util-linux)" >&2; exit 2; }
# 4,000 connections need as many descriptors in wrk and in the server.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

cores="$(nproc)"
small=0
if [ "$cores" -lt 4 ]; then
  small=1
  half=1
  server_cpus() { if [ "$1" -le 1 ]; then echo 0; else echo "0-$((cores - 1))"; fi; }
  load_cpus="$((cores - 1))"
  thread_rows=(1 2)
else
  half=$((cores / 2))
  server_cpus() { echo "0-$((half - 1))"; }
  load_cpus="$half-$((cores - 1))"
  thread_rows=()
  for ((n = 1; n <= half; n *= 2)); do thread_rows+=("$n"); done
  [ "${thread_rows[-1]}" = "$half" ] || thread_rows+=("$half")
fi
load_threads="$(taskset -c "$load_cpus" nproc)"

pids=()
cleanup() { for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pids=(); }
trap cleanup EXIT

# start THREADS CPUS -> prints "PID PORT"
start() {
  local port; port="$(free_port)"
  taskset -c "$2" "$candor" --http "127.0.0.1:$port" --threads "$1" 2>/dev/null &
  local pid=$!
  wait_for_port "$port" || { echo "scaling: bench-server did not start on port $port" >&2; exit 1; }
  echo "$pid $port"
}

# load PORT CONNECTIONS SECONDS -> the WRK_RESULT line
load() {
  local threads="$load_threads"
  [ "$threads" -gt "$2" ] && threads="$2"
  taskset -c "$load_cpus" wrk -t"$threads" -c"$2" -d"$3s" --timeout 10s -s "$here/search_tickets.lua" \
    "http://127.0.0.1:$1/mcp" -- 2026 | grep '^WRK_RESULT\|^WRK_FIRST_FAILURE' || true
}

failed=0
base_rps=""
# row LABEL THREADS CONNECTIONS REQUESTS SECONDS SERVER_TICKS RPS P50 P99 REFUSED ERRORS INVALID [STRICT]
row() {
  local label="$1" threads="$2" c="$3" n="$4" secs="$5" t="$6" rps="$7" p50="$8" p99="$9" refused="${10}" errors="${11}" invalid="${12}" strict="${13:-1}"
  local cpu busy eff share
  # The lua script counts a refusal as a failed check too.
  invalid=$((invalid - refused))
  cpu="$(awk -v t="$t" -v n="$n" 'BEGIN { if (t < 0 || !n) print "-"; else printf "%.1f", t * 10000 / n }')"
  # Clock ticks are hundredths of a second: ticks over threads × seconds is the busy share in %.
  busy="$(awk -v t="$t" -v k="$threads" -v s="$secs" 'BEGIN { if (t < 0 || !(k * s)) print "-"; else printf "%.0f%%", t / (k * s) }')"
  [ -z "$base_rps" ] && base_rps="$rps"
  eff="$(awk -v r="$rps" -v b="$base_rps" -v k="$threads" 'BEGIN { printf "%.2f", b * k ? r / (b * k) : 0 }')"
  share="$(awk -v f="$refused" -v n="$n" 'BEGIN { printf "%.1f", n ? 100 * f / n : 0 }')"
  printf '%-22s %7s %6s %10s %8s %5s %8s %9s %6s %8s %6s %7s\n' "$label" "$threads" "$c" "$rps" "$cpu" "$busy" "$p50" "$p99" "$eff" "$share%" "$errors" "$invalid"
  echo "SCALING row=${label// /_} threads=$threads conns=$c rps=$rps cpu_us=$cpu busy=${busy%\%} p50_us=$p50 p99_us=$p99 efficiency=$eff refused=$refused refused_pct=$share socket_errors=$errors invalid=$invalid" >> "$raw"
  if [ "$invalid" != 0 ] || { [ "$strict" = 1 ] && [ "$refused" != 0 ]; }; then failed=1; fi
}

# one THREADS CONNECTIONS LABEL [STRICT]: one process, warmed up, then measured
one() {
  local threads="$1" c="$2" label="$3" strict="${4:-1}" pid port
  read -r pid port < <(start "$threads" "$(server_cpus "$threads")")
  pids+=("$pid")
  load "$port" "$c" "$warmup" >/dev/null
  local before after out line
  before="$(ticks "$pid")"
  out="$(load "$port" "$c" "$seconds")"
  after="$(ticks "$pid")"
  grep '^WRK_FIRST_FAILURE' <<<"$out" >&2 || true
  line="$(grep '^WRK_RESULT' <<<"$out")"
  row "$label" "$threads" "$c" "$(field requests "$line")" "$(field seconds "$line")" $((after - before)) \
    "$(field rps "$line")" "$(field p50_us "$line")" "$(field p99_us "$line")" "$(field non2xx "$line")" \
    "$(field socket_errors "$line")" "$(field invalid "$line")" "$strict"
  if [ "$strict" = 0 ]; then
    # The load stops; the same server at once, at the scaling rows' load.
    out="$(load "$port" "$conns" 2)"
    line="$(grep '^WRK_RESULT' <<<"$out")"
    row "  then $conns at once" "$threads" "$conns" "$(field requests "$line")" "$(field seconds "$line")" -1 \
      "$(field rps "$line")" "$(field p50_us "$line")" "$(field p99_us "$line")" "$(field non2xx "$line")" \
      "$(field socket_errors "$line")" "$(field invalid "$line")"
  fi
  cleanup
}

# two THREADS: two processes of THREADS/2 on the cores THREADS would have
two() {
  local threads="$1" each=$(($1 / 2)) a b pa pb qa qb
  read -r pa qa < <(start "$each" "$(server_cpus "$threads")")
  read -r pb qb < <(start "$each" "$(server_cpus "$threads")")
  pids+=("$pa" "$pb")
  load "$qa" $((conns / 2)) "$warmup" >/dev/null &
  local bg=$!
  load "$qb" $((conns / 2)) "$warmup" >/dev/null
  wait "$bg" || true
  local ta tb fa fb
  ta="$(ticks "$pa")"; tb="$(ticks "$pb")"
  fa="$(mktemp)"; fb="$(mktemp)"
  load "$qa" $((conns / 2)) "$seconds" > "$fa" &
  bg=$!
  load "$qb" $((conns / 2)) "$seconds" > "$fb"
  wait "$bg" || true
  local t=$(($(ticks "$pa") - ta + $(ticks "$pb") - tb))
  a="$(grep '^WRK_RESULT' "$fa")"; b="$(grep '^WRK_RESULT' "$fb")"
  cat "$fa" "$fb" | grep '^WRK_FIRST_FAILURE' >&2 || true
  rm -f "$fa" "$fb"
  local sum; sum() { awk -v x="$(field "$1" "$a")" -v y="$(field "$1" "$b")" "BEGIN { printf \"$2\", x + y }"; }
  local worst; worst() { awk -v x="$(field "$1" "$a")" -v y="$(field "$1" "$b")" 'BEGIN { print (x > y ? x : y) }'; }
  row "2 processes x $each" "$threads" "$conns" "$(sum requests %d)" "$(field seconds "$a")" "$t" "$(sum rps %.1f)" \
    "$(worst p50_us)" "$(worst p99_us)" "$(sum non2xx %d)" "$(sum socket_errors %d)" "$(sum invalid %d)"
  cleanup
}

raw="$build/scaling-results.txt"
mkdir -p "$build"
: > "$raw"
hypervisor="$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor:[[:space:]]*//p')"
echo "== machine: $cores CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), ${hypervisor:+hypervisor $hypervisor, }kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$small" = 1 ]; then
  echo "== $cores cores: no half to spare for the load generator. 1 thread runs on CPU 0, 2 threads on every CPU,"
  echo "   wrk beside them on CPU $load_cpus: req/s and efficiency mean little here; the CPU per call compares"
  echo "   between rows equally busy (one thread is busy all the time; two, and two processes, are not)."
else
  echo "== server on CPUs $(server_cpus 1), wrk ($load_threads threads) on CPUs $load_cpus"
fi
echo "== ${warmup}s warm-up + ${seconds}s measured per row, the 2026-07-28 wire, search_tickets, every reply validated"
printf '%-22s %7s %6s %10s %8s %5s %8s %9s %6s %9s %6s %7s\n' row threads conns req/s cpu_us busy p50_us p99_us eff refused errors invalid
most="${thread_rows[-1]}"
per_thread=$((conns / most > 0 ? conns / most : 1))
for ((rep = 1; rep <= reps; ++rep)); do
  for n in "${thread_rows[@]}"; do one "$n" "$conns" "1 process"; done
  [ "$most" -ge 2 ] && two "$most"
  [ "$most" -ge 2 ] && one 1 "$per_thread" "1 thread, per thread"
  if [ -n "$check_conns" ] && [ "$most" -ge 2 ]; then
    one 1 "$check_conns" "$check_conns connections"
    one "$most" "$check_conns" "$check_conns connections"
  fi
done
for c in $overload; do one "$most" "$c" "overload" 0; done
# Median CPU per call of each thread count, and of the two processes (what sharing nothing
# costs on these cores), against one thread's.
median_cpu() {
  grep "^SCALING row=$1 threads=$2 " "$raw" | sed -n 's/.* cpu_us=\([^ ]*\).*/\1/p' | sort -g |
    awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}
base="$(median_cpu 1_process 1)"
summary="== median CPU per call over $reps runs:"
for n in "${thread_rows[@]}"; do
  m="$(median_cpu 1_process "$n")"
  summary+="$(awk -v n="$n" -v m="$m" -v b="$base" 'BEGIN { printf " %d thread(s) %.1f us (%.2fx)", n, m, b ? m / b : 0 }')"
done
if [ "$most" -ge 2 ]; then
  m="$(median_cpu "2_processes_x_$((most / 2))" "$most")"
  summary+="$(awk -v k=$((most / 2)) -v m="$m" -v b="$base" 'BEGIN { printf "; 2 processes x %d %.1f us (%.2fx)", k, m, b ? m / b : 0 }')"
  s="$(median_cpu "1_thread,_per_thread" 1)"
  m="$(median_cpu 1_process "$most")"
  summary+="$(awk -v k="$most" -v c="$per_thread" -v s="$s" -v m="$m" 'BEGIN { printf "; 1 thread at %d connections (what each of %d threads serves) %.1f us, %d threads against it %.2fx", c, k, s, k, s ? m / s : 0 }')"
  if [ -n "$check_conns" ]; then
    s="$(median_cpu "${check_conns}_connections" 1)"
    m="$(median_cpu "${check_conns}_connections" "$most")"
    summary+="$(awk -v k="$most" -v c="$check_conns" -v s="$s" -v m="$m" \
      'BEGIN { printf "; at %d connections 1 thread %.1f us, %d threads %.1f us (%.2fx)", c, s, k, m, s ? m / s : 0 }')"
  fi
fi
echo "$summary"
echo "== raw lines: $raw"
exit "$failed"
