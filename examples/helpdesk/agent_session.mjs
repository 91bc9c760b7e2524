// SPDX-License-Identifier: BSL-1.0
// A scripted agent session with the helpdesk (plain Node, no packages): what an agent sees when
// it pages through tickets, inventories service accounts and archives some.
//   node agent_session.mjs /path/to/helpdesk /path/to/helpdesk.db     over stdio, one process per principal
//   node agent_session.mjs --http URL ADMIN_TOKEN TEAM_A_TOKEN         over Streamable HTTP (a running
//                                                                      helpdesk --tokens; one session per principal)
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const overHttp = argv[0] === "--http";
const initParams = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "demo-agent", version: "1" } };

function startStdio(principal) {
  const [server, db] = argv;
  const child = spawn(server, ["--stdio", "--db", db], {
    env: { ...process.env, CANDOR_PRINCIPAL: principal },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const msg = JSON.parse(line);
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  let next = 1;
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return {
    async init() {
      await request("initialize", initParams);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    },
    request,
    stop() {
      child.stdin.end();
    },
  };
}

function startHttp(principal) {
  const [, url, adminToken, teamToken] = argv;
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${principal === "admin" ? adminToken : teamToken}`,
  };
  let next = 1;
  const post = async (message) => {
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
    if (r.headers.get("mcp-session-id")) headers["Mcp-Session-Id"] = r.headers.get("mcp-session-id");
    const text = await r.text();
    if (!(r.headers.get("content-type") || "").startsWith("text/event-stream")) return text ? JSON.parse(text) : null;
    // An SSE stream: the answer is the event whose message carries the request's id.
    // (A priming event, on the 2025-11-25 wire, has an empty data line: no message.)
    const messages = text.split("\n").filter((l) => l.startsWith("data:") && l.slice(5).trim())
      .map((l) => JSON.parse(l.slice(5)));
    return messages.find((m) => m.id === message.id);
  };
  const request = (method, params) => post({ jsonrpc: "2.0", id: next++, method, params });
  return {
    async init() {
      await request("initialize", initParams);
      await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
    request,
    stop() {
      return fetch(url, { method: "DELETE", headers });
    },
  };
}

function start(principal) {
  const session = overHttp ? startHttp(principal) : startStdio(principal);
  return {
    ...session,
    async call(name, args, meta) {
      const r = await session.request("tools/call", { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
      return r.result.structuredContent;
    },
  };
}

const show = (label, args, env, pick) => {
  console.log(`\n> ${label} ${JSON.stringify(args)}`);
  const summary = { status: env.status, complete: env.complete };
  if (env.incomplete_reasons?.length) summary.incomplete_reasons = env.incomplete_reasons.map(({ code, message, ...rest }) => ({ code, ...rest }));
  if (env.warnings?.length) summary.warnings = env.warnings.map(({ code, message, ...rest }) => ({ code, ...rest }));
  if (env.errors?.length)
    summary.errors = env.errors.map((e) =>
      e.plan_token ? { ...e, plan_token: e.plan_token.slice(0, 16) + "…" } : e);
  Object.assign(summary, pick ? pick(env) : {});
  if (env.continuation) summary.continuation = { ...env.continuation, ...(env.continuation.cursor ? { cursor: env.continuation.cursor.slice(0, 16) + "…" } : {}) };
  if (env.snapshot_token) summary.snapshot_token = env.snapshot_token.slice(0, 16) + "…";
  console.log(JSON.stringify(summary, null, 1).replace(/\n\s*/g, " "));
};

const admin = start("admin");
await admin.init();

let args = { filter: { and: [{ department: "dept-3" }, { status: "open" }] }, page_size: 5 };
let env = await admin.call("search_tickets", args);
show("admin: search_tickets", args, env, (e) => ({ ids: e.data.map((t) => t.id), page: e.page }));

args = { filter: { and: [{ department: "dept-3" }, { stat: "open" }] } };
env = await admin.call("search_tickets", args);
show("admin: search_tickets (a typo in the filter)", args, env);

const teamA = start("team-a");
await teamA.init();
env = await teamA.call("find_unowned_accounts", {});
show("team-a: find_unowned_accounts", {}, env, (e) => ({ accounts: e.data.length }));
args = { ids: ["svc-014"], snapshot_token: env.snapshot_token };
env = await teamA.call("archive_service_accounts", args);
show("team-a: archive_service_accounts", { ids: args.ids, snapshot_token: "<team-a's token>" }, env);
await teamA.stop();

env = await admin.call("find_unowned_accounts", {});
const token = env.snapshot_token;
show("admin: find_unowned_accounts", {}, env, (e) => ({ accounts: e.data.length, first: e.data.slice(0, 3).map((a) => a.id) }));

const tampered = token.slice(0, 20) + (token[20] === "x" ? "y" : "x") + token.slice(21);
env = await admin.call("archive_service_accounts", { ids: ["svc-007", "svc-014"], snapshot_token: tampered });
show("admin: archive_service_accounts", { ids: ["svc-007", "svc-014"], snapshot_token: "<one character changed>" }, env);

env = await admin.call("archive_service_accounts", { ids: ["svc-007", "svc-001"], snapshot_token: token });
show("admin: archive_service_accounts", { ids: ["svc-007", "svc-001"], snapshot_token: "<admin's token>" }, env);

args = { ids: ["svc-007", "svc-014"], snapshot_token: token };
env = await admin.call("archive_service_accounts", args);
show("admin: archive_service_accounts", { ids: args.ids, snapshot_token: "<admin's token>" }, env);
// This client cannot elicit, so approval is two-step: the user reads the plan above and says yes.
const planToken = env.errors[0].plan_token;
env = await admin.call("archive_service_accounts", { ...args, plan_token: planToken });
show("admin: archive_service_accounts (the user approved the plan)",
     { ids: args.ids, snapshot_token: "<admin's token>", plan_token: "<the plan's token>" }, env, (e) => ({ data: e.data }));

env = await admin.call("archive_service_accounts", { ...args, plan_token: planToken });
show("admin: archive_service_accounts (the same plan_token again)",
     { ids: args.ids, snapshot_token: "<admin's token>", plan_token: "<the plan's token>" }, env);

args = { ids: ["svc-007"], snapshot_token: token };
env = await admin.call("archive_service_accounts", args);
env = await admin.call("archive_service_accounts", { ...args, plan_token: env.errors[0].plan_token });
show("admin: archive_service_accounts (svc-007 again, approved)",
     { ids: ["svc-007"], snapshot_token: "<admin's token>", plan_token: "<its plan's token>" }, env, (e) => ({ data: e.data }));

const order = { customer_id: "cust-3", currency: "USD", delivery_date: "2099-12-01", discount: 0, total: 8,
                lines: [{ sku: "SKU-003", quantity: 2, unit_price: 4 }] };
env = await admin.call("create_order_draft", order);
show("admin: create_order_draft (a stale unit price)", order, env, (e) => ({ data: e.data }));
args = { ...order, customer_id: "cust-blocked", lines: [{ sku: "SKU-3", quantity: 2, unit_price: 4 }] };
env = await admin.call("create_order_draft", args);
show("admin: create_order_draft", args, env);

args = { query: "printer" };
env = await admin.call("search_everywhere", args);
show("admin: search_everywhere", args, env, (e) => ({ found: Object.fromEntries(Object.entries(e.data).map(([k, v]) => [k, v.length])) }));

// Results that fit the reader: a page of 100 tickets (each with a description of up to 3 KB)
// ends at the last whole ticket that fits the server's 24,000-byte budget, with a cursor right
// after it; asking for fewer fields fits more tickets in a page.
args = { filter: { department: "dept-3" }, page_size: 100 };
env = await admin.call("search_tickets", args);
show("admin: search_tickets (results of 24,000 bytes at most)", args, env,
     (e) => ({ returned: e.data.length, last: e.data.at(-1)?.id }));
args = { filter: { department: "dept-3" }, page_size: 100, fields: ["id", "title", "status"] };
env = await admin.call("search_tickets", args);
show("admin: search_tickets (fewer fields)", args, env,
     (e) => ({ returned: e.data.length, last: e.data.at(-1)?.id }));
// An article longer than the result may be: its body is cut with a way to the rest.
args = { id: "kb-009" };
env = await admin.call("read_article", args, { "io.candor/maxResultBytes": 6000 });
show("admin: read_article (a long article, 6,000 bytes at most)", args, env,
     (e) => ({ body_bytes: e.data.body.length, length: e.data.length }));
// A table the helpdesk does not own: helpdesk-writer inserts, renames and deletes customers with
// plain SQL while the agent walks them; the walk still reads one snapshot (stdio only: the
// writer needs the database's path).
if (!overHttp) {
  const writer = spawn(join(dirname(argv[0]), "helpdesk-writer"), ["--db", argv[1], "--changes", "2000", "--every-ms", "1"],
                       { stdio: ["ignore", "pipe", "inherit"] });
  const said = [];
  const lines = createInterface({ input: writer.stdout });
  const started = new Promise((resolve) => lines.on("line", (l) => { said.push(l); if (l === "writing") resolve(); }));
  const ended = new Promise((resolve) => writer.on("exit", resolve));
  await started;
  const walkCustomers = async () => {
    const ids = []; let cursor, pages = 0, last;
    for (;;) {
      const a = { page_size: 100, ...(cursor ? { cursor } : {}) };
      last = await admin.call("search_customers", a);
      pages++;
      for (const c of last.data ?? []) ids.push(c.id);
      cursor = last.continuation?.cursor;
      if (!cursor || pages > 100) return { ids, pages, last };
    }
  };
  const during = await walkCustomers();
  writer.kill("SIGTERM");
  await ended;
  const after = await walkCustomers();
  args = { page_size: 100 };
  show("admin: search_customers, every page, while helpdesk-writer changes customers with plain SQL", args, during.last,
       (e) => ({ pages: during.pages, customers: during.ids.length, distinct: new Set(during.ids).size,
                 writer: said.at(-1), walked_again: after.ids.length, snapshot_token: e.snapshot_token }));

  // Acting on what the walk found: another program renames one of the three customers first,
  // and that one is skipped (TARGET_CHANGED) — nobody saw it as it is now.
  const picked = after.ids.filter((id) => /^cust-\d+$/.test(id)).slice(0, 3);
  const renamed = spawn(join(dirname(argv[0]), "helpdesk-writer"), ["--db", argv[1], "--rename", picked[1]],
                        { stdio: "ignore" });
  await new Promise((resolve) => renamed.on("exit", resolve));
  args = { ids: picked, snapshot_token: "<the last walk's token>" };
  env = await admin.call("suspend_customers", { ids: picked, snapshot_token: after.last.snapshot_token });
  show(`admin: suspend_customers (after another program renamed ${picked[1]})`, args, env,
       (e) => ({ data: e.data }));
}
await admin.stop();
