#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The console in a real browser: start the helpdesk demo over HTTP with --ops-token and
# --journal, make a complete, a partial and a refused call (an archive without evidence), open
# /ops in headless Chromium, check that the calls and their codes are on the rendered page, and
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
"$server" --http 127.0.0.1:0 --db "$work/helpdesk.db" --seed-tickets 30 --ops-token "$token" \
  --journal "$work/journal.jsonl" 2>"$log" &
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

post() {  # post SESSION BODY -> response body
  curl -sS -X POST "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    ${1:+-H "Mcp-Session-Id: $1"} --data "$2"
}
session="$(curl -sS -D - -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"browser-test-agent","version":"1.0"}}}' \
  | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')"
[ -n "$session" ] || { echo "no session id"; exit 1; }
post "$session" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
call() { post "$session" "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}"; }
call 2 search_tickets '{"page_size":100}' | grep -q '"status":"complete"' || { echo "complete call failed"; exit 1; }
call 3 search_tickets '{"page_size":2,"filter":{"department":"dept-3"}}' | grep -q 'MORE_PAGES_AVAILABLE' || { echo "partial call failed"; exit 1; }
call 4 archive_service_accounts '{"ids":["svc-007"]}' | grep -q 'EVIDENCE_MISSING' || { echo "refused call failed"; exit 1; }
post "$session" '{"jsonrpc":"2.0","id":5,"method":"no/such/method"}' | grep -q -- '-32601' || { echo "refusal failed"; exit 1; }

# Without the token the console is closed.
code="$(curl -s -o /dev/null -w '%{http_code}' "$base/ops")"
[ "$code" = "401" ] || { echo "/ops without token answered $code"; exit 1; }

profile="$work/profile"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --user-data-dir="$profile"
       --window-size=1280,1700 --virtual-time-budget=4000)
dom="$artifacts/console-dom.html"
# Records are numbered from 1 in answer order: #call=2 is the partial call, shown as if clicked.
timeout 120 "$chromium" "${flags[@]}" --dump-dom "$base/ops?token=$token#call=2" >"$dom" 2>"$work/chromium.log" || {
  echo "chromium failed:"; tail -20 "$work/chromium.log"; exit 1; }
timeout 120 "$chromium" "${flags[@]}" --screenshot="$artifacts/console.png" "$base/ops?token=$token#call=2" \
  >/dev/null 2>>"$work/chromium.log" || { echo "screenshot failed:"; tail -20 "$work/chromium.log"; exit 1; }

fail=0
expect() {
  if grep -q -- "$1" "$dom"; then echo "ok: page shows $1"; else echo "FAIL: page does not show $1"; fail=1; fi
}
expect 'search_tickets'
expect 'archive_service_accounts'
expect 'browser-test-agent'
expect 'MORE_PAGES_AVAILABLE'
expect 'EVIDENCE_MISSING'
expect 'JSONRPC_-32601'
expect '>complete<'
expect '>partial<'
expect '>error<'
expect '<svg'
# The selected call's envelope metadata: its reason and continuation kind, never the data.
expect '"incomplete_reasons": \['
expect '"kind": "next_cursor"'
if grep -q '"data"' "$dom"; then echo "FAIL: metadata shows data"; fail=1; fi
# The rows were rendered by the page's script (the recent-calls table is empty in the HTML).
rows="$(grep -o '<tr class="call' "$dom" | wc -l)"
[ "$rows" -ge 4 ] || { echo "FAIL: $rows call rows rendered, expected 4"; fail=1; }
[ -s "$artifacts/console.png" ] && echo "screenshot: $artifacts/console.png" || { echo "FAIL: no screenshot"; fail=1; }
# Nothing the agent sent as argument text reached the journal.
if grep -q 'svc-007\|dept-3' "$work/journal.jsonl"; then echo "FAIL: argument values in the journal"; fail=1; fi
exit $fail
