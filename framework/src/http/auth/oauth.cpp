// SPDX-License-Identifier: BSL-1.0
// The OAuth resource server: challenges, the metadata document, the issuer's keys (discovery,
// fetch, rotation with a bounded refetch rate) and a cache of verified tokens.
#include <candor/http/auth/oauth.hpp>

#include <candor/http/policy.hpp>
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/url/parse.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace candor::auth {

namespace net = boost::asio;
using sys_clock = std::chrono::system_clock;
using steady = std::chrono::steady_clock;

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);
constexpr std::string_view well_known = "/.well-known/oauth-protected-resource";

// Limits on an authorization server's metadata document.
constexpr json::limits metadata_limits{256 * 1024, 8, 8192};

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out.append(out.empty() ? "" : " ").append(s);
    return out;
}

// An auth-param value as an RFC 7230 quoted-string.
std::string quoted(std::string_view v) {
    std::string out = "\"";
    for (const char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
    return out;
}

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
bool valid_scope(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u == 0x21 || (u >= 0x23 && u <= 0x5B) || (u >= 0x5D && u <= 0x7E);
    });
}

std::string sha256(std::string_view text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) return {};
    return std::string(reinterpret_cast<const char*>(digest), size);
}

// Where an issuer's metadata may be (RFC 8414 §3.1 and its §5 for OpenID Connect Discovery),
// in the order MCP prescribes.
std::vector<std::string> metadata_urls(std::string_view issuer) {
    auto u = boost::urls::parse_absolute_uri(issuer);
    if (!u) return {};
    const std::string origin = std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
    std::string path(u->encoded_path());
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::vector<std::string> urls{origin + "/.well-known/oauth-authorization-server" + path,
                                  origin + "/.well-known/openid-configuration" + path};
    if (!path.empty()) urls.push_back(origin + path + "/.well-known/openid-configuration");
    return urls;
}

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

}  // namespace

std::string resource_metadata_url(std::string_view resource) {
    auto u = boost::urls::parse_absolute_uri(resource);
    if (!u) return std::string(resource);
    std::string path(u->encoded_path());
    if (path == "/") path.clear();
    return std::string(u->scheme()) + "://" + std::string(u->encoded_authority()) + std::string(well_known) + path;
}

struct oauth_authenticator::state : std::enable_shared_from_this<state> {
    state(mcp::server& s, oauth_options o) : srv(s), opts(std::move(o)) {}

    mcp::server& srv;
    oauth_options opts;
    std::shared_ptr<fetcher> http;
    std::string metadata_url;
    std::string public_path_root, public_path_resource;
    std::string metadata_body;
    std::string base_scope;

    // The issuer's keys; `mu` guards them and the fetch state, held for copies only.
    mutable std::mutex mu;
    std::shared_ptr<const key_set> keys;
    std::string jwks_uri;  // as configured, else as discovered (cleared when it fails)
    bool fixed_keys = false;
    bool in_flight = false;
    std::optional<steady::time_point> last_fetch;
    steady::time_point loaded_at;
    std::string last_error;
    struct waiter {
        net::any_io_executor ex;
        std::shared_ptr<net::steady_timer> wake;
    };
    std::vector<waiter> waiters;
    std::atomic<std::uint64_t> fetches{0};

    // Verified tokens by SHA-256: the principal and when the token expires.
    struct cached {
        mcp::principal who;
        sys_clock::time_point expires_at;
    };
    mutable std::mutex cache_mu;
    std::unordered_map<std::string, cached> cache;

    sys_clock::time_point now() const { return opts.clock ? opts.clock() : sys_clock::now(); }
    void log(mcp::log_level l, const std::string& text) const {
        if (opts.log) opts.log(l, "oauth: " + text);
    }
    std::shared_ptr<const key_set> current_keys() const {
        std::lock_guard lock(mu);
        return keys;
    }

    // ---- challenges -----------------------------------------------------------------------

    std::string challenge(std::string_view error, std::string_view description, const std::string& scope) const {
        std::string c = "Bearer ";
        if (!error.empty()) c += "error=" + quoted(error) + ", ";
        if (!scope.empty()) c += "scope=" + quoted(scope) + ", ";
        c += "resource_metadata=" + quoted(metadata_url);
        if (!description.empty()) c += ", error_description=" + quoted(description);
        return c;
    }

    transport::auth_refusal refuse(unsigned status, std::string_view code, std::string message, std::string_view error,
                                   const std::string& scope) const {
        transport::auth_refusal r;
        r.status = status;
        r.code = code;
        r.headers.emplace_back("WWW-Authenticate",
                               challenge(error, error.empty() ? std::string_view{} : message, scope));
        r.message = std::move(message);
        return r;
    }

    transport::auth_refusal insufficient(const std::vector<std::string>& needed, std::string message) const {
        return refuse(403, "INSUFFICIENT_SCOPE", std::move(message), "insufficient_scope", join(needed));
    }

    // ---- keys -----------------------------------------------------------------------------

    // Metadata discovery: the first candidate URL that answers a document naming this issuer.
    // The `jwks_uri`, or why there is none.
    using uri_or_why = boost::system::result<std::string, std::string>;
    net::awaitable<uri_or_why> discover_jwks_uri() {
        std::string why = "no metadata found";
        for (const auto& url : metadata_urls(opts.issuer)) {
            auto r = co_await http->get(url);
            if (!r) {
                why = url + ": " + std::string(to_string(r.error()));
                continue;
            }
            if (r->status != 200) {
                why = url + ": HTTP " + std::to_string(r->status);
                continue;
            }
            auto doc = json::parse(r->body, metadata_limits);
            const auto* o = doc ? doc->root().if_object() : nullptr;
            const auto* iss = o ? o->if_contains("issuer") : nullptr;
            if (!iss || !iss->is_string() || iss->get_string() != opts.issuer) {
                // RFC 8414 §3.3: a document naming another issuer must not be used.
                why = url + ": not metadata of issuer " + opts.issuer;
                continue;
            }
            const auto* uri = o->if_contains("jwks_uri");
            if (!uri || !uri->is_string() || !secure_or_loopback(uri->get_string())) {
                why = url + ": no https jwks_uri";
                continue;
            }
            co_return uri_or_why(boost::system::in_place_value, uri->get_string());
        }
        co_return uri_or_why(boost::system::in_place_error, why);
    }

    net::awaitable<boost::system::result<key_set, std::string>> fetch_keys() {
        std::string uri;
        {
            std::lock_guard lock(mu);
            uri = jwks_uri;
        }
        const bool discovered = uri.empty();
        if (discovered) {
            auto d = co_await discover_jwks_uri();
            if (!d) co_return "metadata discovery failed (" + d.error() + ")";
            uri = *d;
        }
        auto r = co_await http->get(uri);
        std::string why;
        if (!r) why = std::string(to_string(r.error()));
        else if (r->status != 200) why = "HTTP " + std::to_string(r->status);
        if (why.empty()) {
            auto set = key_set::parse(r->body, opts.key_limits);
            if (set) {
                if (discovered) {
                    std::lock_guard lock(mu);
                    jwks_uri = uri;
                }
                co_return std::move(*set);
            }
            why = std::string(to_string(set.error()));
        }
        if (discovered || opts.jwks_uri.empty()) {
            // Discover again next time: the issuer may have moved its keys.
            std::lock_guard lock(mu);
            jwks_uri.clear();
        }
        co_return "cannot load keys from " + uri + " (" + why + ")";
    }

    // One fetch; wakes the requests waiting for it when done (also when it failed).
    static net::awaitable<void> run_fetch(std::shared_ptr<state> self) {
        struct finish {
            state& s;
            bool done = false;
            ~finish() {
                std::vector<waiter> woken;
                {
                    std::lock_guard lock(s.mu);
                    s.in_flight = false;
                    woken.swap(s.waiters);
                }
                // Unless the io_context is being torn down (then the waiters go with it).
                if (done)
                    for (auto& w : woken) net::post(w.ex, [t = w.wake] { t->cancel(); });
            }
        } guard{*self};
        auto r = co_await self->fetch_keys();
        if (r) {
            auto ids = r->key_ids();
            std::string list;
            for (const auto& id : ids) list.append(list.empty() ? "" : ", ").append(id.empty() ? "(no kid)" : id);
            const std::size_t skipped = r->skipped();
            {
                std::lock_guard lock(self->mu);
                self->keys = std::make_shared<const key_set>(std::move(*r));
                self->loaded_at = steady::now();
                self->last_error.clear();
            }
            {
                // Tokens verified with the keys before may name a key that is gone now.
                std::lock_guard lock(self->cache_mu);
                self->cache.clear();
            }
            self->log(mcp::log_level::info, "loaded " + std::to_string(ids.size()) + " key(s): " + list +
                                                (skipped ? " (" + std::to_string(skipped) + " unusable skipped)" : ""));
        } else {
            {
                std::lock_guard lock(self->mu);
                self->last_error = r.error();
            }
            self->log(mcp::log_level::warning, r.error());
        }
        guard.done = true;
    }

    // Start a fetch unless one runs or the last began less than the refetch interval ago (the
    // initial load at startup is not counted: a rotation right after it is picked up).
    // @return true if this call started it
    bool start_fetch_locked(steady::time_point t, bool initial = false) {
        if (in_flight || fixed_keys) return false;
        if (!initial) {
            if (last_fetch && t - *last_fetch < opts.keys_refetch_interval) return false;
            last_fetch = t;
        }
        in_flight = true;
        ++fetches;
        return true;
    }

    // Fetch the keys (or join the fetch under way) and await it; at once with the keys at
    // hand when the refetch interval forbids another fetch.
    net::awaitable<std::shared_ptr<const key_set>> refresh(bool initial = false) {
        auto ex = co_await net::this_coro::executor;
        auto wake = std::make_shared<net::steady_timer>(ex);
        bool start = false;
        {
            std::lock_guard lock(mu);
            start = start_fetch_locked(steady::now(), initial);
            if (!start && !in_flight) co_return keys;
            // Discovery and the keys: two fetches; the timer is only a backstop, the fetch
            // wakes its waiters when it ends.
            wake->expires_after(3 * opts.fetch.timeout + std::chrono::seconds(1));
            waiters.push_back({ex, wake});
        }
        if (start) net::co_spawn(ex, run_fetch(shared_from_this()), net::detached);
        co_await wake->async_wait(use_tuple);
        co_return current_keys();
    }

    // Keys older than their maximum age are fetched again while requests go on with them.
    void refresh_if_stale(const net::any_io_executor& ex) {
        const auto t = steady::now();
        {
            std::lock_guard lock(mu);
            if (!keys || t - loaded_at < opts.keys_max_age || !start_fetch_locked(t)) return;
        }
        net::co_spawn(ex, run_fetch(shared_from_this()), net::detached);
    }

    std::chrono::seconds retry_after() const {
        std::lock_guard lock(mu);
        if (!last_fetch) return std::chrono::seconds(1);
        const auto left =
            std::chrono::ceil<std::chrono::seconds>(*last_fetch + opts.keys_refetch_interval - steady::now());
        return std::max(left, std::chrono::seconds(1));
    }

    // ---- tokens ---------------------------------------------------------------------------

    std::optional<mcp::principal> cached_principal(const std::string& digest, sys_clock::time_point t) const {
        std::lock_guard lock(cache_mu);
        auto it = cache.find(digest);
        if (it == cache.end() || t > it->second.expires_at + opts.policy.leeway) return std::nullopt;
        return it->second.who;
    }

    void remember(std::string digest, const mcp::principal& who, const std::shared_ptr<const key_set>& verified_with,
                  sys_clock::time_point t) {
        if (opts.max_cached_tokens == 0 || digest.empty()) return;
        if (current_keys() != verified_with) return;  // the keys changed meanwhile
        std::lock_guard lock(cache_mu);
        if (cache.size() >= opts.max_cached_tokens) {
            std::erase_if(cache, [&](const auto& e) { return t > e.second.expires_at + opts.policy.leeway; });
            if (cache.size() >= opts.max_cached_tokens) cache.clear();
        }
        cache.insert_or_assign(std::move(digest), cached{who, who.credential->expires_at});
    }

    std::optional<transport::auth_refusal> check_base_scopes(const mcp::principal& who) const {
        for (const auto& s : opts.scopes)
            if (!who.credential->has_scope(s))
                return insufficient(opts.scopes,
                                    "the access token lacks the scopes every request needs: " + base_scope);
        return std::nullopt;
    }

    net::awaitable<transport::auth_outcome> authenticate(std::string_view authorization) {
        const auto token = transport::http_policy::bearer_token(authorization);
        if (!token) co_return refuse(401, "UNAUTHORIZED", "an OAuth access token is required", {}, base_scope);

        const auto t = now();
        std::string digest;
        if (opts.max_cached_tokens != 0 && token->size() <= opts.policy.limits.max_bytes) {
            digest = sha256(*token);
            if (auto who = cached_principal(digest, t)) {
                refresh_if_stale(co_await net::this_coro::executor);
                if (auto r = check_base_scopes(*who)) co_return std::move(*r);
                co_return std::move(*who);
            }
        }

        auto keys_now = current_keys();
        if (!keys_now) keys_now = co_await refresh();
        if (!keys_now) {
            auto r = refuse(503, "AUTHORIZATION_SERVER_UNAVAILABLE",
                            "the authorization server's keys cannot be loaded now; try again later", {}, {});
            r.headers.clear();
            r.headers.emplace_back("Retry-After", std::to_string(retry_after().count()));
            co_return r;
        }
        refresh_if_stale(co_await net::this_coro::executor);
        auto verified = validate_token(*token, *keys_now, opts.policy, t);
        if (!verified && verified.error() == token_error::key_unknown && !fixed_keys) {
            // A kid the keys at hand do not have: the issuer may have rotated its keys.
            auto fresh = co_await refresh();
            if (fresh && fresh != keys_now) {
                keys_now = std::move(fresh);
                verified = validate_token(*token, *keys_now, opts.policy, now());
            }
        }
        if (!verified) {
            const auto e = verified.error();
            co_return refuse(401, to_string(e), std::string(describe(e)), "invalid_token", base_scope);
        }
        remember(std::move(digest), *verified, keys_now, t);
        if (auto r = check_base_scopes(*verified)) co_return std::move(*r);
        co_return std::move(*verified);
    }
};

oauth_authenticator::oauth_authenticator(std::shared_ptr<state> s) : state_(std::move(s)) {}
oauth_authenticator::~oauth_authenticator() = default;

net::awaitable<transport::auth_outcome> oauth_authenticator::authenticate(std::string_view authorization) {
    return state_->authenticate(authorization);
}

std::optional<transport::auth_refusal> oauth_authenticator::authorize(const mcp::principal& who,
                                                                      const jsonrpc::request& request) const {
    if (request.method != "tools/call" || !who.credential || !request.params) return std::nullopt;
    const auto* name = request.params->if_contains("name");
    if (!name || !name->is_string()) return std::nullopt;  // the server answers -32602
    const auto tool = state_->srv.find_tool(name->get_string());
    if (!tool) return std::nullopt;
    const auto missing = mcp::missing_scopes(tool->info(), who);
    if (missing.empty()) return std::nullopt;
    // Everything this call needs in one challenge, so that one step-up is enough.
    auto needed = state_->opts.scopes;
    for (const auto& s : tool->info().scopes)
        if (std::find(needed.begin(), needed.end(), s) == needed.end()) needed.push_back(s);
    return state_->insufficient(needed, "tool '" + tool->info().name + "' needs the scopes '" +
                                            join(tool->info().scopes) + "'; the access token lacks '" + join(missing) +
                                            "'");
}

std::optional<transport::admin_response> oauth_authenticator::serve_public(const transport::admin_request& r) const {
    const auto path = path_of(r.target);
    if (path != state_->public_path_root && path != state_->public_path_resource) return std::nullopt;
    transport::admin_response a;
    a.headers.emplace_back("Access-Control-Allow-Origin", "*");
    if (r.method == "GET" || r.method == "HEAD") {
        a.content_type = "application/json";
        a.body = state_->metadata_body;
        a.headers.emplace_back("Cache-Control", "public, max-age=300");
    } else if (r.method == "OPTIONS") {
        // A browser's preflight (MCP clients send MCP-Protocol-Version with the request).
        a.status = 204;
        a.headers.emplace_back("Access-Control-Allow-Methods", "GET, OPTIONS");
        a.headers.emplace_back("Access-Control-Allow-Headers", "*");
        a.headers.emplace_back("Access-Control-Max-Age", "86400");
    } else {
        a.status = 405;
        a.content_type = "application/json";
        a.body = transport::http_policy::refusal_body({405, "METHOD_NOT_ALLOWED", "the metadata is read with GET"});
        a.headers.emplace_back("Allow", "GET, OPTIONS");
    }
    return a;
}

boost::json::object oauth_authenticator::metadata() const {
    const auto& o = state_->opts;
    boost::json::object m;
    m["resource"] = o.resource;
    m["authorization_servers"] = boost::json::array{boost::json::value(o.issuer)};
    if (!o.scopes.empty()) {
        boost::json::array scopes;
        for (const auto& s : o.scopes) scopes.emplace_back(s);
        m["scopes_supported"] = std::move(scopes);
    }
    m["bearer_methods_supported"] = boost::json::array{"header"};
    if (!o.resource_name.empty()) m["resource_name"] = o.resource_name;
    return m;
}

net::awaitable<boost::system::result<void, std::string>> oauth_authenticator::load_keys() {
    if (co_await state_->refresh(true)) co_return boost::system::result<void, std::string>{};
    std::lock_guard lock(state_->mu);
    co_return state_->last_error.empty() ? std::string("the keys could not be loaded") : state_->last_error;
}

std::uint64_t oauth_authenticator::key_fetches() const noexcept { return state_->fetches.load(); }

boost::system::result<std::shared_ptr<oauth_authenticator>, std::string> make_oauth(mcp::server& srv,
                                                                                    oauth_options opts) {
    const auto issuer = boost::urls::parse_absolute_uri(opts.issuer);
    if (opts.issuer.empty() || !issuer || issuer->has_query() || issuer->has_fragment())
        return std::string("the issuer must be an absolute URL without query or fragment, got '" + opts.issuer + "'");
    if (!secure_or_loopback(opts.issuer))
        return std::string("the issuer must be an https URL (http only on a loopback host), got '" + opts.issuer + "'");
    const auto resource = boost::urls::parse_absolute_uri(opts.resource);
    if (opts.resource.empty() || !resource || resource->has_fragment() || resource->encoded_host().empty())
        return std::string("the resource must be an absolute URI with a host and without fragment, got '" +
                           opts.resource + "'");
    if (!secure_or_loopback(opts.resource))
        return std::string("the resource must be an https URI (http only on a loopback host), got '" + opts.resource +
                           "'");
    if (!opts.jwks_uri.empty() && !secure_or_loopback(opts.jwks_uri))
        return std::string("the JWKS URL must be https (http only on a loopback host), got '" + opts.jwks_uri + "'");
    for (const auto& s : opts.scopes)
        if (!valid_scope(s)) return std::string("'" + s + "' is not a valid scope (RFC 6749 §3.3)");
    if (opts.policy.algorithms.empty()) return std::string("no signing algorithm is accepted");
    if (opts.policy.principal_claim.empty()) return std::string("the principal claim is empty");
    if (opts.policy.leeway < std::chrono::seconds(0) || opts.policy.leeway > std::chrono::minutes(5))
        return std::string("the clock leeway must be 0 to 300 seconds");
    if (opts.keys_refetch_interval < std::chrono::seconds(1))
        return std::string("the keys' refetch interval must be at least 1 second");
    opts.policy.issuer = opts.issuer;
    opts.policy.audience = opts.resource;

    auto s = std::make_shared<oauth_authenticator::state>(srv, std::move(opts));
    auto& o = s->opts;
    if (o.jwks_document) {
        auto set = key_set::parse(*o.jwks_document, o.key_limits);
        if (!set) return std::string("the JWKS document is refused: ") + std::string(to_string(set.error()));
        s->keys = std::make_shared<const key_set>(std::move(*set));
        s->fixed_keys = true;
        s->loaded_at = steady::now();
    }
    auto http = fetcher::create(o.fetch);
    if (!http) return http.error();
    s->http = std::move(*http);
    s->jwks_uri = o.jwks_uri;
    s->metadata_url = resource_metadata_url(o.resource);
    s->public_path_root = std::string(well_known);
    std::string resource_path(resource->encoded_path());
    s->public_path_resource =
        resource_path.empty() || resource_path == "/" ? s->public_path_root : s->public_path_root + resource_path;
    s->base_scope = join(o.scopes);
    auto authenticator = std::shared_ptr<oauth_authenticator>(new oauth_authenticator(s));
    s->metadata_body = json::to_string(authenticator->metadata()).value();
    return authenticator;
}

}  // namespace candor::auth
