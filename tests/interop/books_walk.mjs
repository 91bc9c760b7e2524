// SPDX-License-Identifier: BSL-1.0
// The collection tutorial's example (examples/first_collection, docs/first-collection-tool.md)
// driven with the official SDK client over stdio, as the page says it behaves:
//   node books_walk.mjs /path/to/books
// The SDK validates every page's structuredContent against the generated output schema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { check, finish } from "./check.mjs";

const [books] = process.argv.slice(2);
const clients = [];

async function connect(reader) {
  const transport = new StdioClientTransport({ command: books, args: ["--stdio"], env: { BOOKS_READER: reader }, stderr: "ignore" });
  const client = new Client({ name: `books-${reader}`, version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}
async function call(client, args) {
  const r = await client.callTool({ name: "search_books", arguments: args });
  return { isError: r.isError === true, env: r.structuredContent };
}
const codes = (env) => (env?.incomplete_reasons ?? []).map((r) => r.code);

// Walks to the end; returns the ids, the pages and the last envelope.
async function walk(client, query) {
  const ids = [];
  let cursor;
  let pages = 0;
  let morePagesSaid = true;
  for (;;) {
    const { isError, env } = await call(client, cursor ? { ...query, cursor } : query);
    if (isError) return { ids, pages, last: env, error: true };
    pages++;
    for (const b of env.data) ids.push(b.id);
    cursor = env.continuation?.cursor;
    if (!cursor) return { ids, pages, last: env, morePagesSaid };
    if (!codes(env).includes("MORE_PAGES_AVAILABLE")) morePagesSaid = false;
    if (pages > 20) return { ids, pages, last: env, morePagesSaid };
  }
}

try {
  const guest = await connect("guest");
  const librarian = await connect("librarian");

  const { tools } = await guest.listTools();
  const tool = tools.find((t) => t.name === "search_books");
  check("search_books is listed, read-only", tool?.annotations?.readOnlyHint === true, tool?.annotations);
  check("its input schema is the query's, with the paging arguments",
        ["author", "published_after", "cursor", "page_size"].every((k) => k in (tool?.inputSchema?.properties ?? {})),
        tool?.inputSchema);

  const g = await walk(guest, { page_size: 100 });
  check("a guest's walk gives the 980 books a guest may see, over 10 pages, each once",
        g.ids.length === 980 && g.pages === 10 && new Set(g.ids).size === 980 && g.ids.every((id) => id % 50 !== 0),
        { ids: g.ids.length, pages: g.pages });
  check("every page but the last says MORE_PAGES_AVAILABLE", g.morePagesSaid);
  check("the guest's last page says VISIBILITY_RESTRICTED, not complete",
        g.last.complete === false && codes(g.last).includes("VISIBILITY_RESTRICTED"), g.last);

  const l = await walk(librarian, { page_size: 100 });
  check("the librarian's walk is all 1,000 books, complete, with a snapshot token",
        l.ids.length === 1000 && l.last.complete === true && typeof l.last.snapshot_token === "string",
        { ids: l.ids.length, complete: l.last.complete });

  const byAuthor = await walk(librarian, { author: "Author 7", published_after: 1950, page_size: 10 });
  const expected = [];
  for (let i = 1; i <= 1000; i++) if (i % 40 === 7 && 1900 + (i % 120) > 1950) expected.push(i);
  check("a filtered walk returns exactly the matching ids, in order",
        JSON.stringify(byAuthor.ids) === JSON.stringify(expected), { got: byAuthor.ids, expected });

  const first = await call(guest, { page_size: 5 });
  const stolen = await call(librarian, { page_size: 5, cursor: first.env.continuation.cursor });
  check("a guest's cursor is refused to the librarian", stolen.isError && /^CURSOR_/.test(stolen.env?.errors?.[0]?.code ?? ""), stolen.env);
  const changed = await call(guest, { page_size: 5, author: "Author 1", cursor: first.env.continuation.cursor });
  check("a cursor with a changed query is refused", changed.isError && /^CURSOR_/.test(changed.env?.errors?.[0]?.code ?? ""), changed.env);

  const bad = await call(guest, { published_after: "1950" });
  const issue = bad.env?.errors?.[0];
  check("a year as a string: TYPE_MISMATCH at /published_after, repairable",
        bad.isError && issue?.code === "TYPE_MISMATCH" && issue?.path === "/published_after" && issue?.repairable === true, bad.env);
  const unknown = await call(guest, { title: "Book 1" });
  check("an unknown argument is UNKNOWN_FIELD", unknown.isError && unknown.env?.errors?.[0]?.code === "UNKNOWN_FIELD", unknown.env);
} catch (e) {
  check("no exception", false, e?.stack ?? String(e));
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
finish();
