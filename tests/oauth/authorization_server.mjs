// SPDX-License-Identifier: BSL-1.0
// A real OAuth 2.1 / OpenID Connect authorization server for the end-to-end test: oidc-provider
// on 127.0.0.1 with dynamic client registration, PKCE, resource indicators (RFC 8707) and
// JWT access tokens (RFC 9068) signed with ES256. Consent is automated: the test plays the
// browser (`authorize`). Test-only; never part of a Candor binary.
import http from "node:http";
import Provider from "oidc-provider";
import * as jose from "jose";

export const resourceScopes = "mcp:tools accounts:archive";

async function signingKey(kid) {
  const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
  return { ...(await jose.exportJWK(privateKey)), kid, alg: "ES256", use: "sig" };
}

export async function startAuthorizationServer() {
  const server = http.createServer((req, res) => route(req, res));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const stats = { jwks: 0 };
  let keys = [await signingKey("k1")];
  let account = "admin";

  const make = () =>
    new Provider(issuer, {
      jwks: { keys },
      findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (ctx, resourceIndicator) => ({
            scope: resourceScopes,
            audience: resourceIndicator,
            accessTokenTTL: 600,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          }),
        },
      },
      scopes: ["openid", "offline_access", ...resourceScopes.split(" ")],
      clients: [
        {
          client_id: "machine",
          client_secret: "machine-secret",
          grant_types: ["client_credentials"],
          redirect_uris: [],
          response_types: [],
        },
      ],
      // Only ES256 keys: registered clients get ID tokens signed with them too.
      clientDefaults: { id_token_signed_response_alg: "ES256" },
      interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      cookies: { keys: ["candor-oauth-e2e"] },
      ttl: { AccessToken: 600, ClientCredentials: 600, Grant: 3600, Interaction: 600, Session: 3600 },
    });
  let provider = make();

  // The automated user: logs in as `account` and consents to whatever the client asked for.
  async function interaction(req, res) {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session, grantId } = details;
    let result;
    if (prompt.name === "login") {
      result = { login: { accountId: account } };
    } else {
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const d = prompt.details;
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      if (d.missingResourceScopes)
        for (const [indicator, scopes] of Object.entries(d.missingResourceScopes))
          grant.addResourceScope(indicator, scopes.join(" "));
      result = { consent: { grantId: await grant.save() } };
    }
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  function route(req, res) {
    if (req.url.startsWith("/jwks")) stats.jwks++;
    if (req.url.startsWith("/interaction/")) {
      interaction(req, res).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
      return;
    }
    provider.callback()(req, res);
  }

  return {
    issuer,
    stats,
    /** The key tokens are signed with now (a private JWK). */
    currentKey: () => keys[0],
    /** Publish a new signing key first and keep the old one, as a rotation does. */
    async rotate(kid) {
      keys = [await signingKey(kid), ...keys];
      provider = make();
    },
    /**
     * Play the browser through an authorization URL as `who`: follow redirects with a cookie
     * jar, let the interactions log in and consent, and return the code sent to redirectUri.
     */
    async authorize(url, who, redirectUri) {
      const target = await this.redirect(url, who, redirectUri);
      const code = target.searchParams.get("code");
      if (!code) throw new Error(`authorization refused: ${target.search}`);
      return code;
    },
    /** The same, and the whole URL the browser is sent back to (code, state, iss). */
    async redirect(url, who, redirectUri) {
      account = who;
      const jar = new Map();
      let next = url;
      for (let hop = 0; hop < 20; hop++) {
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
        const res = await fetch(next, { redirect: "manual", headers: cookie ? { cookie } : {} });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(";");
          const eq = pair.indexOf("=");
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const location = res.headers.get("location");
        if (!location) throw new Error(`authorization stopped with HTTP ${res.status}: ${await res.text()}`);
        const target = new URL(location, next);
        if (target.href.startsWith(redirectUri)) return target;
        next = target.href;
      }
      throw new Error("too many redirects");
    },
    /** A token from the client credentials grant of the `machine` client, for `resource`. */
    async machineToken(resource, scope) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: "Basic " + Buffer.from("machine:machine-secret").toString("base64"),
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
