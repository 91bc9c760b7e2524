// SPDX-License-Identifier: BSL-1.0
// The client benchmark's peer (bench/load/client.sh): N sessions of the official TypeScript SDK
// client calling bench-server's measured call one after the other, for a warm-up and a measured
// window, every result checked as client_load.cpp checks Candor's. Benchmark code only.
//   node client.mjs --sdk 1|2 [--protocol 2026] --sessions N --warmup S --duration S (--url URL | -- CMD ARGS...)
//   --sdk 1: @modelcontextprotocol/sdk 1.x (the 2025 wire: initialize, then the session);
//   --sdk 2: @modelcontextprotocol/client 2.x: the 2025 handshake by default (its default), or
//            pinned to 2026-07-28 with --protocol 2026.
// Prints "CLIENT_RESULT calls=… seconds=… cps=… p50_us=… p99_us=… cpu_us_per_call=… invalid=… protocol=…".
const args = process.argv.slice(2);
import { setMaxListeners } from 'node:events';
setMaxListeners(0);  // the 1.x client adds an abort listener per request to one signal
const opt = { sdk: '2', protocol: '2025', sessions: 1, warmup: 1, duration: 4, url: '', command: [] };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--') { opt.command = args.slice(i + 1); break; }
  const v = args[++i];
  if (a === '--sdk') opt.sdk = v;
  else if (a === '--protocol') opt.protocol = v;
  else if (a === '--sessions') opt.sessions = Number(v);
  else if (a === '--warmup') opt.warmup = Number(v);
  else if (a === '--duration') opt.duration = Number(v);
  else if (a === '--url') opt.url = v;
  else { console.error(`client.mjs: unknown option ${a}`); process.exit(2); }
}

let Client, Http, Stdio;
if (opt.sdk === '1') {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StreamableHTTPClientTransport: Http } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ StdioClientTransport: Stdio } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
} else {
  ({ Client, StreamableHTTPClientTransport: Http } = await import('@modelcontextprotocol/client'));
  ({ StdioClientTransport: Stdio } = await import('@modelcontextprotocol/client/stdio'));
}

const MEASURED = { department: 'dept-3', status: 'open', page_size: 20 };
function valid(r) {
  const env = r?.structuredContent;
  if (r?.isError || !env || env.complete !== false || env.status !== 'partial') return false;
  if (env.continuation?.kind !== 'next_cursor' || typeof env.continuation.cursor !== 'string') return false;
  return Array.isArray(env.data) && env.data.length === 20 && env.data[0]?.id === 'T-000003';
}

const opened = Date.now();
const start = opened + opt.warmup * 1000;
const end = start + opt.duration * 1000;
const latencies = [];
let calls = 0, invalid = 0, protocol = '', cpuStart = null;
setTimeout(() => { cpuStart = process.cpuUsage(); }, Math.max(0, start - Date.now()));

async function session() {
  const transport = opt.url ? new Http(new URL(opt.url))
    : new Stdio({ command: opt.command[0], args: opt.command.slice(1), stderr: 'ignore' });
  const options = { capabilities: {} };
  if (opt.protocol === '2026') options.versionNegotiation = { mode: { pin: '2026-07-28' } };
  const client = new Client({ name: 'sdk-client-load', version: '1' }, options);
  await client.connect(transport);
  protocol = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? '2025 handshake';
  while (true) {
    const before = performance.now();
    if (Date.now() >= end) break;
    let r;
    try { r = await client.callTool({ name: 'search_tickets', arguments: MEASURED }); } catch (e) { r = e; }
    const after = performance.now();
    if (Date.now() - (after - before) < start) continue;
    calls++;
    if (!valid(r) && ++invalid === 1) console.error('CLIENT_FIRST_FAILURE ' + JSON.stringify(r).slice(0, 300));
    latencies.push((after - before) * 1000);
  }
  await client.close();
}

await Promise.all(Array.from({ length: opt.sessions }, session));
const cpu = cpuStart ? process.cpuUsage(cpuStart) : { user: 0, system: 0 };
latencies.sort((a, b) => a - b);
const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : 0);
const seconds = opt.duration;
console.log(`CLIENT_RESULT calls=${calls} seconds=${seconds.toFixed(2)} cps=${(calls / seconds).toFixed(0)} ` +
  `p50_us=${pct(50).toFixed(0)} p99_us=${pct(99).toFixed(0)} cpu_us_per_call=${calls ? ((cpu.user + cpu.system) / calls).toFixed(1) : 0} ` +
  `invalid=${invalid} protocol=${protocol}`);
process.exit(invalid || calls === 0 ? 1 : 0);
