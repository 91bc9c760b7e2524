// SPDX-License-Identifier: BSL-1.0
// The load benchmark's peer on the 2025 wire: the same workload as bench/server
// (docs/performance.md, "Load"; ../workload.mjs), served with the official MCP TypeScript SDK
// 1.x in its documented way — McpServer, registerTool with zod schemas; Streamable HTTP in
// stateless mode with JSON responses (a server and a transport per request, as the SDK's
// stateless example does), or stdio.
//   node server.mjs --stdio
//   node server.mjs --http PORT
// Benchmark code, not product.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import * as z from 'zod/v4';
import { registerWorkload } from '../workload.mjs';

const getServer = () => registerWorkload(new McpServer({ name: 'sdk-bench-peer', version: '1.0.0' }), z);

// ---- transports
const argv = process.argv.slice(2);
if (argv[0] === '--stdio') {
  await getServer().connect(new StdioServerTransport());
} else if (argv[0] === '--http' && argv[1]) {
  const app = createMcpExpressApp();
  app.post('/mcp', async (req, res) => {
    const server = getServer();
    try {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => { transport.close(); server.close(); });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  });
  app.listen(Number(argv[1]), '127.0.0.1', (error) => {
    if (error) { console.error('peer: cannot listen:', error); process.exit(1); }
    console.error(`peer: listening on 127.0.0.1:${argv[1]}`);
  });
} else {
  console.error('usage: node server.mjs (--stdio | --http PORT)');
  process.exit(2);
}
