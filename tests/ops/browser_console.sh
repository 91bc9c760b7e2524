#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The console in a real browser: start the helpdesk demo over HTTP with bearer tokens,
# --ops-token and --journal; as admin make a complete search, a paged walk (three pages that
# more pages follow, then the last), an archive refused for missing evidence, one stopped at the
# approval step (PLAN_TOKEN_REQUIRED), an argument error and an unknown method; as team-a a
# listing with a real gap (VISIBILITY_RESTRICTED). Open /ops in headless Chromium and check the
# rendered page: paging does not lower the completeness rate, gaps and paging are apart,
# argument issues are apart from gates, principals and sessions are shown, the filters work;
# save a screenshot to ARTIFACT_DIR.
# Usage: browser_console.sh HELPDESK ARTIFACT_DIR      (fails when Chromium or curl is absent)
set -euo pipefail
server="$1"
artifacts="$2"
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "FAIL: $chromium not found (apt-get install chromium; scripts/setup-deps installs it)"
  exit 1
fi
command -v curl >/dev/null || { echo "FAIL: curl not found (scripts/setup-deps installs it)"; exit 1; }
mkdir -p "$artifacts"

token="console-test-$RANDOM$RANDOM"
work="$(mktemp -d)"
log="$work/server.log"
printf 'tok-admin-0123456789 admin\ntok-team-a-012345678 team-a\n' >"$work/tokens"
"$server" --http 127.0.0.1:0 --db "$work/helpdesk.db" --seed-tickets 30 --tokens "$work/tokens" \
  --ops-token "$token" --journal "$work/journal.jsonl" 2>"$log" &
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
base="${url%/mcp}"

post() {  # post BEARER SESSION BODY -> response body
  curl -sS -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Authorization: Bearer $1" ${2:+-H "Mcp-Session-Id: $2"} --data "$3"
}
open_session() {  # open_session BEARER CLIENT -> session id
  local id
  id="$(curl -sS -D - -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H "Authorization: Bearer $1" \
    --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"$2\",\"version\":\"1.0\"}}}" \
    | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')"
  [ -n "$id" ] || { echo "no session id" >&2; exit 1; }
  post "$1" "$id" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
  echo "$id"
}
admin="tok-admin-0123456789"
team="tok-team-a-012345678"
session="$(open_session "$admin" browser-test-agent)"
team_session="$(open_session "$team" team-agent)"
call() {  # call BEARER SESSION ID TOOL ARGUMENTS -> response body
  post "$1" "$2" "{\"jsonrpc\":\"2.0\",\"id\":$3,\"method\":\"tools/call\",\"params\":{\"name\":\"$4\",\"arguments\":$5}}"
}
field() { { grep -o "\"$1\":\"[^\"]*\"" || true; } | head -1 | cut -d'"' -f4; }

# Every ticket without its description: the 30 fit one result.
call "$admin" "$session" 2 search_tickets '{"page_size":100,"fields":["id","title"]}' | grep -q '"status":"complete"' || { echo "complete call failed"; exit 1; }
# The walk: dept-3 holds tickets 3, 11, 19 and 27; one per page. Records are numbered from 1
# in answer order: #call=2 is the walk's first page, shown as if clicked.
walk='"page_size":1,"filter":{"department":"dept-3"}'
page="$(call "$admin" "$session" 3 search_tickets "{$walk}")"
for id in 4 5 6; do
  echo "$page" | grep -q 'MORE_PAGES_AVAILABLE' || { echo "walk page not paged: $page"; exit 1; }
  cursor="$(echo "$page" | field cursor)"
  page="$(call "$admin" "$session" $id search_tickets "{$walk,\"cursor\":\"$cursor\"}")"
done
echo "$page" | grep -q '"status":"complete"' || { echo "walk did not end complete: $page"; exit 1; }
call "$admin" "$session" 7 archive_service_accounts '{"ids":["svc-007"]}' | grep -q 'EVIDENCE_MISSING' || { echo "refused call failed"; exit 1; }
evidence="$(call "$admin" "$session" 8 find_unowned_accounts '{}' | field snapshot_token)"
[ -n "$evidence" ] || { echo "no snapshot token"; exit 1; }
call "$admin" "$session" 9 archive_service_accounts "{\"ids\":[\"svc-007\"],\"snapshot_token\":\"$evidence\"}" \
  | grep -q 'PLAN_TOKEN_REQUIRED' || { echo "approval step failed"; exit 1; }
call "$admin" "$session" 10 search_tickets '{"page_size":1000}' | grep -q 'OUT_OF_RANGE' || { echo "argument error failed"; exit 1; }
post "$admin" "$session" '{"jsonrpc":"2.0","id":11,"method":"no/such/method"}' | grep -q -- '-32601' || { echo "refusal failed"; exit 1; }
call "$team" "$team_session" 2 list_service_accounts '{"page_size":10}' | grep -q 'VISIBILITY_RESTRICTED' || { echo "gap call failed"; exit 1; }

# Without the token the console is closed.
code="$(curl -s -o /dev/null -w '%{http_code}' "$base/ops")"
[ "$code" = "401" ] || { echo "/ops without token answered $code"; exit 1; }

profile="$work/profile"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --user-data-dir="$profile"
       --window-size=1280,1800 --virtual-time-budget=4000)
render() {  # render FRAGMENT OUT
  timeout 120 "$chromium" "${flags[@]}" --dump-dom "$base/ops?token=$token#$1" >"$2" 2>>"$work/chromium.log" || {
    echo "chromium failed:"; tail -20 "$work/chromium.log"; exit 1; }
}
dom="$artifacts/console-dom.html"
render "call=2" "$dom"
filtered="$artifacts/console-filtered-dom.html"
render "principal=admin&status=paged" "$filtered"
timeout 120 "$chromium" "${flags[@]}" --screenshot="$artifacts/console.png" "$base/ops?token=$token#call=2" \
  >/dev/null 2>>"$work/chromium.log" || { echo "screenshot failed:"; tail -20 "$work/chromium.log"; exit 1; }

fail=0
expect() {  # expect PATTERN [FILE]
  if grep -q -- "$1" "${2:-$dom}"; then echo "ok: page shows $1"; else echo "FAIL: page does not show $1"; fail=1; fi
}
absent() {  # absent PATTERN TEXT WHAT
  if echo "$2" | grep -q -- "$1"; then echo "FAIL: $3 shows $1"; fail=1; else echo "ok: $3 does not show $1"; fi
}
table() { grep -oP "<table id=\"$1\">.*?</table>" "$dom" || true; }
expect 'search_tickets'
expect 'browser-test-agent'
expect 'MORE_PAGES_AVAILABLE'
expect 'VISIBILITY_RESTRICTED'
expect 'EVIDENCE_MISSING'
expect 'PLAN_TOKEN_REQUIRED'
expect 'JSONRPC_-32601'
expect '>complete<'
expect '>paged<'
expect '>incomplete<'
expect '>error<'
expect '<svg'
# Paging does not lower the completeness rate: 2 complete results and 3 paged ones are 100 %
# (errors apart); team-a's listing with a real gap is 0 %.
expect 'data-tool="search_tickets" data-rate="100"'
expect 'data-tool="list_service_accounts" data-rate="0"'
# Gaps and paging apart; argument issues apart from gates.
table reasons | grep -q VISIBILITY_RESTRICTED && echo "ok: gap reasons" || { echo "FAIL: no gap reason"; fail=1; }
absent MORE_PAGES_AVAILABLE "$(table reasons)" "the gap reasons table"
table paging | grep -q MORE_PAGES_AVAILABLE && echo "ok: paging table" || { echo "FAIL: no paging row"; fail=1; }
table issues | grep -q OUT_OF_RANGE && echo "ok: argument issue" || { echo "FAIL: no argument issue"; fail=1; }
absent EVIDENCE_MISSING "$(table issues)" "the argument issues table"
absent PLAN_TOKEN_REQUIRED "$(table issues)" "the argument issues table"
table other-issues | grep -q 'approval.*PLAN_TOKEN_REQUIRED' && echo "ok: approval group" || { echo "FAIL: no approval row"; fail=1; }
# Who called, and in which session (its first 8 characters; the whole id on hover).
expect '>team-a<'
expect '>admin<'
expect "title=\"$session\">${session:0:8}"
# A long tool name is whole in the charts.
expect '>archive_service_accounts<title>archive_service_accounts</title></text>'
# The selected call's envelope metadata: its reason and continuation kind, never the data.
expect '"incomplete_reasons": \['
expect '"kind": "next_cursor"'
if grep -q '"data"' "$dom"; then echo "FAIL: metadata shows data"; fail=1; fi
# The rows were rendered by the page's script (the recent-calls table is empty in the HTML).
rows="$(grep -o '<tr class="call' "$dom" | wc -l)"
[ "$rows" -ge 11 ] || { echo "FAIL: $rows call rows rendered, expected 11"; fail=1; }
# Filtered: admin's paged results only.
rows="$(grep -o '<tr class="call' "$filtered" | wc -l)"
[ "$rows" = 3 ] && echo "ok: filters leave admin's 3 paged pages" || { echo "FAIL: $rows rows after filtering, expected 3"; fail=1; }
[ -s "$artifacts/console.png" ] && echo "screenshot: $artifacts/console.png" || { echo "FAIL: no screenshot"; fail=1; }
# Nothing the agent sent as argument text reached the journal.
if grep -q 'svc-007\|dept-3' "$work/journal.jsonl"; then echo "FAIL: argument values in the journal"; fail=1; fi
exit $fail
