// SPDX-License-Identifier: BSL-1.0
// Interoperability test with the official MCP TypeScript SDK client.
//   node sdk_client.mjs stdio /path/to/quickstart
//   node sdk_client.mjs http http://127.0.0.1:PORT/mcp
// The SDK client validates every structuredContent against the tool's outputSchema (ajv), so a
// call that returns at all proves the envelope matches the schema Candor advertised.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, finish } from "./check.mjs";

const [mode, target] = process.argv.slice(2);

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["--stdio"], stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "candor-interop", version: "1.0.0" });

try {
  await client.connect(transport);
  check("initialize negotiated a version", typeof client.getServerVersion()?.name === "string");

  const { tools } = await client.listTools();
  const search = tools.find((t) => t.name === "search_notes");
  check("listTools has search_notes", !!search);
  check("search_notes has an outputSchema", !!search?.outputSchema);
  check("search_notes is read-only", search?.annotations?.readOnlyHint === true);

  const done = await client.callTool({ name: "search_notes", arguments: { query: "Note 3:", limit: 10 } });
  const env = done.structuredContent;
  check("complete result is complete", env?.status === "complete" && env?.complete === true, JSON.stringify(env));
  check("complete result has no reasons", Array.isArray(env?.incomplete_reasons) && env.incomplete_reasons.length === 0);
  check("content[0] carries the same JSON", JSON.stringify(JSON.parse(done.content[0].text)) === JSON.stringify(env));

  const partial = await client.callTool({ name: "search_notes", arguments: { query: "printer", limit: 3 } });
  const penv = partial.structuredContent;
  check("partial result is not complete", penv?.complete === false && penv?.status === "partial", JSON.stringify(penv));
  check("partial result says RESULT_LIMIT_REACHED with the limit",
        penv?.incomplete_reasons?.[0]?.code === "RESULT_LIMIT_REACHED" && penv.incomplete_reasons[0].limit === 3);
  check("partial result holds limit items", Array.isArray(penv?.data) && penv.data.length === 3);

  const bad = await client.callTool({ name: "search_notes", arguments: { query: "printer", limit: 11 } });
  check("invalid arguments are a tool error (isError)", bad.isError === true);
  check("invalid arguments carry OUT_OF_RANGE at /limit",
        bad.structuredContent?.errors?.[0]?.code === "OUT_OF_RANGE" && bad.structuredContent.errors[0].path === "/limit",
        JSON.stringify(bad.structuredContent));

  let unknownRejected = false;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (e) {
    unknownRejected = e?.code === -32602;
  }
  check("unknown tool is a -32602 protocol error", unknownRejected);
} catch (e) {
  check("no exception", false, e?.stack ?? String(e));
} finally {
  await client.close().catch(() => {});
}
finish();
