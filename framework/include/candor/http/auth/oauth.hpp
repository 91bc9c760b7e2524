// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Candor as an OAuth 2.1 resource server, as the MCP authorization specification describes:
/// protected resource metadata (RFC 9728), JWT access tokens (RFC 9068) verified locally with
/// the issuer's keys (JWKS, discovered from its metadata — RFC 8414 or OpenID Connect
/// Discovery — and cached with rotation, or from a file), audience bound to this resource
/// (RFC 8707), scopes for every call and per tool, 401/403 challenges clients can act on
/// (RFC 6750). Plugged into the HTTP transport as its `authenticator`:
///
///     auto oauth = candor::auth::make_oauth(srv, {.issuer = "https://idp.example.com/realms/acme",
///                                                .resource = "https://mcp.example.com/mcp"});
///     if (!oauth) { /* oauth.error() says which option is wrong */ }
///     http_opts.authenticator = *oauth;
///
/// Every server binary gets it from the standard command line (`--oauth-issuer`, …);
/// docs/auth.md says what each setting means and what the server promises.

#include <candor/http/auth/fetch.hpp>
#include <candor/http/auth/jwk.hpp>
#include <candor/http/auth/token.hpp>
#include <candor/http/authenticator.hpp>
#include <candor/mcp/logging.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {
class server;
}

namespace candor::auth {

/// Settings of the resource server. `issuer` and `resource` are required.
struct oauth_options {
    /// The authorization server's issuer identifier (`iss` of its tokens, the base of its
    /// metadata URLs). https, or http on a loopback host.
    std::string issuer{};
    /// This server's canonical URI, e.g. `https://mcp.example.com/mcp`: the `resource` of its
    /// metadata and the audience every token must name. Absolute, no fragment.
    std::string resource{};
    /// Where the keys are: empty — the `jwks_uri` of the issuer's metadata; an https (or
    /// loopback http) URL — fetched from there.
    std::string jwks_uri{};
    /// A JWKS document to use as it is (read from a file): never fetched, never refreshed.
    std::optional<std::string> jwks_document{};
    /// Scopes every request needs (`scopes_supported` of the metadata, and the `scope` of the
    /// 401 challenge: the set a client asks for first).
    std::vector<std::string> scopes{};
    /// `resource_name` of the metadata (shown by clients); empty: left out.
    std::string resource_name{};
    /// What a valid token is and how it becomes a principal; `issuer` and `audience` are set
    /// from the fields above.
    token_policy policy{};
    /// The HTTP client that reads metadata and keys.
    fetch_options fetch{};
    key_set_limits key_limits{};
    /// Keys are fetched again after this long (rotation of keys the issuer still publishes),
    /// in the background: requests go on with the keys at hand meanwhile.
    std::chrono::seconds keys_max_age{3600};
    /// At most one fetch of the keys per this interval, whatever triggers it: a token with an
    /// unknown `kid` (a rotation), keys that could not be loaded, keys past `keys_max_age`
    /// (the load at startup is not counted). Forged tokens cannot make the server hammer the
    /// authorization server.
    std::chrono::seconds keys_refetch_interval{30};
    /// Verified tokens remembered (by their SHA-256, until they expire), so a client's repeated
    /// requests skip the signature check. 0: none. When full, expired entries go first, then
    /// all.
    std::size_t max_cached_tokens = 10'000;
    /// The server's log (key loads and failures; never a token). Empty: none.
    mcp::log_sink log{};
    /// The clock of `exp`/`nbf` checks; empty: `system_clock::now`. For tests.
    std::function<std::chrono::system_clock::time_point()> clock{};
};

/// The RFC 9728 metadata URL of `resource`: `/.well-known/oauth-protected-resource` inserted
/// between its authority and its path (`https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`).
std::string resource_metadata_url(std::string_view resource);

/// The OAuth resource server: a `transport::authenticator`. Thread-safe.
class oauth_authenticator : public transport::authenticator {
public:
    ~oauth_authenticator() override;

    /// Verify the bearer token: 401 `UNAUTHORIZED` without one, 401 `TOKEN_*` for a refused
    /// one (`WWW-Authenticate: Bearer error="invalid_token"`), 403 `INSUFFICIENT_SCOPE`
    /// without the scopes every request needs, 503 `AUTHORIZATION_SERVER_UNAVAILABLE` while
    /// the issuer's keys cannot be loaded. Every challenge carries `resource_metadata`.
    boost::asio::awaitable<transport::auth_outcome> authenticate(std::string_view authorization) override;
    /// `tools/call` of a tool whose `tool_info::scopes` the caller lacks: 403
    /// `INSUFFICIENT_SCOPE`, naming every scope the call needs.
    std::optional<transport::auth_refusal> authorize(const mcp::principal& who,
                                                     const jsonrpc::request& request) const override;
    /// `GET /.well-known/oauth-protected-resource` (and with the resource's path appended):
    /// the metadata, to anyone, with `Access-Control-Allow-Origin: *`.
    std::optional<transport::admin_response> serve_public(const transport::admin_request& request) const override;

    /// The protected resource metadata document (RFC 9728 §2).
    boost::json::object metadata() const;

    /// Load the keys now (at startup), through metadata discovery unless `jwks_uri` or a
    /// document is given. Await it on any executor.
    /// @return nothing, or why the keys could not be loaded (for the log; requests retry later)
    boost::asio::awaitable<boost::system::result<void, std::string>> load_keys();

    /// Key fetches started so far (the initial load included), for tests and metrics.
    std::uint64_t key_fetches() const noexcept;

    struct state;

private:
    friend boost::system::result<std::shared_ptr<oauth_authenticator>, std::string> make_oauth(mcp::server&,
                                                                                               oauth_options);
    explicit oauth_authenticator(std::shared_ptr<state> s);
    std::shared_ptr<state> state_;
};

/// Check the options and build the resource server for `srv` (its tools' scopes).
/// @param srv must outlive the authenticator
/// @return the authenticator, or which option is wrong and why (one sentence)
boost::system::result<std::shared_ptr<oauth_authenticator>, std::string> make_oauth(mcp::server& srv,
                                                                                    oauth_options opts);

}  // namespace candor::auth
