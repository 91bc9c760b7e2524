-- SPDX-License-Identifier: BSL-1.0
-- wrk script of the load benchmark (scripts/bench --load): POSTs the measured call
-- tools/call search_tickets {"department":"dept-3","status":"open","page_size":20}
-- to a stateless Streamable HTTP endpoint over keep-alive connections, and validates EVERY
-- reply: HTTP 200, no JSON-RPC error, "isError":false, complete:false with
-- MORE_PAGES_AVAILABLE and a next_cursor continuation, and exactly the 20 expected ids in
-- order (T-000003, T-000027, ..., T-000459) in structuredContent. The ids inside content[0]'s
-- text are escaped (\"id\":\"T-...\") and so not matched by the pattern below.
-- The wire is the script's argument (`wrk ... URL -- 2026`; default 2025):
--   2025  MCP-Protocol-Version: 2025-06-18, no _meta (the handshake revisions' stateless HTTP
--         mode); the reply must not carry a resultType.
--   2026  the stateless revision 2026-07-28: the request's _meta names the protocol version,
--         the client's capabilities and its info, and the headers MCP-Protocol-Version,
--         Mcp-Method and Mcp-Name repeat the version, the method and the tool; the reply must
--         carry "resultType":"complete".
-- done() prints one line "WRK_RESULT key=value ..." that scripts/bench parses.

wrk.method = "POST"
wrk.path = "/mcp"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"

local arguments = '"arguments":{"department":"dept-3","status":"open","page_size":20}'
local wire = "2025"

-- Per thread (each wrk thread runs this script in a Lua state of its own), before wrk formats
-- the request from wrk.headers and wrk.body.
function init(args)
  wire = args[1] or "2025"
  if wire == "2026" then
    wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = "search_tickets"
    wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tickets",' ..
               arguments .. ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
               '"io.modelcontextprotocol/clientCapabilities":{},' ..
               '"io.modelcontextprotocol/clientInfo":{"name":"candor-load","version":"1"}}}}'
  elseif wire == "2025" then
    wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
    wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tickets",' ..
               arguments .. '}}'
  else
    error("search_tickets.lua: unknown wire " .. wire .. " (2025 or 2026)")
  end
  ok = 0
  failures = 0
  first_failure = ""
end

local expected = {}
for k = 0, 19 do expected[#expected + 1] = string.format("T-%06d", 3 + 24 * k) end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

-- wrk runs this once per reply on its one core (pinned), so the checks are plain finds for
-- needles that start with a rare character (Lua's plain find is memchr on the first one, then
-- a compare), and the ids are looked for in structuredContent only, where they are unescaped.
local find, sub = string.find, string.sub

local function check(status, body)
  if status ~= 200 then return "HTTP " .. status end
  if not find(body, '"result":', 1, true) then
    if find(body, '"error":{', 1, true) then return "JSON-RPC error" end
    return "no result"
  end
  local sc = find(body, 'structuredContent":{', 1, true)
  if not sc or sub(body, sc - 1, sc - 1) ~= '"' then return "no structuredContent" end
  local e = find(body, 'isError":false', 1, true)
  if not e or sub(body, e - 1, e - 1) ~= '"' then return "isError is not false" end
  if not find(body, 'complete":false', sc, true) then return "complete is not false" end
  if not find(body, 'MORE_PAGES_AVAILABLE"', sc, true) then return "no MORE_PAGES_AVAILABLE" end
  if not find(body, 'kind":"next_cursor","cursor":"', sc, true) and not find(body, '"cursor":"[^"]+","kind":"next_cursor"', sc) then
    return "no next_cursor continuation"
  end
  local n, p = 0, sc
  while true do
    p = find(body, 'id":"T-', p, true)  -- "id":"T-NNNNNN"
    if not p then break end
    if sub(body, p - 1, p - 1) == '"' then
      n = n + 1
      local id = sub(body, p + 5, p + 12)
      if expected[n] ~= id or sub(body, p + 13, p + 13) ~= '"' then
        return "unexpected id " .. sub(body, p + 5, p + 14) .. " at " .. n
      end
    end
    p = p + 7
  end
  if n ~= 20 then return n .. " ids instead of 20" end
  -- The result's resultType (2026) is outside structuredContent; the envelope has none.
  local rt = find(body, 'resultType":', 1, true)
  if wire == "2026" then
    if not rt or sub(body, rt - 1, rt - 1) ~= '"' or sub(body, rt + 12, rt + 21) ~= '"complete"' then
      return "resultType is not complete"
    end
  elseif rt then
    return "a resultType on the 2025 wire"
  end
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
  local socket_errors = e.connect + e.read + e.write + e.timeout
  io.write(string.format(
    "WRK_RESULT requests=%d seconds=%.3f rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d valid=%d invalid=%d socket_errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    good, bad, socket_errors, e.status))
  if first ~= "" then io.write("WRK_FIRST_FAILURE " .. first .. "\n") end
end
