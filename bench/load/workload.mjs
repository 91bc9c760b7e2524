// SPDX-License-Identifier: BSL-1.0
// The load benchmark's workload for the TypeScript SDK peers (peer/ on @modelcontextprotocol/sdk
// 1.x, peer2/ on @modelcontextprotocol/server 2.x), the same as bench/server's
// (docs/performance.md, "Load"): 100,000 tickets in memory, keyset pages with one item of
// look-ahead, an envelope, an HMAC-sealed cursor bound to the query; and echo. Both SDKs take
// zod v4 schemas in McpServer.registerTool, so the tools are registered here, with the zod of
// the peer that calls (each peer pins its own in its package.json).
// Benchmark code, not product.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// ---- the data: 100,000 tickets in id order
const STATUSES = ['open', 'pending', 'closed'];
const DEPARTMENTS = ['dept-0', 'dept-1', 'dept-2', 'dept-3', 'dept-4', 'dept-5', 'dept-6', 'dept-7'];
const tickets = [];
for (let i = 1; i <= 100000; i++) {
  const created = new Date(Date.UTC(2026, 0, 1 + (i % 300)));
  tickets.push({
    id: 'T-' + String(i).padStart(6, '0'),
    department: 'dept-' + (i % 8),
    status: STATUSES[(i * 7) % 3],
    priority: 1 + (i % 5),
    title: 'Ticket ' + i,
    created_at: created.toISOString().slice(0, 10),
  });
}

// ---- cursors: opaque, HMAC-sealed, bound to the query
const key = randomBytes(32);
const mac = (payload) => createHmac('sha256', key).update(payload).digest();
function sealCursor(state) {
  const payload = Buffer.from(JSON.stringify(state));
  return Buffer.concat([payload, mac(payload)]).toString('base64url');
}
function openCursor(text) {
  const raw = Buffer.from(text, 'base64url');
  if (raw.length <= 32) return null;
  const payload = raw.subarray(0, raw.length - 32);
  if (!timingSafeEqual(raw.subarray(raw.length - 32), mac(payload))) return null;
  try { return JSON.parse(payload.toString()); } catch { return null; }
}

function firstAfter(id) {  // binary search: index of the first ticket with an id > `id`
  let lo = 0, hi = tickets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tickets[mid].id <= id) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function envelopeResult(env) {
  return { content: [{ type: 'text', text: JSON.stringify(env) }], structuredContent: env, isError: env.status === 'error' };
}

function searchTickets({ department, status, page_size, cursor }) {
  const scope = { resource: 'search_tickets', visibility: 'anonymous', snapshot: 'pinned' };
  let start = 0;
  if (cursor !== undefined) {
    const c = openCursor(cursor);
    if (!c || c.d !== (department ?? null) || c.s !== (status ?? null)) {
      return envelopeResult({
        status: 'error', complete: false, incomplete_reasons: [], continuation: null, scope, warnings: [],
        errors: [{ code: 'CURSOR_INVALID', path: '/cursor', message: 'the cursor is not valid for this query', repairable: true, layer: 'business' }],
      });
    }
    start = firstAfter(c.a);
  }
  const items = [];
  for (let i = start; i < tickets.length && items.length <= page_size; i++) {  // one more: look-ahead
    const t = tickets[i];
    if (department !== undefined && t.department !== department) continue;
    if (status !== undefined && t.status !== status) continue;
    items.push(t);
  }
  const more = items.length > page_size;
  if (more) items.pop();
  const env = {
    status: more ? 'partial' : 'complete', complete: !more, incomplete_reasons: [], continuation: null, scope, warnings: [],
    data: items, page: { returned: items.length, requested_size: page_size, ordering: 'id', snapshot: 'v1' },
  };
  if (more) {
    const next = sealCursor({ a: items[items.length - 1].id, d: department ?? null, s: status ?? null });
    env.incomplete_reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'more tickets match; call again with the cursor' });
    env.continuation = { kind: 'next_cursor', cursor: next };
  }
  return envelopeResult(env);
}

/**
 * Registers the workload's two tools on an McpServer of either SDK.
 * @param server the McpServer (`@modelcontextprotocol/sdk` 1.x or `@modelcontextprotocol/server` 2.x)
 * @param z the peer's `zod/v4` module
 * @return the server
 */
export function registerWorkload(server, z) {
  const issue = z.object({ code: z.string(), message: z.string() }).passthrough();
  const envelopeShape = {
    status: z.enum(['complete', 'partial', 'error']),
    complete: z.boolean(),
    incomplete_reasons: z.array(issue),
    continuation: z.object({ kind: z.string() }).passthrough().nullable(),
    scope: z.object({ resource: z.string(), visibility: z.string(), snapshot: z.string() }),
    warnings: z.array(issue),
  };
  const ticketSchema = z.object({
    id: z.string(), department: z.string(), status: z.string(), priority: z.number().int(), title: z.string(), created_at: z.string(),
  });
  server.registerTool('search_tickets', {
    description: 'Search support tickets by department and status, in id order, one page at a time.',
    inputSchema: z.object({
      department: z.enum(DEPARTMENTS).optional().describe('Only tickets of this department'),
      status: z.enum(STATUSES).optional().describe('Only tickets in this status'),
      page_size: z.number().int().min(1).max(100).default(20).describe('Items per page (default 20).'),
      cursor: z.string().min(1).optional().describe('continuation.cursor of the previous page, unchanged; omit to start a walk.'),
    }).strict(),
    outputSchema: z.object({
      ...envelopeShape,
      data: z.array(ticketSchema).optional(),
      page: z.object({ returned: z.number(), requested_size: z.number(), ordering: z.string(), snapshot: z.string() }).optional(),
      errors: z.array(issue).optional(),
    }),
    annotations: { readOnlyHint: true },
  }, async (args) => searchTickets(args));
  server.registerTool('echo', {
    description: 'Sends the text back.',
    inputSchema: z.object({ text: z.string().max(1000) }).strict(),
    outputSchema: z.object({ ...envelopeShape, data: z.object({ text: z.string() }) }),
  }, async ({ text }) => envelopeResult({
    status: 'complete', complete: true, incomplete_reasons: [], continuation: null,
    scope: { resource: 'echo', visibility: 'anonymous', snapshot: 'none' }, warnings: [], data: { text },
  }));
  return server;
}
