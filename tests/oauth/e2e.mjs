// SPDX-License-Identifier: BSL-1.0
// End to end: helpdesk as an OAuth 2.1 resource server behind a real authorization server
// (oidc-provider), reached by the official TypeScript SDK client with its OAuth provider, and by
// Candor's own client (`candor walk|call --oauth`).
//   node e2e.mjs /path/to/helpdesk WORKDIR [/path/to/candor]
// The client discovers everything from the 401, registers, runs the authorization code flow
// with PKCE and a resource indicator (the consent is automated), and calls tools; then the
// refusals (expired, other audience, other issuer, bad signature), a key rotation at the
// authorization server, forged kids, and a missing scope with a successful step-up.
import { spawn } from "node:child_process";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import * as jose from "jose";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { startAuthorizationServer } from "./authorization_server.mjs";

const [helpdesk, work, candor] = process.argv.slice(2);
let failures = 0;
let passes = 0;
function check(what, ok, detail = "") {
  if (ok) passes++;
  else failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : `: ${detail}`}`);
}

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

function startHelpdesk(args) {
  const child = spawn(helpdesk, args, {
    env: { ...process.env, CANDOR_SEALING_KEYS: `e2e:${"ab".repeat(32)}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`helpdesk did not start:\n${log}`)), 60000);
    child.stderr.on("data", () => {
      if (log.includes("listening on")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`helpdesk exited (${code}):\n${log}`)));
  });
  return { child, ready, log: () => log };
}

// The SDK's OAuth client side, kept in memory; redirects to the authorization server are
// played by the test's automated browser as `account`.
class TestOAuthProvider {
  constructor(as, account, redirectUri) {
    this.as = as;
    this.account = account;
    this.redirectUri = redirectUri;
    this.authorizationUrls = [];
  }
  get redirectUrl() {
    return this.redirectUri;
  }
  get clientMetadata() {
    return {
      client_name: "candor-oauth-e2e",
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(c) {
    this.client = c;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t) {
    this.saved = t;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    this.authorizationUrls.push(url);
    this.code = await this.as.authorize(url.href, this.account, this.redirectUri);
  }
}

// Connect as `account`: the first attempt meets the 401 and goes through authorization.
async function connectAs(as, url, account) {
  const provider = new TestOAuthProvider(as, account, `http://127.0.0.1:${await freePort()}/callback`);
  let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  let client = new Client({ name: "candor-oauth-e2e", version: "1.0.0" });
  try {
    await client.connect(transport);
    throw new Error("connected without authorization");
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  await transport.finishAuth(provider.code);
  transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  client = new Client({ name: "candor-oauth-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, provider };
}

async function rawInitialize(url, token) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  const text = await res.text();
  let code;
  try {
    code = JSON.parse(text)?.error?.data?.code;
  } catch {}
  return { status: res.status, code, challenge: res.headers.get("www-authenticate") ?? "", text };
}

const claimsOf = (token) => jose.decodeJwt(token);

// `candor ARGS` as `who`: when it prints the authorization URL, the test's browser logs in,
// consents and is sent back to the command's loopback redirect URI.
async function candorAs(as, who, args) {
  const redirect = `http://127.0.0.1:${await freePort()}/callback`;
  const env = { ...process.env };
  delete env.BROWSER;
  const child = spawn(candor, [...args, "--oauth", "--oauth-redirect", redirect], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "", err = "", pending = "";
  const shown = [];
  child.stdout.on("data", (d) => (out += d));
  // Whole lines only: a chunk may end in the middle of the URL.
  child.stderr.on("data", (d) => {
    err += d;
    pending += d;
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const m = /to authorize, open (\S+)/.exec(line);
      if (!m) continue;
      shown.push(new URL(m[1]));
      // A browser that fails stops the command: it would wait for a redirect that never comes.
      as.redirect(m[1], who, redirect)
        .then((back) => fetch(back))
        .catch((e) => {
          err += `\nbrowser: ${e}`;
          child.kill();
        });
    }
  });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  return { code, out, err, shown };
}

const as = await startAuthorizationServer();
const port = await freePort();
const resource = `http://127.0.0.1:${port}/mcp`;
const journal = path.join(work, "journal.jsonl");
const server = startHelpdesk([
  "--http", `127.0.0.1:${port}`,
  "--db", path.join(work, "helpdesk.db"),
  "--seed-tickets", "200",
  "--journal", journal,
  "--oauth-issuer", as.issuer,
  "--oauth-resource", resource,
  "--oauth-scopes", "mcp:tools",
]);
const clients = [];
try {
  await server.ready;
  check("keys loaded at startup", as.stats.jwks === 1, `jwks fetched ${as.stats.jwks} times`);

  // Discovery from the 401 alone.
  const anonymous = await rawInitialize(resource);
  check("no token: 401 UNAUTHORIZED", anonymous.status === 401 && anonymous.code === "UNAUTHORIZED", anonymous.text);
  check("the challenge names the metadata and the scope",
        anonymous.challenge.includes(`resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`) &&
          anonymous.challenge.includes('scope="mcp:tools"'), anonymous.challenge);
  const prm = await (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).json();
  check("protected resource metadata", prm.resource === resource && prm.authorization_servers?.[0] === as.issuer &&
        prm.scopes_supported?.join(" ") === "mcp:tools" && prm.bearer_methods_supported?.[0] === "header",
        JSON.stringify(prm));

  // The SDK client: discovery, registration, authorization code + PKCE + resource, tokens.
  const admin = await connectAs(as, resource, "admin");
  clients.push(admin);
  const authUrl = admin.provider.authorizationUrls[0];
  check("authorization request: PKCE S256, the resource, the challenged scope",
        authUrl.searchParams.get("code_challenge_method") === "S256" && authUrl.searchParams.get("resource") === resource &&
          authUrl.searchParams.get("scope") === "mcp:tools", authUrl.href);
  const adminToken = admin.provider.tokens().access_token;
  const claims = claimsOf(adminToken);
  check("the access token is bound to this resource", claims.aud === resource && claims.iss === as.issuer &&
        claims.sub === "admin" && claims.scope === "mcp:tools", JSON.stringify(claims));
  const { tools } = await admin.client.listTools();
  const archive = tools.find((t) => t.name === "archive_service_accounts");
  check("tools/list shows the archive tool's scope", archive?._meta?.["candor/requiredScopes"]?.[0] === "accounts:archive",
        JSON.stringify(archive?._meta));
  const inventory = await admin.client.callTool({ name: "find_unowned_accounts", arguments: {} });
  check("admin's inventory is complete", inventory.structuredContent?.complete === true,
        JSON.stringify(inventory.structuredContent)?.slice(0, 300));

  // Another person: per-principal visibility follows the token's subject.
  const teamA = await connectAs(as, resource, "team-a");
  clients.push(teamA);
  const partial = await teamA.client.callTool({ name: "find_unowned_accounts", arguments: {} });
  check("team-a's inventory is restricted to what team-a sees",
        partial.structuredContent?.complete === false &&
          partial.structuredContent?.incomplete_reasons?.[0]?.code === "VISIBILITY_RESTRICTED",
        JSON.stringify(partial.structuredContent)?.slice(0, 300));

  // Refusals. Tokens signed with the authorization server's own key but wrong in one claim,
  // one the authorization server issued for another resource, and one with a bad signature.
  const signingKey = await jose.importJWK(as.currentKey(), "ES256");
  const now = Math.floor(Date.now() / 1000);
  const sign = (c) =>
    new jose.SignJWT(c).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: as.currentKey().kid }).sign(signingKey);
  const base = { iss: as.issuer, aud: resource, sub: "admin", client_id: "x", scope: "mcp:tools", iat: now, exp: now + 300 };
  const otherResource = await as.machineToken("http://127.0.0.1:1/other", "mcp:tools");
  const [head, body] = adminToken.split(".");
  const otherSignature = (await sign(base)).split(".")[2];
  const cases = [
    ["expired", await sign({ ...base, iat: now - 3600, exp: now - 1800 }), "TOKEN_EXPIRED"],
    ["another resource's token", otherResource, "TOKEN_AUDIENCE_MISMATCH"],
    ["another issuer", await sign({ ...base, iss: "http://127.0.0.1:1" }), "TOKEN_ISSUER_MISMATCH"],
    ["a bad signature", `${head}.${body}.${otherSignature}`, "TOKEN_SIGNATURE_INVALID"],
  ];
  for (const [what, token, code] of cases) {
    const r = await rawInitialize(resource, token);
    check(`${what}: 401 ${code}`, r.status === 401 && r.code === code && r.challenge.includes('error="invalid_token"'),
          `${r.status} ${r.code} ${r.challenge}`);
    check(`${what}: the token is not echoed`, !r.text.includes(token) && !r.challenge.includes(token));
  }
  const machine = await as.machineToken(resource, "mcp:tools");
  check("a client-credentials token for this resource is accepted", (await rawInitialize(resource, machine)).status === 200);

  // Missing scope, then step-up: the SDK meets 403 insufficient_scope, asks for more, retries.
  // oidc-provider holds a dynamically registered client to the scope it registered with, so
  // this client registers again (the SDK does when it has no client information).
  admin.provider.client = undefined;
  const before = admin.provider.authorizationUrls.length;
  let firstTry;
  try {
    firstTry = await admin.client.callTool({ name: "archive_service_accounts", arguments: { ids: ["svc-001"], snapshot_token: "x" } });
  } catch (e) {
    firstTry = e;
  }
  check("a call without the tool's scope sends the client to step up", firstTry instanceof UnauthorizedError &&
        admin.provider.authorizationUrls.length === before + 1, String(firstTry));
  const stepUrl = admin.provider.authorizationUrls.at(-1);
  check("the step-up asks for every scope the call needs", stepUrl?.searchParams.get("scope") === "mcp:tools accounts:archive",
        stepUrl?.href);
  await admin.transport.finishAuth(admin.provider.code);
  check("the new token has the scope", claimsOf(admin.provider.tokens().access_token).scope?.includes("accounts:archive"));
  const stepped = await admin.client.callTool({ name: "archive_service_accounts", arguments: { ids: ["svc-001"], snapshot_token: "x" } });
  const steppedCode = stepped.structuredContent?.errors?.[0]?.code;
  check("after the step-up the call reaches the tool (which wants real evidence)", steppedCode === "EVIDENCE_INVALID",
        JSON.stringify(stepped.structuredContent)?.slice(0, 300));

  // Candor's C++ client, from the command line: discovery, registration, the browser (played by
  // the test) coming back to the command's loopback listener, then the walk.
  if (candor) {
    const walk = await candorAs(as, "admin", ["walk", "--json", "--max-calls", "50", "--url", resource,
                                              "find_unowned_accounts", "{}"]);
    const summary = (() => { try { return JSON.parse(walk.out); } catch { return {}; } })();
    // The challenged scope, and offline_access (a refresh token) since the server lists it.
    check("candor walk --oauth: one authorization, the resource and PKCE in it",
          walk.shown.length === 1 && walk.shown[0].searchParams.get("resource") === resource &&
            walk.shown[0].searchParams.get("code_challenge_method") === "S256" &&
            walk.shown[0].searchParams.get("scope") === "mcp:tools offline_access", walk.err);
    check("candor walk --oauth: admin's walk is complete", walk.code === 0 && summary.complete === true,
          `${walk.code} ${walk.out} ${walk.err}`);
    const restricted = await candorAs(as, "team-a", ["walk", "--json", "--url", resource, "find_unowned_accounts", "{}"]);
    const r = (() => { try { return JSON.parse(restricted.out); } catch { return {}; } })();
    check("candor walk --oauth: team-a's walk is not complete, and says why",
          restricted.code === 1 && r.complete === false && r.reasons?.some((x) => x.code === "VISIBILITY_RESTRICTED"),
          `${restricted.code} ${restricted.out} ${restricted.err}`);
    const stepped = await candorAs(as, "admin", ["call", "--url", resource, "archive_service_accounts",
                                                 JSON.stringify({ ids: ["svc-001"], snapshot_token: "x" })]);
    const answer = (() => { try { return JSON.parse(stepped.out); } catch { return {}; } })();
    check("candor call --oauth: the 403 is stepped up to every scope the call needs",
          stepped.shown.length === 2 &&
            stepped.shown[1].searchParams.get("scope") === "mcp:tools accounts:archive offline_access",
          stepped.shown.map((u) => u.searchParams.get("scope")).join(" | ") + ` ${stepped.err}`);
    check("candor call --oauth: after the step-up the call reaches the tool",
          answer.structuredContent?.errors?.[0]?.code === "EVIDENCE_INVALID", `${stepped.out} ${stepped.err}`);
  }

  // Key rotation at the authorization server: the new kid is fetched once.
  const fetchesBefore = as.stats.jwks;
  await as.rotate("k2");
  const rotated = await as.machineToken(resource, "mcp:tools");
  check("tokens are now signed with the new key", jose.decodeProtectedHeader(rotated).kid === "k2");
  const afterRotation = await rawInitialize(resource, rotated);
  check("a token of the rotated key is accepted", afterRotation.status === 200, afterRotation.text);
  check("the rotation cost one fetch of the keys", as.stats.jwks === fetchesBefore + 1, `${as.stats.jwks - fetchesBefore}`);
  check("tokens of the previous key still verify", (await rawInitialize(resource, adminToken)).status !== 401);
  let unknown = 0;
  for (let i = 0; i < 20; i++) {
    const { privateKey } = await jose.generateKeyPair("ES256");
    const forged = await new jose.SignJWT(base).setProtectedHeader({ alg: "ES256", kid: `forged-${i}` }).sign(privateKey);
    const r = await rawInitialize(resource, forged);
    if (r.status === 401 && r.code === "TOKEN_KEY_UNKNOWN") unknown++;
  }
  check("forged kids are refused", unknown === 20, `${unknown} of 20`);
  check("forged kids made no further fetch of the keys", as.stats.jwks === fetchesBefore + 1, `${as.stats.jwks - fetchesBefore}`);

  // The journal knows the principals, never a token.
  for (const c of clients) await c.client.close().catch(() => {});
  clients.length = 0;
  const lines = fs.existsSync(journal) ? fs.readFileSync(journal, "utf8") : "";
  const principals = new Set(lines.split("\n").filter(Boolean).map((l) => JSON.parse(l).principal));
  check("the journal records the principals", principals.has("admin") && principals.has("team-a"), [...principals].join(","));
  check("the journal holds no token", ![adminToken, machine, rotated].some((t) => lines.includes(t)) &&
        !lines.includes(adminToken.split(".")[2]));
} catch (e) {
  check("no exception", false, e?.stack ?? String(e));
  console.log(server.log());
} finally {
  for (const c of clients) await c.client.close().catch(() => {});
  server.child.kill("SIGTERM");
  await as.close();
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
