#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The replica benchmark: the helpdesk's search_tickets (first page of the dept-3/open walk, 20
# tickets, 2026-07-28 wire, every reply validated: helpdesk_search.lua) on
#   sqlite    one replica on SQLite (the default)
#   pg        one replica on PostgreSQL 15 (a temporary server: tests/replicas/postgres-lib.sh)
#   pg2       two replicas on that PostgreSQL, one wrk per replica at the same time (summed)
# interleaved in one run (A B C A B C …), so that the ratios compare like with like on a noisy
# host. Database round trips per call: PostgreSQL's own count of transactions
# (pg_stat_database.xact_commit + xact_rollback) over the measured seconds, divided by the calls;
# every statement Candor sends outside a transaction is one transaction.
# Usage: bench/load/replicas.sh [HELPDESK]   (default build/ci/examples/helpdesk/helpdesk)
# Settings (environment): LOAD_REPS (2), LOAD_SECONDS (5), LOAD_WARMUP (2), LOAD_CONNECTIONS (16).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/load"
server="${1:-$root/build/ci/examples/helpdesk/helpdesk}"
reps="${LOAD_REPS:-2}"
seconds="${LOAD_SECONDS:-5}"
warmup="${LOAD_WARMUP:-2}"
conns="${LOAD_CONNECTIONS:-16}"
[ -x "$server" ] || { echo "replicas: $server is not built" >&2; exit 2; }
command -v wrk >/dev/null || { echo "replicas: wrk is missing (scripts/setup-deps --load)" >&2; exit 2; }

source "$root/tests/replicas/postgres-lib.sh"
work="$(mktemp -d)"
pids=()
stop_replicas() {
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  pids=()
}
cleanup() { stop_replicas; stop_postgres; rm -rf "$work"; }
trap cleanup EXIT
start_postgres
printf 'admin-token admin\n' >"$work/tokens.txt"
chmod 600 "$work/tokens.txt"
export CANDOR_SEALING_KEYS="bench:$(printf 'ef%.0s' $(seq 1 32))"

# start_replica DB: one helpdesk on a free port; appends to pids and urls.
urls=()
start_replica() {
  local log="$work/replica-${#pids[@]}.log"
  "$server" --http 127.0.0.1:0 --tokens "$work/tokens.txt" --db "$1" --seed-tickets 10000 2>"$log" &
  pids+=($!)
  local u=""
  for _ in $(seq 1 600); do
    u="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" | head -1 || true)"
    [ -n "$u" ] && { urls+=("$u"); return 0; }
    sleep 0.1
  done
  echo "replicas: the helpdesk did not start"; cat "$log"; exit 1
}

transactions() { eval "$psql_cmd -At -c \"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'postgres'\""; }
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2"; }

failed=0
run() {  # run SETUP REP
  local setup="$1" rep="$2"
  urls=()
  case "$setup" in
    sqlite) start_replica "$work/helpdesk.db" ;;
    pg) start_replica "$db_url" ;;
    pg2) start_replica "$db_url"; start_replica "$db_url" ;;
  esac
  local u
  for u in "${urls[@]}"; do wrk -t1 -c"$conns" -d"${warmup}s" --timeout 10s -s "$here/helpdesk_search.lua" "$u" >/dev/null; done
  # PostgreSQL publishes its counters at most once a second: wait for the warmup's to land.
  sleep 1.5
  local before=0 after=0
  [ "$setup" != sqlite ] && before="$(transactions)"
  local outs=()
  for u in "${urls[@]}"; do
    wrk -t1 -c"$conns" -d"${seconds}s" --timeout 10s -s "$here/helpdesk_search.lua" "$u" >"$work/wrk-$(basename "$u" | tr -dc 0-9)-$RANDOM.out" &
    outs+=($!)
  done
  wait "${outs[@]}"
  sleep 1.5
  [ "$setup" != sqlite ] && after="$(transactions)"
  stop_replicas
  local requests=0 rps=0 p99=0 invalid=0 line f
  for f in "$work"/wrk-*.out; do
    line="$(grep '^WRK_RESULT' "$f")"
    grep '^WRK_FIRST_FAILURE' "$f" >&2 || true
    requests=$((requests + $(field requests "$line")))
    rps="$(awk -v a="$rps" -v b="$(field rps "$line")" 'BEGIN { printf "%.1f", a + b }')"
    [ "$(field p99_us "$line")" -gt "$p99" ] && p99="$(field p99_us "$line")"
    invalid=$((invalid + $(field invalid "$line") + $(field non2xx "$line") + $(field socket_errors "$line")))
    rm -f "$f"
  done
  local trips="-"
  [ "$setup" != sqlite ] && trips="$(awk -v t=$((after - before)) -v n="$requests" 'BEGIN { printf "%.2f", n ? t / n : 0 }')"
  echo "RESULT setup=$setup rep=$rep rps=$rps p99_us=$p99 db_round_trips_per_call=$trips invalid=$invalid"
  [ "$invalid" = 0 ] || failed=1
}

for rep in $(seq 1 "$reps"); do
  for setup in sqlite pg pg2; do run "$setup" "$rep"; done
done
exit "$failed"
