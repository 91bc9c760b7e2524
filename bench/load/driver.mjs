// SPDX-License-Identifier: BSL-1.0
// Load benchmark driver (scripts/bench --load). Benchmark code; runs against any MCP server.
//   node driver.mjs verify-http URL [WIRE]       functional check of the workload over HTTP
//   node driver.mjs verify-stdio [WIRE] -- CMD ARGS...  the same over stdio (spawns the server)
//   node driver.mjs http URL [WIRE] --connections N --duration S
//       a short HTTP load (the bench.http_*_smoke tests; wrk measures): N keep-alive clients
//       send the measured call for S seconds, every reply validated; prints one line
//       "HTTP_RESULT requests=… seconds=… rps=… invalid=…"
//   WIRE: 2025 (the default: the handshake revisions; over HTTP MCP-Protocol-Version 2025-06-18
//       and no session, over stdio after initialize) or 2026 (the stateless revision 2026-07-28:
//       every request's _meta names the version, capabilities and client; over HTTP the headers
//       MCP-Protocol-Version, Mcp-Method and Mcp-Name too; no initialize). On 2026 every result
//       must carry resultType "complete", on 2025 none.
//   node driver.mjs stdio --inflight N --warmup S --duration S -- CMD ARGS...
//       spawns the server, initializes, keeps N calls of the measured call in flight,
//       validates every reply, and prints one line
//       "STDIO_RESULT calls=… seconds=… cps=… p50_us=… p90_us=… p99_us=… cpu_us_per_call=… peak_rss_kb=… invalid=…
//        server_cpu_pct=… load_cpu_pct=…" (CPU use of the server and of this driver, % of one core)
//   node driver.mjs proc PID                    prints "PROC cpu_ticks=… hwm_kb=… clk_tck=100"
// Exit status 1 when any reply is invalid.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MEASURED = { department: 'dept-3', status: 'open', page_size: 20 };
const expectedIds = (first) => Array.from({ length: 20 }, (_, k) => 'T-' + String(first + 24 * k).padStart(6, '0'));
const FIRST_PAGE = expectedIds(3);     // T-000003 … T-000459
const SECOND_PAGE = expectedIds(483);  // the page after it
const ID_RE = /"id":"(T-\d+)"/g;
const RPC_ID_RE = /"id":(\d+)[,}]/;

// ---- the two wires (docs/protocol.md)
const WIRES = ['2025', '2026'];
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'candor-load-driver', version: '1' },
};
const checkWire = (wire) => { if (!WIRES.includes(wire)) fail(`unknown wire ${wire} (${WIRES.join(' or ')})`); return wire; };
// tools/call params on a wire
const callParams = (name, args, wire) => ({ name, arguments: args, ...(wire === '2026' ? { _meta: META_2026 } : {}) });
// The HTTP headers of a tools/call on a wire
const callHeaders = (name, wire) => ({
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
  ...(wire === '2026' ? { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name }
    : { 'MCP-Protocol-Version': '2025-06-18' }),
});
// What the wire adds to a result: the stateless revision marks every result, 2025 has no mark.
function checkResultType(result, wire) {
  if (wire === '2026') return result.resultType === 'complete' ? null : `resultType ${result.resultType}`;
  return 'resultType' in result ? 'a resultType on the 2025 wire' : null;
}

// Fast check of one reply text of the measured call (every reply of a run goes through it).
// content[0].text holds the same ids escaped (\"id\":\"T-…\"), which ID_RE does not match.
function checkReplyText(text, wire = '2025') {
  if (!text.includes('"result":')) return 'no result (JSON-RPC error?)';
  if (wire === '2026' ? !text.includes('"resultType":"complete"') : text.includes('"resultType":')) return 'resultType on the wrong wire';
  if (!text.includes('"isError":false')) return 'isError is not false';
  if (!text.includes('"complete":false')) return 'complete is not false';
  if (!text.includes('"MORE_PAGES_AVAILABLE"')) return 'no MORE_PAGES_AVAILABLE';
  if (!text.includes('"kind":"next_cursor"')) return 'no next_cursor continuation';
  let n = 0;
  for (const m of text.matchAll(ID_RE)) {
    if (m[1] !== FIRST_PAGE[n]) return `unexpected id ${m[1]} at ${n}`;
    n++;
  }
  return n === 20 ? null : `${n} ids instead of 20`;
}

function procStats(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);  // utime + stime (fields 14, 15)
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { ticks, hwmKb: hwm ? Number(hwm[1]) : 0 };
}
const CLK_TCK = 100;

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// ---- a line-delimited JSON-RPC peer over a child's stdio
class StdioServer {
  constructor(argv) {
    this.child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
    this.pending = new Map();
    this.buffer = '';
    this.onLine = null;
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      this.buffer += chunk;
      let nl;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.length) this.onLine(line);
      }
    });
    this.child.on('exit', (code) => { this.exited = code ?? -1; });
  }
  send(obj) { this.child.stdin.write(JSON.stringify(obj) + '\n'); }
  sendText(text) { this.child.stdin.write(text); }
  request(id, method, params) {
    return new Promise((resolve) => { this.pending.set(id, resolve); this.send({ jsonrpc: '2.0', id, method, params }); });
  }
  routeParsed() {
    this.onLine = (line) => {
      const msg = JSON.parse(line);
      const r = this.pending.get(msg.id);
      if (r) { this.pending.delete(msg.id); r(msg); }
    };
  }
  async initialize() {
    this.routeParsed();
    const init = await this.request(0, 'initialize', {
      protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'candor-load-driver', version: '1' } });
    if (!init.result) throw new Error('initialize failed: ' + JSON.stringify(init));
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  stop() { this.child.kill('SIGTERM'); }
}

// ---- functional verification (full parse; used before every measured run)
function fail(why) { console.error('VERIFY FAILED: ' + why); process.exit(1); }

// send(name, args) -> the JSON-RPC response of a tools/call on `wire`
async function verify(send, wire) {
  const call = async (name, args) => {
    const msg = await send(name, args);
    if (!msg.result) fail('JSON-RPC error: ' + JSON.stringify(msg).slice(0, 300));
    const why = checkResultType(msg.result, wire);
    if (why) fail(why);
    return msg.result;
  };
  const ids = (env) => (env.data || []).map((t) => t.id);
  const page1 = await call('search_tickets', MEASURED);
  const env1 = page1.structuredContent;
  if (page1.isError !== false || !env1) fail('measured call: ' + JSON.stringify(page1).slice(0, 300));
  if (JSON.stringify(JSON.parse(page1.content[0].text)) !== JSON.stringify(env1)) fail('content[0].text differs from structuredContent');
  if (JSON.stringify(ids(env1)) !== JSON.stringify(FIRST_PAGE)) fail('first page ids ' + ids(env1));
  if (env1.complete !== false || env1.status !== 'partial') fail('first page not partial');
  if (!env1.incomplete_reasons.some((r) => r.code === 'MORE_PAGES_AVAILABLE')) fail('no MORE_PAGES_AVAILABLE');
  if (env1.continuation?.kind !== 'next_cursor' || !env1.continuation.cursor) fail('no next_cursor');
  const t3 = env1.data[0];
  const want = { id: 'T-000003', department: 'dept-3', status: 'open', priority: 4, title: 'Ticket 3', created_at: '2026-01-04' };
  for (const [k, v] of Object.entries(want)) if (t3[k] !== v) fail(`T-000003.${k} = ${t3[k]}, expected ${v}`);
  const page2 = (await call('search_tickets', { ...MEASURED, cursor: env1.continuation.cursor })).structuredContent;
  if (JSON.stringify(ids(page2)) !== JSON.stringify(SECOND_PAGE)) fail('second page ids ' + ids(page2));
  // A walk to the end: 4,167 matches, the last page complete.
  let cursor, total = 0, pages = 0, last;
  do {
    last = (await call('search_tickets', { ...MEASURED, page_size: 100, ...(cursor ? { cursor } : {}) })).structuredContent;
    total += last.data.length; pages++;
    cursor = last.continuation?.cursor;
  } while (cursor && pages < 100);
  if (total !== 4167 || last.complete !== true) fail(`walk: ${total} items in ${pages} pages, complete=${last.complete}`);
  const tampered = env1.continuation.cursor.slice(0, -2) + (env1.continuation.cursor.endsWith('AA') ? 'BB' : 'AA');
  if ((await call('search_tickets', { ...MEASURED, cursor: tampered })).isError !== true) fail('tampered cursor accepted');
  if ((await call('search_tickets', { department: 'dept-9' })).isError !== true) fail('dept-9 accepted');
  if ((await call('search_tickets', { ...MEASURED, colour: 'red' })).isError !== true) fail('unknown argument accepted');
  const echo = await call('echo', { text: 'hello' });
  if (echo.structuredContent?.data?.text !== 'hello') fail('echo: ' + JSON.stringify(echo).slice(0, 200));
  if ((await call('echo', { text: 'x'.repeat(1001) })).isError !== true) fail('echo accepted 1001 characters');
  console.log(`VERIFY OK on the ${wire} wire (first page, second page, walk of 4,167, tampered cursor, enums, unknown argument, echo)`);
}

// A reply body: one JSON message, or an SSE stream whose last data: event is the response.
function parseReply(text, contentType) {
  if (!contentType?.startsWith('text/event-stream')) return JSON.parse(text);
  const events = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)));
  if (!events.length) fail('an SSE reply without data: ' + text.slice(0, 300));
  return events[events.length - 1];
}

async function verifyHttp(url, wire) {
  let n = 0;
  const post = async (name, args, headers = {}) => {
    const res = await fetch(url, {
      method: 'POST', headers: { ...callHeaders(name, wire), ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'tools/call', params: callParams(name, args, wire) }),
    });
    return { status: res.status, msg: parseReply(await res.text(), res.headers.get('content-type')) };
  };
  await verify(async (name, args) => {
    const { status, msg } = await post(name, args);
    if (status !== 200) fail(`HTTP ${status}: ` + JSON.stringify(msg).slice(0, 300));
    return msg;
  }, wire);
  if (wire === '2026') {
    // A header that disagrees with the body is refused before the tool runs (-32020).
    const { status, msg } = await post('search_tickets', MEASURED, { 'Mcp-Name': 'echo' });
    if (status !== 400 || msg.error?.code !== -32020) fail(`Mcp-Name mismatch: HTTP ${status} ` + JSON.stringify(msg).slice(0, 300));
    console.log('VERIFY OK: an Mcp-Name header that disagrees with the body refused (-32020)');
  }
}

async function verifyStdio(argv, wire) {
  const s = new StdioServer(argv);
  if (wire === '2026') s.routeParsed(); else await s.initialize();
  let n = 0;
  try {
    await verify((name, args) => s.request(++n, 'tools/call', callParams(name, args, wire)), wire);
  } finally { s.stop(); }
}

// ---- a short HTTP load (smoke tests): `connections` clients on keep-alive connections
async function httpLoad(url, wire, connections, durationS) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: callParams('search_tickets', MEASURED, wire) });
  const headers = callHeaders('search_tickets', wire);
  let requests = 0, invalid = 0, firstInvalid = '';
  const t0 = process.hrtime.bigint(), end = Date.now() + durationS * 1000;
  const client = async () => {
    while (Date.now() < end) {
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      requests++;
      const why = res.status !== 200 ? `HTTP ${res.status}` : checkReplyText(text, wire);
      if (why) { invalid++; firstInvalid ||= why + ': ' + text.slice(0, 300); }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`HTTP_RESULT requests=${requests} seconds=${seconds.toFixed(3)} rps=${(requests / seconds).toFixed(1)} invalid=${invalid}`);
  if (invalid) { console.log('HTTP_FIRST_FAILURE ' + firstInvalid); process.exit(1); }
}

// ---- the stdio load run
async function stdioLoad(argv, inflight, warmupS, durationS) {
  const s = new StdioServer(argv);
  await s.initialize();
  const params = JSON.stringify({ name: 'search_tickets', arguments: MEASURED });
  const sentAt = new Map();
  let nextId = 1, measuring = false, stopping = false;
  let calls = 0, invalid = 0, firstInvalid = '';
  const lat = [];
  const sendOne = () => {
    const id = nextId++;
    sentAt.set(id, process.hrtime.bigint());
    s.sendText(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}\n`);
  };
  let finish;
  const finished = new Promise((r) => { finish = r; });
  s.onLine = (line) => {
    const m = RPC_ID_RE.exec(line.length > 200 ? line.slice(0, 60) + line.slice(-60) : line);
    const id = m ? Number(m[1]) : -1;
    const t0 = sentAt.get(id);
    if (t0 === undefined) { invalid++; firstInvalid ||= 'unknown reply ' + line.slice(0, 200); return; }
    sentAt.delete(id);
    const why = checkReplyText(line);
    if (measuring) {
      calls++;
      lat.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (why) { invalid++; firstInvalid ||= why + ': ' + line.slice(0, 300); }
    } else if (why) { invalid++; firstInvalid ||= why + ': ' + line.slice(0, 300); }
    if (!stopping) sendOne();
    else if (sentAt.size === 0) finish();
  };
  for (let i = 0; i < inflight; i++) sendOne();
  await new Promise((r) => setTimeout(r, warmupS * 1000));
  const before = procStats(s.child.pid);
  const selfBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  measuring = true;
  await new Promise((r) => setTimeout(r, durationS * 1000));
  measuring = false;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = procStats(s.child.pid);
  const self = process.cpuUsage(selfBefore);
  stopping = true;
  await Promise.race([finished, new Promise((r) => setTimeout(r, 5000))]);
  s.stop();
  lat.sort((a, b) => a - b);
  const cpuUs = ((after.ticks - before.ticks) / CLK_TCK) * 1e6;
  console.log(`STDIO_RESULT calls=${calls} seconds=${seconds.toFixed(3)} cps=${(calls / seconds).toFixed(1)} ` +
    `p50_us=${Math.round(percentile(lat, 50))} p90_us=${Math.round(percentile(lat, 90))} p99_us=${Math.round(percentile(lat, 99))} ` +
    `cpu_us_per_call=${(cpuUs / Math.max(1, calls)).toFixed(1)} peak_rss_kb=${after.hwmKb} invalid=${invalid} ` +
    `server_cpu_pct=${((cpuUs / 1e6 / seconds) * 100).toFixed(0)} load_cpu_pct=${(((self.user + self.system) / 1e6 / seconds) * 100).toFixed(0)}`);
  if (invalid) { console.log('STDIO_FIRST_FAILURE ' + firstInvalid); process.exit(1); }
  process.exit(0);
}

// ---- command line
const argv = process.argv.slice(2);
const rest = () => { const i = argv.indexOf('--'); if (i < 0) fail('missing -- CMD'); return argv.slice(i + 1); };
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? Number(argv[i + 1]) : dflt; };
// The wire: the positional argument after URL (HTTP) or before -- (stdio), 2025 when absent.
const wireAt = (i) => checkWire(argv[i] === undefined || argv[i] === '--' || argv[i].startsWith('--') ? '2025' : argv[i]);
switch (argv[0]) {
case 'verify-http': await verifyHttp(argv[1], wireAt(2)); break;
case 'verify-stdio': await verifyStdio(rest(), wireAt(1)); break;
case 'http': await httpLoad(argv[1], wireAt(2), opt('--connections', 8), opt('--duration', 1)); break;
case 'stdio': await stdioLoad(rest(), opt('--inflight', 64), opt('--warmup', 2), opt('--duration', 10)); break;
case 'proc': { const p = procStats(Number(argv[1])); console.log(`PROC cpu_ticks=${p.ticks} hwm_kb=${p.hwmKb} clk_tck=${CLK_TCK}`); break; }
default: console.error('usage: see the head of driver.mjs'); process.exit(2);
}
