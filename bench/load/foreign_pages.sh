#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# A page on a table other programs write (held views) beside one Candor owns, on a temporary
# PostgreSQL 15: see foreign_pages.mjs. Usage: bench/load/foreign_pages.sh [HELPDESK] [WALKS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
server="${1:-$root/build/ci/examples/helpdesk/helpdesk}"
[ -x "$server" ] || { echo "foreign_pages: $server is not built" >&2; exit 2; }
source "$root/tests/replicas/postgres-lib.sh"
trap stop_postgres EXIT
start_postgres
export CANDOR_SEALING_KEYS="bench:$(printf 'ef%.0s' $(seq 1 32))"
node "$root/bench/load/foreign_pages.mjs" "$server" "$db_url" "$psql_cmd" "${2:-15}"
