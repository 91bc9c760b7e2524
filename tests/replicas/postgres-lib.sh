# SPDX-License-Identifier: BSL-1.0
# Sourced by the replica test and the replica benchmark: start_postgres starts a temporary
# PostgreSQL 15 (Debian's `postgresql`): initdb into a new folder as an unprivileged user (nobody,
# when run as root), listening on a Unix socket in that folder only, fsync off. It sets
#   pg_dir     the folder (removed by stop_postgres)
#   db_url     a libpq URL for the database `postgres` as user `candor`
#   pg_start   pg_stop   psql_cmd   shell commands (for eval): start again, stop at once, psql
start_postgres() {
  local bin=/usr/lib/postgresql/15/bin
  pg_dir="$(mktemp -d)"
  local as=""
  if [ "$(id -u)" = 0 ]; then
    chown nobody "$pg_dir"
    as="runuser -u nobody --"
  fi
  $as "$bin/initdb" -D "$pg_dir/data" -U candor --auth=trust -E UTF8 --no-sync >"$pg_dir/initdb.log" 2>&1 ||
    { cat "$pg_dir/initdb.log"; return 1; }
  pg_start="$as $bin/pg_ctl -D $pg_dir/data -l $pg_dir/pg.log -w -t 30 -o \"-k $pg_dir -c listen_addresses='' -p 5432 -c fsync=off -c max_connections=100\" start >/dev/null"
  pg_stop="$as $bin/pg_ctl -D $pg_dir/data -m immediate -w stop >/dev/null"
  psql_cmd="$as $bin/psql -X -q -v ON_ERROR_STOP=1 \"host=$pg_dir port=5432 user=candor dbname=postgres\""
  eval "$pg_start" || { cat "$pg_dir/pg.log"; return 1; }
  db_url="postgresql://candor@/postgres?host=$pg_dir&port=5432"
}

stop_postgres() {
  [ -n "${pg_dir:-}" ] || return 0
  eval "$pg_stop" 2>/dev/null || true
  rm -rf "$pg_dir"
}
