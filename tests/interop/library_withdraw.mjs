// SPDX-License-Identifier: BSL-1.0
// The action tutorial's example (examples/library, docs/first-approved-action.md) driven with the
// official SDK client over stdio, as the page says it behaves:
//   node library_withdraw.mjs /path/to/library
// The client declares no elicitation, so approval takes the two-step plan token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { check, finish } from "./check.mjs";

const [library] = process.argv.slice(2);
const clients = [];

async function connect(caller) {
  const transport = new StdioClientTransport({ command: library, args: ["--stdio"], env: { LIBRARY_CALLER: caller }, stderr: "ignore" });
  const client = new Client({ name: `library-${caller}`, version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, env: r.structuredContent };
}
const code = (r) => r.env?.errors?.[0]?.code;

try {
  const librarian = await connect("librarian");
  const guest = await connect("guest");

  const { tools } = await librarian.listTools();
  const withdraw = tools.find((t) => t.name === "withdraw_books");
  check("withdraw_books takes reason, ids, snapshot_token and plan_token",
        ["reason", "ids", "snapshot_token", "plan_token"].every((k) => k in (withdraw?.inputSchema?.properties ?? {})) &&
          JSON.stringify(withdraw.inputSchema.required?.sort()) === JSON.stringify(["ids", "reason"]),
        withdraw?.inputSchema);
  check("withdraw_books is destructive", withdraw?.annotations?.destructiveHint === true, withdraw?.annotations);

  const found = await call(librarian, "lookup_book", { isbn: "978-1000007" });
  check("lookup_book finds a book", !found.isError && found.env.data.title === "Book 7", found.env);
  const missing = await call(librarian, "lookup_book", { isbn: "978-0" });
  check("a missing book is BOOK_NOT_FOUND at /isbn", missing.isError && code(missing) === "BOOK_NOT_FOUND" &&
        missing.env.errors[0].path === "/isbn", missing.env);

  // A complete walk of one author's books: 125 of them, two pages.
  const ids = [];
  let last;
  let cursor;
  for (let pages = 0; pages < 10; pages++) {
    const page = await call(librarian, "search_books", { filter: { author: "Author 7" }, page_size: 100, ...(cursor ? { cursor } : {}) });
    last = page.env;
    for (const b of last.data) ids.push(b.isbn);
    cursor = last.continuation?.cursor;
    if (!cursor) break;
  }
  check("the walk is complete and earns a snapshot token", ids.length === 125 && last.complete === true &&
        typeof last.snapshot_token === "string", { ids: ids.length, complete: last.complete });
  const token = last.snapshot_token;
  const two = [ids[0], ids[1]];
  const args = { reason: "water damage", ids: two, snapshot_token: token };

  const refused = await call(guest, "withdraw_books", args);
  check("a guest is refused before anyone is asked (PERMISSION_DENIED)", refused.isError && code(refused) === "PERMISSION_DENIED", refused.env);
  const noToken = await call(librarian, "withdraw_books", { reason: "water damage", ids: two });
  check("without a snapshot token: EVIDENCE_MISSING", noToken.isError && code(noToken) === "EVIDENCE_MISSING", noToken.env);
  const uncovered = await call(librarian, "withdraw_books", { ...args, ids: ["978-1000001"] });
  check("a book the walk did not deliver: EVIDENCE_NOT_COVERED", uncovered.isError && code(uncovered) === "EVIDENCE_NOT_COVERED", uncovered.env);

  const plan = await call(librarian, "withdraw_books", args);
  const asked = plan.env?.errors?.[0];
  check("the first call answers the plan and a plan_token (PLAN_TOKEN_REQUIRED)",
        plan.isError && asked?.code === "PLAN_TOKEN_REQUIRED" && JSON.stringify(asked.plan?.targets) === JSON.stringify(two) &&
          asked.plan?.evidence?.complete === true && typeof asked.plan_token === "string", plan.env);
  const untouched = await call(librarian, "lookup_book", { isbn: two[0] });
  check("nothing is withdrawn before the approval", untouched.env.data.withdrawn === false, untouched.env);

  const done = await call(librarian, "withdraw_books", { ...args, plan_token: asked.plan_token });
  check("the second call, with the plan_token, withdraws both", !done.isError &&
        JSON.stringify(done.env.data.withdrawn) === JSON.stringify(two) && done.env.data.skipped.length === 0, done.env);
  const after = await call(librarian, "lookup_book", { isbn: two[1] });
  check("the book is withdrawn", after.env.data.withdrawn === true, after.env);
  const replay = await call(librarian, "withdraw_books", { ...args, plan_token: asked.plan_token });
  check("the plan_token runs once (PLAN_TOKEN_USED)", replay.isError && code(replay) === "PLAN_TOKEN_USED", replay.env);

  // A new approval over the same walk: the book withdrawn meanwhile is skipped, the other withdrawn.
  const again = { reason: "water damage", ids: [two[0], ids[2]], snapshot_token: token };
  const plan2 = await call(librarian, "withdraw_books", again);
  const done2 = await call(librarian, "withdraw_books", { ...again, plan_token: plan2.env.errors[0].plan_token });
  check("a book withdrawn since the walk is skipped, the rest withdrawn", !done2.isError &&
        JSON.stringify(done2.env.data.skipped) === JSON.stringify([two[0]]) &&
        JSON.stringify(done2.env.data.withdrawn) === JSON.stringify([ids[2]]), done2.env);
} catch (e) {
  check("no exception", false, e?.stack ?? String(e));
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
finish();
