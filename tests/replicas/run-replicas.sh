#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Three helpdesk replicas on one real PostgreSQL 15 (postgres-lib.sh: initdb into a temporary
# folder as an unprivileged user, Unix socket only). Usage: run-replicas.sh HELPDESK
# The client (replicas.mjs) sends every request to the next replica itself, and walks once more
# through HAProxy running deploy/haproxy.cfg (docs/deployment.md).
set -euo pipefail
server="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
source "$here/postgres-lib.sh"
pids=()
proxy_pid=""
cleanup() {
  # HAProxy in the foreground (-db) ignores SIGINT; SIGTERM stops it at once.
  [ -n "$proxy_pid" ] && { kill -TERM "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; }
  for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  stop_postgres
  rm -rf "$work"
}
trap cleanup EXIT
start_postgres
db="$db_url"

printf 'admin-token admin\nteam-a-token team-a\n' >"$work/tokens.txt"
chmod 600 "$work/tokens.txt"
# One sealing key for every replica: a cursor or token sealed by one opens on the others.
export CANDOR_SEALING_KEYS="replicas:$(printf 'cd%.0s' $(seq 1 32))"

urls=()
for n in 1 2 3; do
  # They start together, on an empty database: migrations and seeding must not race.
  # reindex_knowledge_base runs a minute on replicas 1 and 2: long enough to cancel it, or to kill
  # its replica, mid-way. On replica 3 a second: a rebuild that completes, heard on the others.
  seconds=60
  [ "$n" = 3 ] && seconds=1
  "$server" --http 127.0.0.1:0 --tokens "$work/tokens.txt" --db "$db" --seed-tickets 2000 --reindex-seconds "$seconds" \
    2>"$work/replica$n.log" &
  pids+=($!)
done
for n in 1 2 3; do
  u=""
  for _ in $(seq 1 600); do
    u="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/replica$n.log" | head -1 || true)"
    [ -n "$u" ] && break
    kill -0 "${pids[$((n - 1))]}" 2>/dev/null || { echo "replica $n exited:"; cat "$work/replica$n.log"; exit 1; }
    sleep 0.1
  done
  [ -n "$u" ] || { echo "replica $n did not start"; cat "$work/replica$n.log"; exit 1; }
  urls+=("$u")
done

# HAProxy (deploy/haproxy.cfg, unchanged) in front of the same replicas, on a free port.
proxy_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
hostport() { echo "$1" | sed -E 's|http://([^/]*)/mcp|\1|'; }
CANDOR_LISTEN="127.0.0.1:$proxy_port" CANDOR_REPLICA_1="$(hostport "${urls[0]}")" \
  CANDOR_REPLICA_2="$(hostport "${urls[1]}")" CANDOR_REPLICA_3="$(hostport "${urls[2]}")" \
  haproxy -f "$here/../../deploy/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
proxy_pid=$!
export PROXY_URL="http://127.0.0.1:$proxy_port/mcp"

export PG_STOP="$pg_stop" PG_START="$pg_start" PSQL="$psql_cmd"
cd "$here/../interop"  # its node_modules (none needed here) and check.mjs
status=0
node "$here/replicas.mjs" "$(IFS=,; echo "${urls[*]}")" "$(IFS=,; echo "${pids[*]}")" || status=$?
if [ "$status" != 0 ]; then
  for n in 1 2 3; do echo "--- replica $n log (tail)"; tail -20 "$work/replica$n.log"; done
fi
exit "$status"
