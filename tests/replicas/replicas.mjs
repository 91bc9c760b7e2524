// SPDX-License-Identifier: BSL-1.0
// Three helpdesk replicas on one PostgreSQL, driven by a round-robin client: every request goes
// to the next replica, with no stickiness, over Streamable HTTP in both protocol revisions the
// server speaks (2025-11-25 with a session, 2026-07-28 stateless). See run-replicas.sh, which
// starts PostgreSQL and the replicas and passes their URLs and pids.
//   node replicas.mjs URL1,URL2,URL3 PID1,PID2,PID3
// Environment: PG_STOP and PG_START (shell commands), PSQL (a psql command line taking -c SQL).
import { execSync } from "node:child_process";
import { check, finish } from "../interop/check.mjs";

const urls = process.argv[2].split(",");
const pids = process.argv[3].split(",").map(Number);
const dead = new Set();
let turn = 0;
// The next live replica, in turn.
function nextReplica() {
  for (;;) {
    const i = turn++ % urls.length;
    if (!dead.has(i)) return i;
  }
}

const token = "admin-token";
const modern = "2026-07-28";
const legacy = "2025-11-25";
let requestId = 0;

// POST one JSON-RPC request to replica `i`; the answer may come as JSON or as an SSE stream.
async function post(i, method, params, { version = modern, session, principalToken = token, capabilities = {} } = {}) {
  const id = ++requestId;
  if (version === modern) {
    params = { ...params, _meta: { ...(params._meta ?? {}),
      "io.modelcontextprotocol/protocolVersion": modern,
      "io.modelcontextprotocol/clientInfo": { name: "round-robin", version: "1.0" },
      "io.modelcontextprotocol/clientCapabilities": capabilities } };
  }
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${principalToken}`,
  };
  if (method !== "initialize") headers["mcp-protocol-version"] = version;
  if (version === modern) {
    headers["mcp-method"] = method;
    if (params.name) headers["mcp-name"] = params.name;
    if (params.taskId) headers["mcp-name"] = params.taskId;
    if (params.uri) headers["mcp-name"] = params.uri;
  }
  if (session) headers["mcp-session-id"] = session;
  const started = Date.now();
  const res = await fetch(urls[i], { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
                                     signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  let message = null;
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:") || !line.slice(5).trim()) continue;  // a priming event has no data
      const m = JSON.parse(line.slice(5));
      if (m.id === id) message = m;
    }
  } else if (text) {
    message = JSON.parse(text);
  }
  return { status: res.status, session: res.headers.get("mcp-session-id"), message, ms: Date.now() - started, replica: i };
}

async function callTool(i, name, args, opts = {}) {
  const r = await post(i, "tools/call", { name, arguments: args, ...(opts.extra ?? {}) }, opts);
  const result = r.message?.result;
  return { ...r, isError: result?.isError === true, env: result?.structuredContent ?? r.message?.error ?? { status: r.status } };
}

const errorCode = (env) => env?.errors?.[0]?.code;
const reasons = (env) => (env?.incomplete_reasons ?? []).map((x) => x.code);
function psql(sql) {
  return execSync(`${process.env.PSQL} -At -c "${sql}"`, { encoding: "utf8" }).trim();
}

// Walk search_tickets to its end, each page on the next replica; `afterPage(n)` runs after page n.
async function walk(filter, pageSize, opts = {}, afterPage = async () => {}) {
  const ids = [];
  const replicas = new Set();
  let cursor;
  for (let page = 1; page < 1000; ++page) {
    const i = nextReplica();
    const args = cursor ? { filter, page_size: pageSize, cursor } : { filter, page_size: pageSize };
    const r = await callTool(i, "search_tickets", args, opts);
    if (r.isError || !r.env?.data) return { ids, replicas, error: r.env };
    replicas.add(i);
    for (const t of r.env.data) ids.push(t.id);
    cursor = r.env.continuation?.cursor;
    await afterPage(page);
    if (!cursor) return { ids, replicas, env: r.env };
  }
  return { ids, replicas, error: "too many pages" };
}

const filter = { and: [{ department: "dept-3" }, { status: "open" }] };
const truth = psql("SELECT string_agg(id, ',' ORDER BY id) FROM tickets " +
                   "WHERE department = 'dept-3' AND status = 'open' AND candor_to IS NULL").split(",");
check("the seeded data has matching tickets to walk", truth.length > 20, truth.length);

// --- 2026-07-28: a walk whose pages come from every replica ------------------------------------
{
  const w = await walk(filter, 7);
  check("2026-07-28: the round-robin walk ends complete", w.env?.complete === true, w.error ?? w.env);
  check("2026-07-28: its pages came from all three replicas", w.replicas.size === 3, [...w.replicas]);
  check("2026-07-28: it returns exactly the matching ids, once each",
        JSON.stringify(w.ids) === JSON.stringify(truth), { got: w.ids.length, want: truth.length });
}

// --- the same walk through HAProxy (deploy/haproxy.cfg: round robin, no stickiness) ------------
{
  urls.push(process.env.PROXY_URL);
  const proxy = urls.length - 1;
  const ready = process.env.PROXY_URL.replace(/\/mcp$/, "/readyz");
  for (let attempt = 0; attempt < 100; ++attempt) {  // until HAProxy listens
    try {
      if ((await fetch(ready)).ok) break;
    } catch {}
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const ids = [];
  let cursor, w = null;
  for (let page = 0; page < 1000; ++page) {
    const r = await callTool(proxy, "search_tickets", cursor ? { filter, page_size: 7, cursor } : { filter, page_size: 7 });
    if (r.isError || !r.env?.data) { w = { ids, error: r.env }; break; }
    for (const t of r.env.data) ids.push(t.id);
    cursor = r.env.continuation?.cursor;
    if (!cursor) { w = { ids, env: r.env }; break; }
  }
  check("through HAProxy: the walk ends complete with exactly the matching ids",
        w?.env?.complete === true && JSON.stringify(w.ids) === JSON.stringify(truth), w?.error ?? w?.ids?.length);
  urls.pop();
}

// --- 2025-11-25: a session initialized on replica 1 goes on on replica 2 ------------------------
{
  const init = await post(0, "initialize", { protocolVersion: legacy, capabilities: {},
                                             clientInfo: { name: "round-robin", version: "1.0" } }, { version: legacy });
  const session = init.session;
  check("2025-11-25: initialize on replica 1 opens a session", init.status === 200 && !!session, init);
  const ack = await fetch(urls[1], { method: "POST", headers: { "content-type": "application/json",
    accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-session-id": session,
    "mcp-protocol-version": legacy }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  check("2025-11-25: notifications/initialized on replica 2 is accepted", ack.status === 202, ack.status);
  const listed = await post(1, "tools/list", {}, { version: legacy, session });
  check("2025-11-25: tools/list with that session on replica 2 answers",
        listed.status === 200 && Array.isArray(listed.message?.result?.tools), listed);
  const w = await walk(filter, 9, { version: legacy, session });
  check("2025-11-25: a walk in that session across the replicas returns exactly the matching ids",
        w.env?.complete === true && JSON.stringify(w.ids) === JSON.stringify(truth), w.error ?? w.ids.length);
  const stranger = await post(2, "tools/list", {}, { version: legacy, session, principalToken: "team-a-token" });
  check("2025-11-25: another principal cannot use the session on another replica", stranger.status === 404,
        stranger.status);
  await resumeElsewhere(session);
}

// The SSE events of a body: [{ id, data }].
function sseEvents(text) {
  const events = [];
  for (const block of text.split("\n\n")) {
    let id = "", data = null;
    for (const line of block.split("\n")) {
      if (line.startsWith("id:")) id = line.slice(3).trim();
      if (line.startsWith("data:")) data = line.slice(5).trim();
    }
    if (data !== null) events.push({ id, data });
  }
  return events;
}

// A call whose answer is a stream of several events (search_everywhere reports progress), cut on
// replica 1 after its first message; resumed with Last-Event-ID on replica 2, it delivers the
// remaining events and the result, exactly once.
async function resumeElsewhere(session) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream",
                    authorization: `Bearer ${token}`, "mcp-session-id": session, "mcp-protocol-version": legacy };
  const call = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: {
    name: "search_everywhere", arguments: { query: "printer" }, _meta: { progressToken: `resume-${id}` } } });
  // The whole stream, uncut, on replica 3: what a resume must make up for.
  const whole = sseEvents(await (await fetch(urls[2], { method: "POST", headers, body: call(++requestId) })).text());
  const wholeMessages = whole.filter((e) => e.data).length;
  check("2025-11-25: search_everywhere with a progressToken answers as a stream of several events, with ids",
        wholeMessages >= 3 && whole.every((e) => e.id), whole);

  const id = ++requestId;
  const cut = new AbortController();
  const res = await fetch(urls[0], { method: "POST", headers, body: call(id), signal: cut.signal });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let seen = [];
  while (!seen.some((e) => e.data)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    seen = sseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2));
  }
  cut.abort();
  const first = seen.find((e) => e.data);  // resumed from here, whatever else arrived with it
  check("2025-11-25: the stream on replica 1 opens with a priming event, then a message",
        seen[0]?.data === "" && !!seen[0]?.id && !!first?.id, seen);
  const resumed = await fetch(urls[1], { method: "GET", signal: AbortSignal.timeout(30_000), headers: {
    accept: "text/event-stream", authorization: `Bearer ${token}`, "mcp-session-id": session,
    "mcp-protocol-version": legacy, "last-event-id": first?.id } });
  const rest = sseEvents(await resumed.text());
  const stream = first?.id.slice(0, first.id.lastIndexOf("-"));
  const seq = Number(first?.id.slice(first.id.lastIndexOf("-") + 1));
  const messages = rest.filter((e) => e.data).map((e) => JSON.parse(e.data));
  check("2025-11-25: resumed on replica 2, the stream goes on right after the event seen, without gaps",
        resumed.status === 200 && rest.every((e, k) => e.id === `${stream}-${seq + 1 + k}`), { status: resumed.status, rest });
  check("2025-11-25: it delivers exactly the remaining events, the result last and once",
        messages.length === wholeMessages - 1 &&
        messages.filter((m) => m.id === id).length === 1 && messages.at(-1)?.id === id &&
        messages.at(-1)?.result?.structuredContent !== undefined, messages);
}

// --- an inventory on replica 1, its plan on 2, the approved call on 3, a replay on 1 ----------
{
  const ids = [];
  let cursor, token;
  for (;;) {
    const r = await callTool(0, "list_service_accounts", cursor ? { cursor } : {});
    for (const a of r.env?.data ?? []) if (a.owner === null && !a.archived) ids.push(a.id);
    cursor = r.env?.continuation?.cursor;
    token = r.env?.snapshot_token ?? token;
    if (!cursor || r.isError) break;
  }
  const some = ids.slice(0, 3);
  check("the inventory on replica 1 is complete and carries a snapshot_token", !!token && some.length === 3, ids.length);
  const plan = await callTool(1, "archive_service_accounts", { ids: some, snapshot_token: token });
  const planToken = plan.env?.errors?.[0]?.plan_token;
  check("the plan on replica 2: PLAN_TOKEN_REQUIRED with a plan_token",
        plan.isError && errorCode(plan.env) === "PLAN_TOKEN_REQUIRED" && !!planToken, plan.env);
  const done = await callTool(2, "archive_service_accounts", { ids: some, snapshot_token: token, plan_token: planToken });
  check("the approved call on replica 3 archives the planned accounts",
        !done.isError && JSON.stringify(done.env?.data?.archived) === JSON.stringify(some), done.env);
  const replay = await callTool(0, "archive_service_accounts", { ids: some, snapshot_token: token, plan_token: planToken });
  check("the same plan_token replayed on replica 1: PLAN_TOKEN_USED",
        replay.isError && errorCode(replay.env) === "PLAN_TOKEN_USED", replay.env);
  const archived = Number(psql(`SELECT count(*) FROM service_accounts WHERE id IN ('${some.join("','")}') ` +
                               "AND archived = 1 AND candor_to IS NULL"));
  check("each planned account was archived exactly once", archived === 3, archived);

  // Versions of `id` that say archived: one after an archive, whatever raced.
  const archivedVersions = (id) => Number(psql(`SELECT count(*) FROM service_accounts WHERE id = '${id}' AND archived = 1`));
  const rounds = Math.min(5, Math.floor((ids.length - 3) / 2));
  check("the inventory has accounts left for the races below", rounds >= 3, ids.length);

  // The user's approval, answered on the 2026-07-28 wire (input_required, then a retry with
  // requestState and inputResponses), and that same retry sent to all three replicas at once.
  const eliciting = { capabilities: { elicitation: {} } };
  const proceed = { elicitation_1: { action: "accept", content: { decision: "proceed" } } };
  let onceEach = 0, oneComplete = 0, usedAnswers = 0;
  for (let round = 0; round < rounds; ++round) {
    const target = [ids[3 + round]];
    const asked = await post(round % 3, "tools/call", { name: "archive_service_accounts",
      arguments: { ids: target, snapshot_token: token } }, eliciting);
    const requestState = asked.message?.result?.requestState;
    if (asked.message?.result?.resultType !== "input_required" || !requestState) {
      check("the approval is asked with input_required and a requestState", false, asked.message);
      break;
    }
    const answers = await Promise.all([0, 1, 2].map((i) => callTool(i, "archive_service_accounts",
      { ids: target, snapshot_token: token }, { ...eliciting, extra: { requestState, inputResponses: proceed } })));
    const completes = answers.filter((a) => !a.isError && a.env?.status === "complete");
    oneComplete += completes.length === 1 && JSON.stringify(completes[0].env?.data?.archived) === JSON.stringify(target);
    usedAnswers += answers.filter((a) => a.isError && errorCode(a.env) === "APPROVAL_USED").length;
    onceEach += archivedVersions(target[0]) === 1;
  }
  check("the same approved retry on three replicas at once: exactly one archives, every round",
        oneComplete === rounds, { oneComplete, rounds });
  check("the other two answer APPROVAL_USED", usedAnswers === 2 * rounds, { usedAnswers, rounds });
  check("each account has exactly one archived version", onceEach === rounds, { onceEach, rounds });

  // Two distinct approved plans for the same account, sent at once to replicas 1 and 2: the
  // re-check and the write are one step, so one archives and the other finds it archived.
  let raced = 0;
  for (let round = 0; round < rounds; ++round) {
    const target = [ids[3 + rounds + round]];
    const plans = await Promise.all([0, 1].map((i) => callTool(i, "archive_service_accounts",
      { ids: target, snapshot_token: token })));
    const tokens = plans.map((p) => p.env?.errors?.[0]?.plan_token);
    if (!tokens.every(Boolean) || tokens[0] === tokens[1]) {
      check("two plans give two distinct plan tokens", false, plans.map((p) => p.env));
      break;
    }
    const done = await Promise.all([0, 1].map((i) => callTool(i, "archive_service_accounts",
      { ids: target, snapshot_token: token, plan_token: tokens[i] })));
    const archivedBy = done.filter((d) => JSON.stringify(d.env?.data?.archived) === JSON.stringify(target)).length;
    const skipped = done.filter((d) => d.env?.data?.skipped?.[0]?.code === "ACCOUNT_ALREADY_ARCHIVED").length;
    raced += archivedBy === 1 && skipped === 1 && archivedVersions(target[0]) === 1;
  }
  check("two approved plans for one account on two replicas at once: archived once, the other ACCOUNT_ALREADY_ARCHIVED, every round",
        raced === rounds, { raced, rounds });
}

// --- two failing orders on different replicas: REPAIR_LIMIT_EXCEEDED ---------------------------
{
  const order = { customer_id: "cust-3", currency: "USD", delivery_date: "2099-12-01", discount: 0, total: 999,
                  lines: [{ sku: "SKU-003", quantity: 2, unit_price: 4.5 }] };
  const first = await callTool(0, "create_order_draft", order);
  check("a failing order on replica 1 is a repairable refusal", first.isError && errorCode(first.env) !== undefined &&
        errorCode(first.env) !== "REPAIR_LIMIT_EXCEEDED", first.env);
  const second = await callTool(1, "create_order_draft", order);
  check("the same failure on replica 2: REPAIR_LIMIT_EXCEEDED", second.isError &&
        errorCode(second.env) === "REPAIR_LIMIT_EXCEEDED", second.env);
}

// --- a table other programs write: one snapshot across replicas --------------------------------
// search_customers walks the plain customers table; psql inserts, renames and deletes customers
// between its pages. The walk's first page exports a snapshot on its replica; every other
// replica imports it, so the walk returns exactly the customers of its first moment.
const customersInOrder = () =>
  psql('SELECT string_agg(id, \',\' ORDER BY region COLLATE \\"C\\", id COLLATE \\"C\\") FROM customers').split(",");
{
  const before = customersInOrder();
  const ids = [], replicas = new Set();
  let cursor, last = null, n = 0;
  for (let page = 1; page < 100; ++page) {
    const i = nextReplica();
    const r = await callTool(i, "search_customers", cursor ? { page_size: 100, cursor } : { page_size: 100 });
    if (r.isError || !r.env?.data) { last = { error: r.env }; break; }
    replicas.add(i);
    for (const c of r.env.data) ids.push(c.id);
    cursor = r.env.continuation?.cursor;
    if (!cursor) { last = r.env; break; }
    ++n;
    psql(`INSERT INTO customers(id, may_order, name, region, since) VALUES('cust-r${n}', 1, 'Late ${n}', 'amer', '2026-12-01'); ` +
         `UPDATE customers SET name = 'Renamed ${n}' WHERE id = 'cust-${100 + n}'; DELETE FROM customers WHERE id = 'cust-${1990 - n}'`);
  }
  check("a foreign table: the round-robin walk ends complete with a snapshot_token",
        last?.complete === true && typeof last?.snapshot_token === "string", last);
  check("a foreign table: its pages came from all three replicas", replicas.size === 3, [...replicas]);
  check("a foreign table: it returns exactly the customers of its first page's moment, in order",
        JSON.stringify(ids) === JSON.stringify(before), { got: ids.length, want: before.length, writes: n });
  check("a foreign table: psql wrote between the pages", n >= 5, n);

  // Acting on the walk's finds on another replica: a customer psql changed since is skipped.
  const picked = ["cust-1100", "cust-1101", "cust-1102"].filter((id) => ids.includes(id));
  psql("UPDATE customers SET region = 'apac' WHERE id = 'cust-1101'");
  const act = await callTool(nextReplica(), "suspend_customers", { ids: picked, snapshot_token: last?.snapshot_token });
  const skipped = act.env?.data?.skipped ?? [];
  check("a foreign table: suspend_customers acts on the unchanged customers and skips the changed one (TARGET_CHANGED)",
        picked.length === 3 && JSON.stringify(act.env?.data?.done) === JSON.stringify(["cust-1100", "cust-1102"]) &&
        skipped.length === 1 && skipped[0].id === "cust-1101" && skipped[0].code === "TARGET_CHANGED", act.env);
  check("a foreign table: exactly those were suspended",
        psql("SELECT string_agg(id, ',' ORDER BY id) FROM customers WHERE id IN ('cust-1100','cust-1101','cust-1102') AND may_order = 0") ===
          "cust-1100,cust-1102");
}

// --- tasks across replicas (the tasks extension of 2026-07-28) ---------------------------------
// Any replica answers tasks/get, tasks/update and tasks/cancel for a task another one runs.
const withTasks = { extensions: { "io.modelcontextprotocol/tasks": {} } };
async function startTask(i, name, args) {
  return (await post(i, "tools/call", { name, arguments: args }, { capabilities: withTasks })).message?.result;
}
async function taskRequest(i, method, taskId) {
  return (await post(i, method, { taskId }, { capabilities: withTasks })).message;
}
// Poll tasks/get on `replicas` in turn (as a client behind a balancer would) until the task is
// `status`; bounded by `maxMs`. Returns the last answer and the replicas that answered.
async function pollTask(replicas, taskId, status, maxMs = 30_000) {
  const until = Date.now() + maxMs;
  const seen = new Set();
  let last = null;
  for (let n = 0; Date.now() < until; ++n) {
    const i = replicas[n % replicas.length];
    last = await taskRequest(i, "tasks/get", taskId);
    if (last?.result) seen.add(i);
    if (last?.result?.status === status) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return { last, seen };
}
const runsOf = (taskId) => Number(psql(`SELECT count(*) FROM kb_index_runs WHERE task_id = '${taskId}'`));
{
  const started = await startTask(0, "search_everywhere", { query: "password" });
  check("tasks: search_everywhere started on replica 1 is a task", started?.resultType === "task", started);
  const { last } = await pollTask([1, 2], started?.taskId, "completed");
  const onThird = await taskRequest(2, "tasks/get", started?.taskId);
  const onSecond = await taskRequest(1, "tasks/get", started?.taskId);
  check("tasks: polled on replicas 2 and 3 to its result",
        last?.result?.status === "completed" && last?.result?.result?.structuredContent?.status === "complete" &&
          JSON.stringify(onSecond?.result?.result) === JSON.stringify(onThird?.result?.result), last);
}
// --- notices across replicas --------------------------------------------------------------------
// A listen stream on replica 1 hears the index rebuilt on replica 3 (notifications/resources/
// updated). Replica 1 starts reading the feed when it acknowledges the listener; the rebuild takes
// a second after that.
async function openListen(i, uris) {
  const id = ++requestId;
  const params = { notifications: { resourceSubscriptions: uris }, _meta: {
    "io.modelcontextprotocol/protocolVersion": modern,
    "io.modelcontextprotocol/clientInfo": { name: "listener", version: "1.0" },
    "io.modelcontextprotocol/clientCapabilities": {} } };
  const abort = new AbortController();
  const res = await fetch(urls[i], { method: "POST", signal: abort.signal,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
               authorization: `Bearer ${token}`, "mcp-protocol-version": modern,
               "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params }) });
  return { res, abort };
}
// Read SSE messages from `res` until `want(message)` or `ms` pass; returns every message read.
async function readUntil(res, want, ms) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const messages = [];
  let buffered = "";
  const until = Date.now() + ms;
  try {
    while (Date.now() < until) {
      const chunk = await Promise.race([reader.read(), new Promise((ok) => setTimeout(() => ok(null), until - Date.now()))]);
      if (!chunk || chunk.done) break;
      buffered += decoder.decode(chunk.value, { stream: true });
      let cut;
      while ((cut = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 1);
        if (line.startsWith("data:") && line.slice(5).trim()) messages.push(JSON.parse(line.slice(5)));
      }
      if (messages.some(want)) break;
    }
  } finally {
    reader.releaseLock();
  }
  return messages;
}
{
  const indexUri = "helpdesk://kb/index";
  const listen = await openListen(0, [indexUri]);
  const acked = await readUntil(listen.res, (m) => m.method === "notifications/subscriptions/acknowledged", 10_000);
  check("notices: a listen stream on replica 1 is acknowledged",
        acked.some((m) => m.method === "notifications/subscriptions/acknowledged"), acked);
  const job = await startTask(2, "reindex_knowledge_base", {});
  const { last } = await pollTask([2], job?.taskId, "completed", 20_000);
  check("notices: the index is rebuilt on replica 3", last?.result?.status === "completed", last);
  const heard = await readUntil(listen.res, (m) => m.method === "notifications/resources/updated", 10_000);
  const updates = heard.filter((m) => m.method === "notifications/resources/updated");
  check("notices: the listener on replica 1 hears the index updated on replica 3",
        updates.length >= 1 && updates.every((m) => m.params?.uri === indexUri), heard);
  listen.abort.abort();
  const read = await post(1, "resources/read", { uri: indexUri });
  const index = JSON.parse(read.message?.result?.contents?.[0]?.text ?? "null");
  check("notices: replica 2 reads the rebuilt index", index?.index_entries > 0 && typeof index?.refreshed_at_ms === "number",
        read.message);
}

// --- an input request raised on one replica, answered on another ---------------------------------
// The index is fresh (replica 3 just rebuilt it): a rebuild asks the user first, when the client
// can be asked. The question is raised by the tool on replica 1 and answered with tasks/update
// on replica 2; the tool gets the answer within a poll interval.
{
  const asking = { extensions: { "io.modelcontextprotocol/tasks": {} }, elicitation: {} };
  const job = (await post(0, "tools/call", { name: "reindex_knowledge_base", arguments: {} },
                          { capabilities: asking })).message?.result;
  check("input: a rebuild of the fresh index on replica 1 is a task", job?.resultType === "task", job);
  const asked = (await pollTask([1], job?.taskId, "input_required", 10_000)).last;
  const keys = Object.keys(asked?.result?.inputRequests ?? {});
  check("input: replica 2 shows its question (input_required, one request)",
        asked?.result?.status === "input_required" && keys.length === 1, asked);
  const ack = (await post(1, "tasks/update", { taskId: job?.taskId, inputResponses: { [keys[0]]: { action: "decline" } } },
                          { capabilities: asking })).message;
  check("input: answered with tasks/update on replica 2", ack?.result?.resultType === "complete", ack);
  const { last } = await pollTask([2], job?.taskId, "completed", 10_000);
  check("input: the tool on replica 1 got the answer: completed, the index kept",
        last?.result?.status === "completed" && last?.result?.result?.structuredContent?.data?.rebuilt === false, last);
  check("input: the declined rebuild recorded nothing in kb_index_runs", runsOf(job?.taskId) === 0);
}

let lostTask;
{
  const job = await startTask(0, "reindex_knowledge_base", {});
  check("tasks: reindex_knowledge_base on replica 1 is a task", job?.resultType === "task", job);
  const working = await taskRequest(1, "tasks/get", job?.taskId);
  check("tasks: replica 2 sees it working", working?.result?.status === "working", working);
  const ack = await taskRequest(2, "tasks/cancel", job?.taskId);
  check("tasks: cancelled on replica 3", ack?.result?.resultType === "complete", ack);
  const after = await taskRequest(1, "tasks/get", job?.taskId);
  check("tasks: replica 2 sees it cancelled at once", after?.result?.status === "cancelled", after);
  // The replica that runs it stops the tool when it next reads the table (its own record says so).
  const { last } = await pollTask([0], job?.taskId, "cancelled", 10_000);
  check("tasks: the replica that runs it has stopped it", last?.result?.status === "cancelled", last);
  check("tasks: the cancelled run recorded nothing in kb_index_runs", runsOf(job?.taskId) === 0);
  // One to lose: started on replica 2, which the next part kills in the middle of a walk.
  lostTask = (await startTask(1, "reindex_knowledge_base", {}))?.taskId;
  check("tasks: a second job runs on replica 2", typeof lostTask === "string", lostTask);
}

// --- replica 2 killed with SIGKILL in the middle of a walk --------------------------------------
{
  const w = await walk(filter, 5, {}, async (page) => {
    if (page === 2) {
      process.kill(pids[1], "SIGKILL");
      dead.add(1);
    }
  });
  check("a walk goes on after replica 2 died, on the others, with the same cursor",
        w.env?.complete === true && JSON.stringify(w.ids) === JSON.stringify(truth), w.error ?? w.ids.length);
  // Its task: failed with TASK_LOST on the others once its lease (15 s) has passed.
  const { last, seen } = await pollTask([0, 2], lostTask, "failed", 40_000);
  check("tasks: the task of the killed replica is failed with TASK_LOST on replicas 1 and 3",
        last?.result?.status === "failed" && last?.result?.error?.data?.code === "TASK_LOST" && seen.has(0) && seen.has(2),
        last);
  check("tasks: the lost run recorded nothing in kb_index_runs", runsOf(lostTask) === 0);
}

// --- the replica holding a foreign walk's snapshot killed with SIGKILL ---------------------------
// Its holder connection dies with it; PostgreSQL ends the exported snapshot, and the walk's next
// page on another replica answers SNAPSHOT_EXPIRED — never a page read outside the snapshot.
{
  const first = await callTool(2, "search_customers", { page_size: 50 });
  const cursor = first.env?.continuation?.cursor;
  // The exported snapshot's id names its holder's virtual transaction ("0000000B-0000000L-n"),
  // whose lock the holder keeps while it lives.
  const [backend, local] = String(first.env?.page?.snapshot ?? "").split("-").map((h) => parseInt(h, 16));
  const holderAlive = () =>
    Number(psql(`SELECT count(*) FROM pg_locks WHERE locktype = 'virtualxid' AND virtualxid = '${backend}/${local}'`)) > 0;
  check("a foreign walk starts on replica 3 and holds an exported snapshot there",
        !!cursor && Number.isInteger(backend) && holderAlive(), first.env);
  process.kill(pids[2], "SIGKILL");
  dead.add(2);
  // Wait for the event: PostgreSQL has ended the dead replica's holder.
  for (let attempt = 0; attempt < 600 && holderAlive(); ++attempt) await new Promise((ok) => setTimeout(ok, 50));
  const next = await callTool(0, "search_customers", { page_size: 50, cursor });
  check("after its holder died, the walk's next page answers SNAPSHOT_EXPIRED with a restart",
        errorCode(next.env) === "SNAPSHOT_EXPIRED" && next.env?.continuation?.kind === "restart", next.env);
}

// --- PostgreSQL stopped for a moment -------------------------------------------------------------
{
  const before = psql("SELECT count(*) FROM service_accounts WHERE archived = 1 AND candor_to IS NULL");
  const since = psql("SELECT now()");
  const job = await startTask(0, "reindex_knowledge_base", {});
  // Wait for the event: the task has read the articles, its one read before a minute of work.
  // Stopped before that read ends, PostgreSQL fails the task at once (SOURCE_UNAVAILABLE, the
  // tool's own answer); this part is about a task that is working when the database goes.
  const articlesRead = () => Number(psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE " +
    `'SELECT id, title, body FROM kb_articles%' AND state <> 'active' AND state_change >= '${since}'`)) > 0;
  for (let attempt = 0; attempt < 400 && !articlesRead(); ++attempt) await new Promise((ok) => setTimeout(ok, 50));
  execSync(process.env.PG_STOP);
  const meanwhile = await taskRequest(0, "tasks/get", job?.taskId);
  check("PostgreSQL down: the replica running a task still answers for it", meanwhile?.result?.status === "working",
        meanwhile);
  const read = await callTool(0, "search_tickets", { filter, page_size: 5 });
  check("PostgreSQL down: a read answers SOURCE_UNAVAILABLE, not complete",
        read.env?.complete === false && reasons(read.env).includes("SOURCE_UNAVAILABLE"), read.env);
  check("PostgreSQL down: the read answers within its deadline", read.ms < 30_000, read.ms);
  const order = await callTool(0, "create_order_draft", { customer_id: "cust-4", currency: "USD",
    delivery_date: "2099-12-01", discount: 0, total: 9, lines: [{ sku: "SKU-003", quantity: 2, unit_price: 4.5 }] });
  check("PostgreSQL down: a write is refused, not done", order.isError === true, order.env);
  check("PostgreSQL down: the write answers within its deadline", order.ms < 30_000, order.ms);
  execSync(process.env.PG_START);
  const w = await walk(filter, 50);
  check("PostgreSQL back: a walk across the live replicas is complete and exact",
        w.env?.complete === true && JSON.stringify(w.ids) === JSON.stringify(truth), w.error ?? w.ids.length);
  const after = psql("SELECT count(*) FROM service_accounts WHERE archived = 1 AND candor_to IS NULL");
  check("PostgreSQL back: nothing was applied twice or lost", after === before, { before, after });
  const ack = await taskRequest(0, "tasks/cancel", job?.taskId);
  const ended = await taskRequest(0, "tasks/get", job?.taskId);
  check("PostgreSQL back: the task that ran through it is still there, and is cancelled",
        ack?.result !== undefined && ended?.result?.status === "cancelled", ended);
}

finish();
