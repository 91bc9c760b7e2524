// SPDX-License-Identifier: BSL-1.0
// The load benchmark's peer on the 2026-07-28 wire: the same workload as bench/server and peer/
// (docs/performance.md, "Load"; ../workload.mjs), served with the official MCP TypeScript SDK
// 2.x (@modelcontextprotocol/server) in its documented way for the stateless revision — one
// server factory; over HTTP createMcpHandler (a fresh server per request; 2025-era requests go
// to its default stateless legacy fallback), mounted on node:http with toNodeHandler from
// @modelcontextprotocol/node behind the loopback Host and Origin guards; over stdio serveStdio
// (the opening request picks the era of the connection).
//   node server.mjs --stdio
//   node server.mjs --http PORT
// Benchmark code, not product.
import { createServer } from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';
import { registerWorkload } from '../workload.mjs';

const factory = () => registerWorkload(new McpServer({ name: 'sdk2-bench-peer', version: '1.0.0' }), z);
const onerror = (error) => console.error('peer2:', error.message);

const argv = process.argv.slice(2);
if (argv[0] === '--stdio') {
  serveStdio(factory, { onerror });
} else if (argv[0] === '--http' && argv[1]) {
  const mcp = toNodeHandler(createMcpHandler(factory, { onerror }), { onerror });
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const server = createServer(async (req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    await mcp(req, res);
  });
  server.on('error', (error) => { console.error('peer2: cannot listen:', error.message); process.exit(1); });
  server.listen(Number(argv[1]), '127.0.0.1', () => console.error(`peer2: listening on 127.0.0.1:${argv[1]}`));
} else {
  console.error('usage: node server.mjs (--stdio | --http PORT)');
  process.exit(2);
}
