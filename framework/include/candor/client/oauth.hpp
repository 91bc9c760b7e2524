// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The client's OAuth 2.1, as MCP's authorization specification asks of a client: a server
/// that answers 401 (or 403 `insufficient_scope`) is authorized against and asked again.
///
/// - **Discovery:** the protected resource's metadata (RFC 9728) from the challenge's
///   `resource_metadata`, else the path-based and root well-known URLs; its `resource` must be
///   the server's URL or a prefix of it (same origin, whole path segments). The authorization
///   server's metadata (RFC 8414, OpenID Connect Discovery) from the URLs the specification
///   lists, in its order; a document whose `issuer` is not the issuer asked for is not used.
///   PKCE `S256` must be listed.
/// - **Registration, in the specification's order:** credentials pre-registered for that issuer;
///   a client ID metadata document (`client_metadata_url`) when the server supports them;
///   dynamic registration (RFC 7591, `application_type: native`). Credentials are kept per
///   issuer and never presented to another one.
/// - **Scopes:** the challenge's `scope`, else the resource's `scopes_supported`, else none;
///   on a step-up (403 `insufficient_scope`) the union of what was asked before and the
///   challenge; `offline_access` added when the authorization server lists it.
/// - **Authorization:** authorization code with PKCE S256, `state`, and the resource indicator
///   (RFC 8707: the resource exactly as its metadata publishes it) on both requests. The
///   browser is the host's: `oauth_options::authorize` gets the URL and returns where the
///   authorization server sent the user agent back. The response's `iss` is checked as
///   RFC 9207 §2.4 and MCP say (plain string comparison) before the code goes anywhere.
/// - **Tokens:** `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none` at the
///   token endpoint, as registered and supported; a refresh token, when one was issued, is used
///   before asking the user again. At most `max_authorizations` authorizations for one request.
///   Or, for a machine, the `client_credentials` grant (`oauth_options::client_credentials`).
///
/// Every failure is a `client_error` with code `AUTHORIZATION_FAILED` and a stable `detail`
/// (see docs/codes.md). Metadata and token endpoints must be `https` (or `http` on a loopback
/// host); every response is read under the fetch limits and the strict JSON intake.
///
/// @code
///   cc::oauth_options o;
///   o.redirect_uri = "http://127.0.0.1:33418/callback";
///   o.authorize = [](std::string url) -> net::awaitable<boost::system::result<std::string, cc::client_error>> {
///       co_return co_await my_browser_flow(url);  // the URL the authorization server redirected to
///   };
///   auto auth = cc::oauth_client::create(std::move(o));
///   auto where = cc::endpoint::of_url("http://127.0.0.1:8080/mcp");
///   where.oauth = *auth;
/// @endcode

#include <candor/client/client.hpp>
#include <candor/http/auth/fetch.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::client {

/// The browser step: show `authorization_url` to the user and return the URL the authorization
/// server redirected the user agent to (the redirect URI with `code`, `state`, and `iss`), or
/// why there is none. Not bounded by the client's timeouts: a person may be deciding.
using authorization_handler = std::function<boost::asio::awaitable<boost::system::result<std::string, client_error>>(
    std::string authorization_url)>;

/// An `authorization_handler` for a host on the user's machine (a command-line tool, a desktop
/// application): it listens on `redirect_uri` — `http://` on a loopback host with a port, as
/// RFC 8252 §7.3 has native applications do — before `show(url)` shows the authorization URL
/// to the user (prints it, opens a browser), then waits at most `wait` for the browser to come
/// back: the request to the redirect URI's path is answered with a page saying the window may be
/// closed, and its URL is the handler's answer; other paths get 404 and the wait goes on. A
/// redirect URI it cannot listen on, or no redirect in time: `AUTHORIZATION_DECLINED`.
authorization_handler loopback_authorization(std::string redirect_uri, std::function<void(const std::string&)> show,
                                             std::chrono::milliseconds wait = std::chrono::minutes(5));

/// Client credentials an authorization server issued beforehand.
struct preregistered_client {
    /// The authorization server they belong to (its `issuer`, exactly). Empty: whichever one the
    /// protected resource names — the host then trusts the resource with its credentials.
    std::string issuer{};
    std::string client_id{};
    std::string client_secret{};  ///< empty: a public client (or one with a key)
    /// A P-256 private key (PEM): the client authenticates with a signed assertion instead of
    /// its secret (`private_key_jwt`, RFC 7523; ES256, `aud` the issuer, 5 minutes).
    std::string private_key_pem{};
};

struct oauth_options {
    /// The browser step; required unless `client_credentials`.
    authorization_handler authorize{};
    /// Machine to machine (the `io.modelcontextprotocol/oauth-client-credentials` extension): the
    /// `client_credentials` grant with the pre-registered credentials for the issuer, no user
    /// and no browser; the challenged (or supported) scopes and the resource indicator as above.
    bool client_credentials = false;
    /// Where the authorization server sends the user agent back (registered with it).
    std::string redirect_uri = "http://127.0.0.1:33418/callback";
    /// `client_name` in a dynamic registration.
    std::string client_name = "Candor MCP client";
    /// An `https` URL with a path, serving this client's metadata document: its `client_id`
    /// where the authorization server supports client ID metadata documents. Empty: not used.
    std::string client_metadata_url{};
    std::vector<preregistered_client> preregistered{};
    /// Ask for `offline_access` (a refresh token) where the authorization server lists it.
    bool offline_access = true;
    /// Authorizations one request may cause (the first and its step-ups); past it
    /// `AUTHORIZATION_FAILED` / `AUTHORIZATION_LIMIT`.
    std::size_t max_authorizations = 3;
    /// Each metadata, registration and token exchange: deadline, body and header limits, the CA file.
    auth::fetch_options fetch{};
};

/// An OAuth client's state: the options, the registrations per issuer, the tokens. One may be
/// shared by the sessions of one host (they then share tokens); used from one thread or strand
/// at a time, like a session.
class oauth_client {
public:
    /// @return the client, or `INVALID_ENDPOINT` for options it cannot use (no `authorize`, a
    /// redirect URI or metadata URL that is not an absolute URL, an unreadable CA file)
    static boost::system::result<std::shared_ptr<oauth_client>, client_error> create(oauth_options options);
    ~oauth_client();
    oauth_client(const oauth_client&) = delete;
    oauth_client& operator=(const oauth_client&) = delete;

    /// The access token in use; empty before the first authorization.
    const std::string& access_token() const noexcept;
    /// The issuer that granted it.
    const std::string& issuer() const noexcept;
    /// The scopes asked for it (what the next step-up adds to).
    const std::vector<std::string>& scopes() const noexcept;

    /// A fresh token after the server at `server_url` answered `status` (401, or 403) with the
    /// challenge `www_authenticate` (the fields' joined values), or why there is none. The
    /// channel calls this; a host rarely needs to.
    boost::asio::awaitable<boost::system::result<std::string, client_error>> authorize_for(
        std::string server_url, unsigned status, std::string www_authenticate);

    const oauth_options& options() const noexcept;

    struct impl;

private:
    explicit oauth_client(std::unique_ptr<impl> i);
    std::unique_ptr<impl> impl_;
};

/// The parameters of a `WWW-Authenticate` field's `Bearer` challenge (RFC 6750 §3, RFC 9728
/// §5.1): names lowercased, quoted values unquoted. Empty when there is no Bearer challenge.
std::vector<std::pair<std::string, std::string>> bearer_challenge(std::string_view www_authenticate);

/// Whether a protected resource's `resource` may stand for the server at `server_url`: the
/// same origin (scheme and host compared without case, ports with defaults filled in) and a
/// path that is the server's or a prefix of it in whole segments.
bool resource_covers(std::string_view resource, std::string_view server_url);

/// The URLs to ask for an authorization server's metadata, in MCP's order, from its issuer.
std::vector<std::string> authorization_server_metadata_urls(std::string_view issuer);

/// The URLs to ask for a protected resource's metadata when the challenge names none: the
/// path-based one (when the server's URL has a path), then the root.
std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url);

}  // namespace candor::client
