// SPDX-License-Identifier: BSL-1.0
// The helpdesk under result budgets, read as raw stdio lines (what a client counts): every
// ticket walked with page_size 100 under --max-result-bytes 6000 and 16000, and with the
// default; and a request's own hint of 3,000 bytes.
//   node helpdesk_budget.mjs HELPDESK
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { check, finish } from "./check.mjs";

const helpdesk = process.argv[2];
const work = mkdtempSync(`${tmpdir()}/candor-budget-`);
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// A helpdesk over stdio on its own database, and a way to send one request and read its line.
function start(name, flags) {
  const child = spawn(helpdesk, ["--stdio", "--db", `${work}/${name}.db`, ...flags], {
    env: { ...process.env, CANDOR_PRINCIPAL: "admin" },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map();
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    const w = waiting.get(message.id);
    if (w) {
      waiting.delete(message.id);
      w({ message, bytes: Buffer.byteLength(line) });
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      const n = ++id;
      waiting.set(n, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
    });
  return {
    request,
    async init() {
      await request("initialize", { protocolVersion: "2025-11-25", capabilities: {},
                                    clientInfo: { name: "budget", version: "1.0" } });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    },
    stop() { child.kill("SIGINT"); },
  };
}

// Walk every ticket (an empty filter) with page_size 100. @return what the walk saw
async function walk(server, meta) {
  const seen = [];
  let cursor, pages = 0, cut = 0, largest = 0, last = null, limits = new Set();
  for (;;) {
    const args = cursor ? { page_size: 100, cursor } : { page_size: 100 };
    const { message, bytes } = await server.request("tools/call",
      { name: "search_tickets", arguments: args, ...(meta ? { _meta: meta } : {}) });
    const env = message.result?.structuredContent;
    if (!env?.data) return { error: message };
    pages++;
    largest = Math.max(largest, bytes);
    for (const t of env.data) seen.push(t.id);
    for (const r of env.incomplete_reasons) if (r.code === "RESULT_SIZE_LIMIT") { cut++; limits.add(r.limit); }
    cursor = env.continuation?.cursor;
    if (!cursor) { last = env; break; }
    if (pages > 2 * tickets) return { error: "too many pages" };
  }
  return { seen, pages, cut, largest, last, limits: [...limits] };
}

const tickets = 3000;
for (const budget of [6000, 16000, null]) {
  const name = budget ? `budget-${budget}` : "default";
  const server = start(name, [...(budget ? ["--max-result-bytes", String(budget)] : []), "--seed-tickets", String(tickets)]);
  await server.init();
  const w = await walk(server);
  const limit = budget ?? 24000;
  check(`${name}: the walk ends complete with a snapshot token`,
        w.last?.complete === true && typeof w.last?.snapshot_token === "string", w.error ?? w.last);
  check(`${name}: every ticket delivered exactly once, in order`,
        w.seen?.length === tickets && new Set(w.seen).size === tickets &&
        w.seen.every((id, i) => i === 0 || w.seen[i - 1] < id), { got: w.seen?.length });
  check(`${name}: every response line within ${limit} bytes`, w.largest <= limit, { largest: w.largest });
  check(`${name}: pages were cut with RESULT_SIZE_LIMIT naming the limit`,
        w.cut > 0 && w.limits.length === 1 && w.limits[0] === limit, { cut: w.cut, limits: w.limits });
  if (!budget) {
    const hinted = await walk(server, { "io.candor/maxResultBytes": 3000 });
    check("a request's hint of 3,000 bytes holds", hinted.largest <= 3000 && hinted.seen?.length === tickets,
          { largest: hinted.largest, got: hinted.seen?.length });
    check("and RESULT_SIZE_LIMIT names limit: 3000", hinted.limits.length === 1 && hinted.limits[0] === 3000,
          hinted.limits);
    const bad = await server.request("tools/call", { name: "search_tickets", arguments: {},
                                                     _meta: { "io.candor/maxResultBytes": -1 } });
    check("a negative hint is refused, naming the key",
          bad.message.error?.code === -32602 && bad.message.error?.data?.key === "io.candor/maxResultBytes",
          bad.message);

    // Knowledge-base articles of 2 to 40 KB: the largest read at 4,000 bytes is cut with a way
    // to the rest, and read on from there it comes whole.
    const read = (id, offset, meta) => server.request("tools/call", { name: "read_article",
      arguments: offset ? { id, offset } : { id }, ...(meta ? { _meta: meta } : {}) });
    const lengths = [];
    for (let k = 1; k <= 10; ++k) {
      const id = `kb-${String(k).padStart(3, "0")}`;
      const { message } = await read(id, 0, { "io.candor/maxResultBytes": 4000 });
      lengths.push({ id, length: message.result?.structuredContent?.data?.length });
    }
    const largest = lengths.reduce((a, b) => (b.length > a.length ? b : a));
    const smallest = lengths.reduce((a, b) => (b.length < a.length ? b : a));
    check("article bodies are 2 to 40 KB", smallest.length >= 2000 && largest.length <= 40000 && largest.length > 24000,
          lengths);
    const first = await read(largest.id, 0, { "io.candor/maxResultBytes": 4000 });
    const env = first.message.result?.structuredContent;
    const cut = env?.warnings?.find((w) => w.code === "FIELD_TRUNCATED");
    const text = first.message.result?.content?.[0]?.text;
    let wholeJson = false;
    try { wholeJson = JSON.stringify(JSON.parse(text)) === JSON.stringify(env); } catch {}
    check("the largest article read at 4,000 bytes: within the budget", first.bytes <= 4000, first.bytes);
    check("FIELD_TRUNCATED with its path, complete: false, RESULT_SIZE_LIMIT",
          cut?.path === "/data/body" && cut.bytes === largest.length && env.complete === false &&
          env.incomplete_reasons.some((r) => r.code === "RESULT_SIZE_LIMIT") && typeof cut.rest === "string", env);
    check("the text block is the whole envelope as JSON", wholeJson, text?.slice(0, 200));
    let body = env?.data?.body ?? "", offset = cut?.kept ?? 0, parts = 1, done = false;
    while (!done && parts < 100) {
      const next = (await read(largest.id, offset)).message.result?.structuredContent;
      const more = next?.warnings?.find((w) => w.code === "FIELD_TRUNCATED");
      body += next?.data?.body ?? "";
      offset += more ? more.kept : (next?.data?.body?.length ?? 0);
      done = next?.complete === true;
      parts++;
    }
    check("read on from kept, the article comes whole", done && body.length === largest.length, { parts, got: body.length });
    const small = (await read(smallest.id, 0)).message.result?.structuredContent;
    check("with room, an article is complete and untruncated",
          small?.complete === true && small.data.body.length === smallest.length && small.warnings.length === 0, small);
  }
  server.stop();
}
finish();
