// SPDX-License-Identifier: BSL-1.0
// End-to-end tests of the helpdesk demo with the official MCP TypeScript SDK clients.
//   node helpdesk_e2e.mjs stdio /path/to/helpdesk WORKDIR [CLIENT]
//   node helpdesk_e2e.mjs http MAIN_URL FAULTS_URL [CLIENT]     (see run-helpdesk.sh)
// CLIENT: `v1` (default; @modelcontextprotocol/sdk 1.x, protocol 2025-11-25), `v2` (the 2.x
// client, @modelcontextprotocol/client, in its default legacy era: 2025-11-25 with a session)
// or `v2-stateless` (the 2.x client pinned to 2026-07-28: no session, per-request _meta,
// elicitation through input_required results and request state, which the client fulfils with
// the same handler). The SDKs validate every structuredContent against the tool's outputSchema,
// so each call that returns also proves the envelope matches the advertised schema.
import { check, finish } from "./check.mjs";

const [mode, a, b, flavour = "v1"] = process.argv.slice(2);
const sdk = await loadClient(flavour);

// The client classes and how to wire an elicitation handler, per SDK generation.
async function loadClient(name) {
  if (name === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    return {
      Client, StdioClientTransport, StreamableHTTPClientTransport, options: {}, version: "2025-11-25",
      callTool: (client, params, timeout) => client.callTool(params, undefined, { timeout }),
      onElicit: (client, fn) => client.setRequestHandler(ElicitRequestSchema, async (req) => fn(req.params)),
    };
  }
  if (name !== "v2" && name !== "v2-stateless") throw new Error(`unknown client ${name}`);
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  return {
    Client, StdioClientTransport, StreamableHTTPClientTransport,
    options: name === "v2-stateless" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    version: name === "v2-stateless" ? "2026-07-28" : "2025-11-25",
    callTool: (client, params, timeout) => client.callTool(params, { timeout }),
    onElicit: (client, fn) => client.setRequestHandler("elicitation/create", async (req) => fn(req.params)),
  };
}

const clients = [];
// elicit: null (the client cannot elicit: archive goes through plan + plan_token), or a function
// answering each elicitation/create request.
async function connect(principal, faults, elicit = null) {
  let transport;
  if (mode === "stdio") {
    const db = `${b}/${faults ? "faults" : "main"}.db`;
    const args = ["--stdio", "--db", db];
    if (faults) args.push("--slow-source", "chat", "--fail-source", "knowledge_base", "--token-ttl", "1");
    else args.push("--kb-stale-after", "0");
    transport = new sdk.StdioClientTransport({
      command: a,
      args,
      env: { CANDOR_PRINCIPAL: principal, CANDOR_SEALING_KEYS: process.env.CANDOR_SEALING_KEYS },
      stderr: "ignore",
    });
  } else {
    transport = new sdk.StreamableHTTPClientTransport(new URL(faults ? b : a), {
      requestInit: { headers: { Authorization: `Bearer ${principal}-token` } },
    });
  }
  const client = new sdk.Client({ name: `helpdesk-e2e-${principal}`, version: "1.0.0" },
                                { ...sdk.options, ...(elicit ? { capabilities: { elicitation: {} } } : {}) });
  if (elicit) sdk.onElicit(client, elicit);
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client, name, args) {
  const r = await sdk.callTool(client, { name, arguments: args }, 120000);
  return { isError: r.isError === true, env: r.structuredContent };
}
const codes = (env) => (env?.incomplete_reasons ?? []).map((r) => r.code);
const errorCode = (env) => env?.errors?.[0]?.code;
// The two-step approval of a client that cannot elicit: the first call answers the plan and a
// plan_token; the user approves; the same call again with the token acts.
async function archiveApproved(client, args) {
  const plan = await call(client, "archive_service_accounts", args);
  if (!(plan.isError && errorCode(plan.env) === "PLAN_TOKEN_REQUIRED")) return plan;
  return call(client, "archive_service_accounts", { ...args, plan_token: plan.env.errors[0].plan_token });
}

try {
  const admin = await connect("admin", false);
  const teamA = await connect("team-a", false);
  check(`the client speaks ${sdk.version}`, admin.getServerVersion() !== undefined &&
        (admin.getNegotiatedProtocolVersion?.() ?? "2025-11-25") === sdk.version, admin.getNegotiatedProtocolVersion?.());

  // --- tools are there, with their action classes -------------------------------------------
  const { tools } = await admin.listTools();
  const names = tools.map((t) => t.name).sort();
  check("the helpdesk tools are listed",
        ["archive_service_accounts", "create_order_draft", "find_unowned_accounts", "list_service_accounts", "search_everywhere",
         "search_tickets"]
          .every((n) => names.includes(n)), names);
  const archiveTool = tools.find((t) => t.name === "archive_service_accounts");
  check("archive_service_accounts is destructive", archiveTool?.annotations?.destructiveHint === true);

  // --- the dept-3/open walk over 10,000 tickets ----------------------------------------------
  {
    const filter = { and: [{ department: "dept-3" }, { status: "open" }] };
    const seen = [];
    let cursor;
    let pages = 0;
    let onlyLastComplete = true;
    let lastComplete = false;
    for (;;) {
      const { isError, env } = await call(admin, "search_tickets", cursor ? { filter, page_size: 100, cursor } : { filter, page_size: 100 });
      if (isError) { check("search_tickets pages are not errors", false, env); break; }
      pages++;
      for (const t of env.data) seen.push(t.id);
      const next = env.continuation?.cursor;
      if (!next) { lastComplete = env.complete === true && env.status === "complete" && typeof env.snapshot_token === "string"; break; }
      // A page of 100 tickets may end early to fit the 24,000-byte result budget.
      if (env.complete !== false ||
          !(codes(env).includes("MORE_PAGES_AVAILABLE") || codes(env).includes("RESULT_SIZE_LIMIT")))
        onlyLastComplete = false;
      cursor = next;
      if (pages > 400) break;
    }
    const expected = [];
    for (let i = 1; i <= 10000; i++) if (i % 24 === 3) expected.push("T-" + String(i).padStart(6, "0"));
    check("dept-3/open walk returns exactly the ids with i = 3 (mod 24), in order",
          JSON.stringify(seen) === JSON.stringify(expected), { got: seen.length, expected: expected.length });
    check("each id once", new Set(seen).size === seen.length);
    check("every page but the last is incomplete with MORE_PAGES_AVAILABLE or RESULT_SIZE_LIMIT",
          onlyLastComplete && pages >= 5, { pages });
    check("the last page is complete and carries a snapshot_token", lastComplete);
  }

  // --- filter problems are repairable errors with a path ------------------------------------
  {
    const { isError, env } = await call(admin, "search_tickets", { filter: { and: [{ department: "dept-3" }, { stat: "open" }] } });
    check("unknown filter field: FILTER_UNKNOWN_FIELD at /filter/and/1/stat",
          isError && errorCode(env) === "FILTER_UNKNOWN_FIELD" && env.errors[0].path === "/filter/and/1/stat" && env.errors[0].repairable === true, env);
    const hostile = await call(admin, "search_tickets", { filter: { title: "' OR 1=1 --" } });
    check("a hostile value is only a value", !hostile.isError && hostile.env.complete === true && hostile.env.data.length === 0, hostile.env);
  }

  // --- team-a: the inventory is incomplete and cannot archive ------------------------------
  let teamAToken;
  {
    const list = await call(teamA, "list_service_accounts", { owner_missing: true });
    check("team-a's list says VISIBILITY_RESTRICTED", codes(list.env).includes("VISIBILITY_RESTRICTED"), list.env);
    check("team-a sees only team-a accounts", list.env.data.every((x) => x.team === "team-a"));
    const inv = await call(teamA, "find_unowned_accounts", {});
    teamAToken = inv.env.snapshot_token;
    check("team-a's inventory is incomplete (VISIBILITY_RESTRICTED)",
          inv.env.complete === false && codes(inv.env).includes("VISIBILITY_RESTRICTED") && typeof teamAToken === "string", inv.env);
    const ids = inv.env.data.slice(0, 2).map((x) => x.id);
    const refused = await call(teamA, "archive_service_accounts", { ids, snapshot_token: teamAToken });
    check("team-a cannot archive: EVIDENCE_INCOMPLETE", refused.isError && errorCode(refused.env) === "EVIDENCE_INCOMPLETE", refused.env);
  }

  // --- admin: a complete inventory archives exactly the requested ids -----------------------
  {
    const inv = await call(admin, "find_unowned_accounts", {});
    const all = inv.env.data.map((x) => x.id);
    const expected = [];
    for (let j = 7; j <= 500; j += 7) expected.push("svc-" + String(j).padStart(3, "0"));
    check("admin's inventory is complete with a snapshot_token",
          inv.env.complete === true && typeof inv.env.snapshot_token === "string", inv.env);
    check("admin's inventory is every unowned account", JSON.stringify(all) === JSON.stringify(expected), all);
    const token = inv.env.snapshot_token;
    const ids = ["svc-007", "svc-014", "svc-070"];
    // Approval, two-step (this client cannot elicit): the plan first, nothing archived yet.
    const planned = await call(admin, "archive_service_accounts", { ids, snapshot_token: token });
    const planIssue = planned.env?.errors?.[0];
    check("the first archive call answers the plan: PLAN_TOKEN_REQUIRED with the targets",
          planned.isError && planIssue?.code === "PLAN_TOKEN_REQUIRED" && planIssue.repairable === true &&
          JSON.stringify(planIssue.plan?.targets) === JSON.stringify(ids) && planIssue.plan?.evidence?.complete === true &&
          typeof planIssue.plan_token === "string", planned.env);
    const planToken = planIssue?.plan_token ?? "";
    const stillThere = await call(admin, "find_unowned_accounts", {});
    check("nothing is archived before approval", stillThere.env.data.length === expected.length, stillThere.env.data.length);
    const otherIds = await call(admin, "archive_service_accounts", { ids: ["svc-007"], snapshot_token: token, plan_token: planToken });
    check("a plan_token for other ids: PLAN_TOKEN_MISMATCH", otherIds.isError && errorCode(otherIds.env) === "PLAN_TOKEN_MISMATCH", otherIds.env);
    const forged = planToken.slice(0, 12) + (planToken[12] === "A" ? "B" : "A") + planToken.slice(13);
    const tampered = await call(admin, "archive_service_accounts", { ids, snapshot_token: token, plan_token: forged });
    check("a tampered plan_token: PLAN_TOKEN_INVALID", tampered.isError && errorCode(tampered.env) === "PLAN_TOKEN_INVALID", tampered.env);
    const done = await call(admin, "archive_service_accounts", { ids, snapshot_token: token, plan_token: planToken });
    check("admin archives exactly the requested ids once approved",
          !done.isError && JSON.stringify(done.env.data.archived) === JSON.stringify(ids) && done.env.data.skipped.length === 0, done.env);
    const replayed = await call(admin, "archive_service_accounts", { ids, snapshot_token: token, plan_token: planToken });
    check("an executed plan_token runs once: PLAN_TOKEN_USED", replayed.isError && errorCode(replayed.env) === "PLAN_TOKEN_USED", replayed.env);
    const again = await archiveApproved(admin, { ids: ["svc-007"], snapshot_token: token });
    check("archiving again re-checks and skips (ACCOUNT_ALREADY_ARCHIVED)",
          !again.isError && again.env.data.archived.length === 0 && again.env.data.skipped[0]?.code === "ACCOUNT_ALREADY_ARCHIVED" &&
          (again.env.warnings ?? []).some((w) => w.code === "OBJECTS_SKIPPED"), again.env);
    const after = await call(admin, "find_unowned_accounts", {});
    check("archived accounts leave the inventory", after.env.data.length === expected.length - 3, after.env.data.length);

    // Every EVIDENCE_* code.
    const missing = await call(admin, "archive_service_accounts", { ids: ["svc-021"] });
    check("EVIDENCE_MISSING without a token", missing.isError && errorCode(missing.env) === "EVIDENCE_MISSING", missing.env);
    const flipped = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11);
    const invalid = await call(admin, "archive_service_accounts", { ids: ["svc-021"], snapshot_token: flipped });
    check("EVIDENCE_INVALID for a tampered token", invalid.isError && errorCode(invalid.env) === "EVIDENCE_INVALID", invalid.env);
    const notCovered = await call(admin, "archive_service_accounts", { ids: ["svc-021", "svc-001"], snapshot_token: token });
    check("EVIDENCE_NOT_COVERED names the uncovered id",
          notCovered.isError && errorCode(notCovered.env) === "EVIDENCE_NOT_COVERED" &&
          JSON.stringify(notCovered.env.errors[0].ids) === JSON.stringify(["svc-001"]), notCovered.env);
    const replay = await call(teamA, "archive_service_accounts", { ids: ["svc-014"], snapshot_token: token });
    check("EVIDENCE_SCOPE_MISMATCH for another principal's token",
          replay.isError && errorCode(replay.env) === "EVIDENCE_SCOPE_MISMATCH", replay.env);
    const tickets = await call(admin, "search_tickets", { filter: { id: "T-000001" } });
    const otherResource = await call(admin, "archive_service_accounts", { ids: ["svc-021"], snapshot_token: tickets.env.snapshot_token });
    check("EVIDENCE_SCOPE_MISMATCH for another collection's token",
          otherResource.isError && errorCode(otherResource.env) === "EVIDENCE_SCOPE_MISMATCH", otherResource.env);
    const short = await call(admin, "find_unowned_accounts", { max_pages: 1 });
    check("a walk stopped by max_pages is CLIENT_PAGE_LIMIT with a continuation",
          short.env.complete === false && codes(short.env).includes("CLIENT_PAGE_LIMIT") && typeof short.env.continuation?.cursor === "string", short.env);
    const incomplete = await call(admin, "archive_service_accounts", { ids: ["svc-021"], snapshot_token: short.env.snapshot_token });
    check("EVIDENCE_INCOMPLETE for a stopped walk", incomplete.isError && errorCode(incomplete.env) === "EVIDENCE_INCOMPLETE", incomplete.env);
    const resumed = await call(admin, "find_unowned_accounts", { cursor: short.env.continuation.cursor });
    check("the continuation resumes the walk where it stopped",
          resumed.env.data.length + short.env.data.length === expected.length - 3, { first: short.env.data.length, rest: resumed.env.data.length });
  }

  // --- approval through elicitation: decline, narrow, proceed ---------------------------------
  {
    const answers = [];
    const asked = [];
    const asker = await connect("admin", false, (params) => {
      asked.push(params);
      return answers.shift() ?? { action: "cancel" };
    });
    const inv = await call(asker, "find_unowned_accounts", {});
    const token = inv.env.snapshot_token;
    const ids = ["svc-021", "svc-028"];
    answers.push({ action: "decline" });
    const declined = await call(asker, "archive_service_accounts", { ids, snapshot_token: token });
    check("the user is asked through elicitation/create, with the targets in the message",
          asked.length === 1 && asked[0].message.includes("svc-021") && asked[0].message.includes("svc-028") &&
          asked[0].requestedSchema?.properties?.decision !== undefined, asked[0]);
    check("a declined approval: ACTION_DECLINED", declined.isError && errorCode(declined.env) === "ACTION_DECLINED", declined.env);
    answers.push({ action: "accept", content: { decision: "narrow", ids: "svc-028" } });
    const narrowed = await call(asker, "archive_service_accounts", { ids, snapshot_token: token });
    check("narrowed by the user: only that id archived, the other skipped with NARROWED_BY_USER",
          !narrowed.isError && JSON.stringify(narrowed.env.data.archived) === JSON.stringify(["svc-028"]) &&
          narrowed.env.data.skipped.length === 1 && narrowed.env.data.skipped[0].id === "svc-021" &&
          narrowed.env.data.skipped[0].code === "NARROWED_BY_USER", narrowed.env);
    answers.push({ action: "accept", content: { decision: "proceed" } });
    const proceeded = await call(asker, "archive_service_accounts", { ids: ["svc-021"], snapshot_token: token });
    check("approved through elicitation: archived",
          !proceeded.isError && JSON.stringify(proceeded.env.data.archived) === JSON.stringify(["svc-021"]), proceeded.env);
  }

  // --- create_order_draft over the SQLite catalog --------------------------------------------
  {
    const order = (over) => ({
      customer_id: "cust-3", currency: "USD", delivery_date: "2099-12-01", discount: 0, total: 9,
      lines: [{ sku: "SKU-003", quantity: 2, unit_price: 4.5 }], ...over,
    });
    const ok = await call(admin, "create_order_draft", order({}));
    check("a valid draft is stored and its id returned",
          !ok.isError && ok.env.complete === true && /^D-\d{6}$/.test(ok.env.data?.draft_id ?? "") && Number(ok.env.data.total) === 9, ok.env);
    const second = await call(admin, "create_order_draft", order({}));
    check("each draft gets its own id", !second.isError && second.env.data?.draft_id !== ok.env.data?.draft_id, second.env);
    const blocked = await call(admin, "create_order_draft", order({ customer_id: "cust-blocked" }));
    check("cust-blocked: PERMISSION_DENIED, not repairable",
          blocked.isError && blocked.env.errors.some((e) => e.code === "PERMISSION_DENIED" && e.repairable === false), blocked.env);
    const unknown = await call(admin, "create_order_draft", order({ lines: [{ sku: "SKU-3", quantity: 2, unit_price: 4.5 }] }));
    const sku = unknown.env?.errors?.find((e) => e.code === "UNKNOWN_SKU");
    check("an unknown SKU: UNKNOWN_SKU at /lines/0/sku with SKU-003 first among the candidates",
          unknown.isError && sku?.path === "/lines/0/sku" && sku?.candidates?.[0] === "SKU-003", unknown.env);
    const stale = await call(admin, "create_order_draft", order({ lines: [{ sku: "SKU-003", quantity: 2, unit_price: 4 }], total: 8 }));
    check("a stale price is replaced by the catalog's (VALUE_NORMALIZED) and the total recomputed",
          !stale.isError && Number(stale.env.data?.total) === 9 && (stale.env.warnings ?? []).some((w) => w.code === "VALUE_NORMALIZED"), stale.env);
    const discount = await call(admin, "create_order_draft", order({ discount: 21.6, total: 0 }));
    check("a discount above the subtotal: DISCOUNT_EXCEEDS_SUBTOTAL",
          discount.isError && discount.env.errors.some((e) => e.code === "DISCOUNT_EXCEEDS_SUBTOTAL"), discount.env);
  }

  // --- search_everywhere -------------------------------------------------------------------
  {
    const all = await call(admin, "search_everywhere", { query: "printer" });
    check("search_everywhere answers from every source",
          !all.isError && ["tickets", "knowledge_base", "chat"].every((s) => s in (all.env.data ?? {})), all.env);
    const stale = (all.env.warnings ?? []).find((w) => w.code === "STALE_INDEX");
    check("the knowledge base says STALE_INDEX with its source and refresh time",
          stale?.source === "knowledge_base" && typeof stale?.refreshed_at === "string", all.env.warnings);
  }

  // --- faults: a late source, a failing source, an expired token ------------------------------
  {
    const faults = await connect("admin", true);
    const started = Date.now();
    const r = await call(faults, "search_everywhere", { query: "printer", deadline_ms: 500 });
    const elapsed = Date.now() - started;
    const unavailable = (r.env.incomplete_reasons ?? []).filter((x) => x.code === "SOURCE_UNAVAILABLE");
    check("a late and a failing source are each SOURCE_UNAVAILABLE, the other kept",
          r.env.complete === false && unavailable.some((x) => x.source === "chat" && x.cause === "late") &&
          unavailable.some((x) => x.source === "knowledge_base" && x.cause === "failed") && Array.isArray(r.env.data?.tickets), r.env);
    check("the late source did not hold the answer back", elapsed < 4000, elapsed);
    const inv = await call(faults, "find_unowned_accounts", {});
    await new Promise((res) => setTimeout(res, 1500));
    const expired = await call(faults, "archive_service_accounts", { ids: ["svc-007"], snapshot_token: inv.env.snapshot_token });
    check("EVIDENCE_EXPIRED after the token's lifetime", expired.isError && errorCode(expired.env) === "EVIDENCE_EXPIRED", expired.env);
  }
} catch (e) {
  check("no exception", false, e?.stack ?? String(e));
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
finish();
