-- SPDX-License-Identifier: BSL-1.0
-- wrk script of the replica benchmark (bench/load/replicas.sh): POSTs the first page of the
-- helpdesk's walk
--   tools/call search_tickets {"filter":{"and":[{"department":"dept-3"},{"status":"open"}]},"page_size":20}
-- on the stateless revision 2026-07-28 (the wire every replica serves without a session), as
-- admin, and validates EVERY reply: HTTP 200, no JSON-RPC error, "isError":false,
-- MORE_PAGES_AVAILABLE, and 20 ticket ids in structuredContent.
-- done() prints one line "WRK_RESULT key=value ..." that replicas.sh parses.

wrk.method = "POST"
wrk.path = "/mcp"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Authorization"] = "Bearer admin-token"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "search_tickets"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tickets",' ..
           '"arguments":{"filter":{"and":[{"department":"dept-3"},{"status":"open"}]},"page_size":20},' ..
           '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
           '"io.modelcontextprotocol/clientCapabilities":{},' ..
           '"io.modelcontextprotocol/clientInfo":{"name":"candor-load","version":"1"}}}}'

function init(args)
  ok = 0
  failures = 0
  first_failure = ""
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

local find, sub = string.find, string.sub

local function check(status, body)
  if status ~= 200 then return "HTTP " .. status end
  if not find(body, '"result":', 1, true) then return "no result" end
  local sc = find(body, 'structuredContent":{', 1, true)
  if not sc then return "no structuredContent" end
  if not find(body, 'isError":false', 1, true) then return "isError is not false" end
  if not find(body, 'MORE_PAGES_AVAILABLE"', sc, true) then return "no MORE_PAGES_AVAILABLE" end
  local n, p = 0, sc
  while true do
    p = find(body, '"id":"T-', p, true)
    if not p then break end
    n = n + 1
    p = p + 8
  end
  if n ~= 20 then return n .. " ids instead of 20" end
  return nil
end

function response(status, headers, body)
  local why = check(status, body)
  if why then
    failures = failures + 1
    if first_failure == "" then first_failure = why .. ": " .. body:sub(1, 300) end
  else
    ok = ok + 1
  end
end

function done(summary, latency, requests)
  local good, bad, first = 0, 0, ""
  for _, t in ipairs(threads) do
    good = good + t:get("ok")
    bad = bad + t:get("failures")
    if first == "" then first = t:get("first_failure") end
  end
  local e = summary.errors
  io.write(string.format(
    "WRK_RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d valid=%d invalid=%d socket_errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), good, bad, e.connect + e.read + e.write + e.timeout, e.status))
  if first ~= "" then io.write("WRK_FIRST_FAILURE " .. first .. "\n") end
end
