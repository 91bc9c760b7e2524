// SPDX-License-Identifier: BSL-1.0
// A page's cost on a table Candor does not own beside one it owns: the helpdesk on PostgreSQL
// over stdio walks search_customers (2,000 customers, a plain table: every walk holds an
// exported snapshot, every page imports it) and search_tickets (2,000 tickets, Candor's
// versioned layout), 20 pages of 100 each, interleaved walk by walk. For each: the first page's
// and the later pages' median latency, and PostgreSQL transactions per page (its own counter).
//   node foreign_pages.mjs HELPDESK DB_URL "PSQL COMMAND" [WALKS]
import { execSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [helpdesk, dbUrl, psql, walksArg] = process.argv.slice(2);
const walks = Number(walksArg ?? 15);
const child = spawn(helpdesk, ["--stdio", "--db", dbUrl, "--seed-tickets", "2000"], {
  env: { ...process.env, CANDOR_PRINCIPAL: "admin" }, stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map();
createInterface({ input: child.stdout }).on("line", (line) => {
  const m = JSON.parse(line);
  waiting.get(m.id)?.(m);
  waiting.delete(m.id);
});
let id = 0;
const request = (method, params) => new Promise((ok) => {
  const n = ++id;
  waiting.set(n, ok);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
});
const transactions = () => Number(execSync(
  `${psql} -At -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'postgres'"`,
  { encoding: "utf8" }).trim());
const settle = () => new Promise((ok) => setTimeout(ok, 1100));  // the counters land once a second

await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");

const tools = {
  customers: { name: "search_customers", args: { page_size: 100 } },
  tickets: { name: "search_tickets", args: { page_size: 100, fields: ["id", "title", "status"] } },
};
const stats = { customers: { first: [], later: [], pages: 0, xacts: 0 }, tickets: { first: [], later: [], pages: 0, xacts: 0 } };
for (let w = 0; w < walks; ++w) {
  for (const [key, t] of Object.entries(tools)) {
    await settle();
    const before = transactions();
    let cursor, page = 0;
    for (;;) {
      const started = process.hrtime.bigint();
      const r = await request("tools/call", { name: t.name, arguments: { ...t.args, ...(cursor ? { cursor } : {}) } });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const env = r.result?.structuredContent;
      if (!env || env.status === "error") throw new Error(JSON.stringify(r));
      (page++ === 0 ? stats[key].first : stats[key].later).push(ms);
      cursor = env.continuation?.cursor;
      if (!cursor) break;
    }
    await settle();
    stats[key].pages += page;
    stats[key].xacts += transactions() - before;
  }
}
child.stdin.end();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const row = (k) => ({ first_page_ms: +median(stats[k].first).toFixed(2), later_page_ms: +median(stats[k].later).toFixed(2),
                      transactions_per_page: +(stats[k].xacts / stats[k].pages).toFixed(2), pages: stats[k].pages });
const c = row("customers"), t = row("tickets");
console.log(JSON.stringify({ walks, customers_foreign: c, tickets_owned: t,
  ratio_first: +(c.first_page_ms / t.first_page_ms).toFixed(2), ratio_later: +(c.later_page_ms / t.later_page_ms).toFixed(2) }));
process.exit(0);
