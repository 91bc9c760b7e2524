#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The operators' switches of the standard command line (ops::command_line beside
# app::http_command_line), on the helpdesk binary: /metrics on by default and off with
# --no-metrics, /ops absent without --ops-token, --allow-host, --journal over stdio,
# --log-format json and --log-level, and the usage errors.
# Usage: command_line.sh HELPDESK CANDOR_CLI
set -euo pipefail
command -v curl >/dev/null || { echo "FAIL: curl not found (scripts/setup-deps installs it)"; exit 1; }
work="$(mktemp -d)"
helpdesk=("$1" --db "$work/helpdesk.db" --seed-tickets 30)
candor="$2"
pid=""
trap '[ -n "$pid" ] && { kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$work"' EXIT
fail=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected $2, got $3"; fail=1; fi
}

start() {  # start FLAGS... -> $base, $pid
  : >"$work/log"
  "${helpdesk[@]}" --http 127.0.0.1:0 "$@" 2>"$work/log" &
  pid=$!
  local url=""
  for _ in $(seq 1 300); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/log" | head -1 || true)"
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "server did not start"; cat "$work/log"; exit 1; }
  base="${url%/mcp}"
}
stop() { kill -TERM $pid; wait $pid || true; pid=""; }
status() { curl -s -o /dev/null -w '%{http_code}' "$base$1"; }

start
check "/metrics on by default" 200 "$(status /metrics)"
check "/ops off without --ops-token" 404 "$(status /ops)"
check "/healthz" 200 "$(status /healthz)"
curl -s "$base/metrics" >"$work/metrics"
grep -q '^# TYPE candor_tool_calls_total counter$' "$work/metrics" && echo "ok: metrics catalogue" || { echo "FAIL: catalogue"; fail=1; }
grep -q '^candor_build_info{version="[0-9.]*",server="helpdesk",server_version="[^"]*"} 1$' "$work/metrics" \
  && echo "ok: build info names the server" || { echo "FAIL: build info"; fail=1; }
grep -q '^process_open_fds [1-9]' "$work/metrics" && echo "ok: process metrics" || { echo "FAIL: process metrics"; fail=1; }
stop

start --allow-host mcp.example
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}'
host_status() { curl -s -o /dev/null -w '%{http_code}' -X POST "$base/mcp" -H "Host: $1" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' --data "$init"; }
check "--allow-host accepts that Host" 200 "$(host_status mcp.example:8080)"
check "other hosts stay refused" 403 "$(host_status other.example)"
stop

start --no-metrics --ops-token abcdefgh12345
check "--no-metrics turns /metrics off" 404 "$(status /metrics)"
check "/ops wants its token" 401 "$(status /ops)"
check "/ops with its token" 200 "$(status '/ops?token=abcdefgh12345')"
stop

# The journal works over stdio too.
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tickets","arguments":{"filter":{"title":"zebra-secret"},"page_size":3}}}' \
  | "${helpdesk[@]}" --stdio --journal "$work/journal.jsonl" >/dev/null 2>&1
check "one journal line over stdio" 1 "$(wc -l <"$work/journal.jsonl" | tr -d ' ')"
grep -q '"client_name":"cli-test"' "$work/journal.jsonl" && echo "ok: journal names the client" || { echo "FAIL: client"; fail=1; }
if grep -q zebra-secret "$work/journal.jsonl"; then echo "FAIL: argument value in the journal"; fail=1; else echo "ok: no argument value"; fi

# Structured logs: every stderr line one JSON object with time, level and message; a refused
# call's line names the tool, the request id and the codes, never the value that was sent.
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":"dup-7","method":"tools/call","params":{"name":"search_tickets","arguments":{"page_size":3,"filter":{"title":"zebra-secret"},"filter":{"title":"zebra-secret"}}}}' \
  | "${helpdesk[@]}" --stdio --log-format json --log-level debug >/dev/null 2>"$work/log.jsonl"
lines=0; bad=0
while IFS= read -r line; do
  lines=$((lines + 1))
  printf '%s' "$line" | "$candor" intake >/dev/null 2>&1 || { echo "not JSON: $line"; bad=1; }
  echo "$line" | grep -q '^{"time":"[0-9T:.-]*Z","level":"[a-z]*","message":' || { echo "not a log line: $line"; bad=1; }
done <"$work/log.jsonl"
[ "$lines" -gt 0 ] && [ "$bad" = 0 ] && echo "ok: $lines JSON log lines" || { echo "FAIL: JSON log lines"; cat "$work/log.jsonl"; fail=1; }
grep '"tool":"search_tickets","request_id":"dup-7"' "$work/log.jsonl" | grep -q '"codes":\["DUPLICATE_KEY"\]' \
  && echo "ok: the refused call's line names tool, request id and codes" || { echo "FAIL: call fields"; cat "$work/log.jsonl"; fail=1; }
if grep -q zebra-secret "$work/log.jsonl"; then echo "FAIL: argument value in the log"; fail=1; else echo "ok: no argument value in the log"; fi
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tickets","arguments":{"filter":{},"filter":{}}}}' \
  | "${helpdesk[@]}" --stdio --log-format json --log-level warning >/dev/null 2>"$work/quiet.jsonl"
check "--log-level warning leaves info lines out" 0 "$(grep -c '"level":"info"' "$work/quiet.jsonl" || true)"

set +e
"${helpdesk[@]}" --stdio --log-format yaml </dev/null >/dev/null 2>&1; check "an unknown --log-format is a usage error" 2 $?
"${helpdesk[@]}" --stdio --log-level verbose </dev/null >/dev/null 2>&1; check "an unknown --log-level is a usage error" 2 $?
"${helpdesk[@]}" --http 127.0.0.1:0 --ops-token short >/dev/null 2>&1; check "short --ops-token is a usage error" 2 $?
"${helpdesk[@]}" --stdio --ops-token abcdefgh12345 </dev/null >/dev/null 2>&1; check "--ops-token needs --http" 2 $?
printf 'a-token-for-the-test someone\n' >"$work/tokens"
"${helpdesk[@]}" --stdio --tokens "$work/tokens" </dev/null >/dev/null 2>&1; check "--tokens needs --http" 2 $?
"${helpdesk[@]}" --stdio --http 127.0.0.1:0 </dev/null >/dev/null 2>&1; check "--stdio and --http are one too many" 2 $?
"${helpdesk[@]}" --http 127.0.0.1:0 tools </dev/null >/dev/null 2>&1; check "--http takes no command" 2 $?
"${helpdesk[@]}" --stdio --journal /nonexistent-dir/j.jsonl </dev/null >/dev/null 2>&1; check "unwritable journal fails" 1 $?
set -e
exit $fail
