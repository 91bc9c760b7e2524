// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// The client's OAuth 2.1: discovery, registration, the authorization code flow with PKCE, and
// tokens, after a server's 401 or 403 (see candor/client/oauth.hpp for the rules).
#include "channel.hpp"

#include <candor/client/oauth.hpp>
#include <candor/http/auth/base64url.hpp>
#include <candor/json/document.hpp>
#include <candor/json/intake.hpp>
#include <candor/mcp/base64.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

namespace candor::client {

namespace {

namespace net = boost::asio;
using boost::json::object;
using detail::outcome;

client_error failed(std::string detail, std::string message) {
    return detail::error("AUTHORIZATION_FAILED", std::move(message), std::move(detail));
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string random_text(std::size_t bytes) {
    std::string raw(bytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1)
        throw std::runtime_error("RAND_bytes failed: no PKCE verifier or state can be made");
    return auth::base64url_encode(raw);
}

std::string s256(std::string_view verifier) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
    return auth::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

// application/x-www-form-urlencoded, every byte but the unreserved ones escaped.
std::string form_escape(std::string_view s) { return boost::urls::encode(s, boost::urls::unreserved_chars); }

using form = std::vector<std::pair<std::string, std::string>>;

std::string encode(const form& f) {
    std::string out;
    for (const auto& [k, v] : f) {
        if (!out.empty()) out += '&';
        out += form_escape(k);
        out += '=';
        out += form_escape(v);
    }
    return out;
}

bool contains(const std::vector<std::string>& list, std::string_view s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

std::vector<std::string> strings_of(const object& o, std::string_view key) {
    std::vector<std::string> out;
    if (const auto* a = o.if_contains(key); a && a->is_array())
        for (const auto& v : a->get_array())
            if (v.is_string()) out.emplace_back(v.get_string());
    return out;
}

std::string string_of(const object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::vector<std::string> split_scopes(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && s[i] == ' ') ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ') ++j;
        if (j > i && !contains(out, s.substr(i, j - i))) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
    std::string out;
    for (const auto& s : scopes) {
        if (!out.empty()) out += ' ';
        out += s;
    }
    return out;
}

// A short, printable excerpt of what a server said (an error description in a message).
std::string excerpt(std::string_view s) {
    std::string out;
    for (char c : s.substr(0, 200)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    return out;
}

struct origin_and_path {
    std::string origin;  // scheme://authority, as written
    std::string path;    // without a trailing slash; empty for the root
};

std::optional<origin_and_path> split_url(std::string_view url) {
    auto u = boost::urls::parse_absolute_uri(url);
    if (!u || !u->has_authority() || u->encoded_host().empty()) return std::nullopt;
    origin_and_path out;
    out.origin = std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
    out.path = std::string(u->encoded_path());
    while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
    return out;
}

// What the client knows of an authorization server, from its validated metadata.
struct server_metadata {
    std::string issuer, authorization_endpoint, token_endpoint, registration_endpoint;
    std::vector<std::string> scopes_supported, auth_methods;
    bool client_id_documents = false;
    bool iss_parameter = false;
};

struct resource_metadata {
    std::string resource;
    std::string issuer;  // the first authorization server listed
    std::vector<std::string> scopes_supported;
};

struct registration {
    std::string client_id, client_secret, auth_method, private_key_pem;
    bool dynamic;  // made by dynamic registration: forgotten when the server no longer knows it
};

// A compact JWS (ES256) of `claims` with the P-256 key in `pem`; empty when the key is unusable.
std::string es256_assertion(const std::string& pem, const object& claims) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
    if (!key || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_EC || EVP_PKEY_get_bits(key.get()) != 256) return {};
    const auto input = auth::base64url_encode(R"({"alg":"ES256","typ":"JWT"})") + "." +
                       auth::base64url_encode(boost::json::serialize(claims));
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    std::size_t len = 0;
    const auto* in = reinterpret_cast<const unsigned char*>(input.data());
    if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
        EVP_DigestSign(md.get(), nullptr, &len, in, input.size()) != 1)
        return {};
    std::string der(len, '\0');
    if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &len, in, input.size()) != 1) return {};
    // DER → R || S, 32 bytes each, as JWS wants it (RFC 7518 §3.4).
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len)),
                                                              ECDSA_SIG_free);
    if (!sig) return {};
    std::string raw(64, '\0');
    if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), reinterpret_cast<unsigned char*>(raw.data()), 32) != 32 ||
        BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32) != 32)
        return {};
    return input + "." + auth::base64url_encode(raw);
}

object assertion_claims(const std::string& client_id, const std::string& audience, const std::string& jti) {
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return object{{"iss", client_id}, {"sub", client_id}, {"aud", audience},
                  {"iat", now},       {"exp", now + 300}, {"jti", jti}};
}

std::string auth_method_for(const server_metadata& m, bool has_secret) {
    if (!has_secret) return "none";
    // RFC 8414 §2: an absent list means client_secret_basic.
    if (m.auth_methods.empty() || contains(m.auth_methods, "client_secret_basic")) return "client_secret_basic";
    if (contains(m.auth_methods, "client_secret_post")) return "client_secret_post";
    return "client_secret_basic";
}

bool loopback_redirect(std::string_view uri) {
    auto u = boost::urls::parse_absolute_uri(uri);
    if (!u) return false;
    const auto host = u->host_address();
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

object registration_request(const oauth_options& o, const std::string& method) {
    return object{{"client_name", o.client_name},
                  {"redirect_uris", boost::json::array{boost::json::string(o.redirect_uri)}},
                  {"grant_types", boost::json::array{"authorization_code", "refresh_token"}},
                  {"response_types", boost::json::array{"code"}},
                  {"token_endpoint_auth_method", method},
                  {"application_type", loopback_redirect(o.redirect_uri) ? "native" : "web"}};
}

// The forms and messages the coroutines below send and say, built here: GCC 12 mishandles
// temporaries of braced initializers and conditional expressions in coroutine bodies.
form client_credentials_form(const std::vector<std::string>& scopes, const std::string& resource) {
    form f{{"grant_type", "client_credentials"}};
    if (!scopes.empty()) f.emplace_back("scope", join_scopes(scopes));
    f.emplace_back("resource", resource);
    return f;
}
form refresh_form(const std::string& refresh, const std::string& resource) {
    return form{{"grant_type", "refresh_token"}, {"refresh_token", refresh}, {"resource", resource}};
}
form code_form(const std::string& code, const oauth_options& o, const std::string& verifier,
               const std::string& resource) {
    return form{{"grant_type", "authorization_code"},
                {"code", code},
                {"redirect_uri", o.redirect_uri},
                {"code_verifier", verifier},
                {"resource", resource}};
}
std::string authorization_url(const std::string& endpoint, const registration& reg, const oauth_options& o,
                              const std::string& state, const std::string& verifier,
                              const std::vector<std::string>& scopes, const std::string& resource) {
    form q{{"response_type", "code"}, {"client_id", reg.client_id},       {"redirect_uri", o.redirect_uri},
           {"state", state},          {"code_challenge", s256(verifier)}, {"code_challenge_method", "S256"}};
    if (!scopes.empty()) q.emplace_back("scope", join_scopes(scopes));
    q.emplace_back("resource", resource);
    return endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + encode(q);
}
registration metadata_document_client(const oauth_options& o) {
    return registration{o.client_metadata_url, {}, "none", {}, false};
}
std::string registration_body(const oauth_options& o, const server_metadata& m) {
    // A public client (PKCE, no secret) where the server takes one; else a secret it can use.
    const bool public_client = contains(m.auth_methods, "none");
    return boost::json::serialize(registration_request(o, public_client ? "none" : auth_method_for(m, true)));
}
std::string answered(std::string_view what, const auth::fetch_response& r, const std::optional<object>& doc) {
    std::string out = std::string(what) + " answered HTTP " + std::to_string(r.status);
    if (doc && doc->contains("error"))
        out += ": " + excerpt(string_of(*doc, "error")) + " " + excerpt(string_of(*doc, "error_description"));
    return out;
}
std::string forbidden(const std::string& error_code) {
    return "the server refuses this request (HTTP 403" +
           (error_code.empty() ? std::string() : ", " + excerpt(error_code)) + ")";
}
std::vector<std::string> resource_metadata_urls(const std::string& server_url, const std::string& named) {
    if (!named.empty()) return {named};
    return protected_resource_metadata_urls(server_url);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> bearer_challenge(std::string_view h) {
    std::vector<std::pair<std::string, std::string>> out;
    h = h.substr(0, 16 * 1024);
    std::size_t i = 0;
    bool bearer = false;
    const auto space = [&] {
        while (i < h.size() && (h[i] == ' ' || h[i] == '\t')) ++i;
    };
    while (i < h.size()) {
        space();
        if (i < h.size() && h[i] == ',') {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < h.size() && h[i] != ' ' && h[i] != '\t' && h[i] != ',' && h[i] != '=') ++i;
        const auto name = h.substr(start, i - start);
        space();
        if (i < h.size() && h[i] == '=' && !name.empty()) {
            ++i;
            space();
            std::string value;
            if (i < h.size() && h[i] == '"') {
                for (++i; i < h.size() && h[i] != '"'; ++i) {
                    if (h[i] == '\\' && i + 1 < h.size()) ++i;
                    value += h[i];
                }
                if (i < h.size()) ++i;  // the closing quote
            } else {
                const std::size_t v = i;
                while (i < h.size() && h[i] != ',' && h[i] != ' ' && h[i] != '\t') ++i;
                value = std::string(h.substr(v, i - v));
            }
            if (bearer) out.emplace_back(lower(name), std::move(value));
        } else if (!name.empty()) {
            bearer = lower(name) == "bearer";  // a challenge's scheme
        } else {
            ++i;  // a stray character
        }
    }
    return out;
}

bool resource_covers(std::string_view resource, std::string_view server_url) {
    auto r = boost::urls::parse_absolute_uri(resource);
    auto s = boost::urls::parse_absolute_uri(server_url);
    if (!r || !s || r->has_fragment() || !r->has_authority() || !s->has_authority()) return false;
    const auto port = [](const boost::urls::url_view& u) {
        if (u.has_port()) return std::string(u.port());
        return std::string(u.scheme_id() == boost::urls::scheme::https ? "443" : "80");
    };
    if (lower(r->scheme()) != lower(s->scheme()) || lower(r->host_address()) != lower(s->host_address()) ||
        port(*r) != port(*s))
        return false;
    std::string rp(r->encoded_path()), sp(s->encoded_path());
    while (!rp.empty() && rp.back() == '/') rp.pop_back();
    while (!sp.empty() && sp.back() == '/') sp.pop_back();
    return rp.empty() || sp == rp ||
           (sp.size() > rp.size() && sp.compare(0, rp.size(), rp) == 0 && sp[rp.size()] == '/');
}

std::vector<std::string> authorization_server_metadata_urls(std::string_view issuer) {
    auto u = split_url(issuer);
    if (!u) return {};
    if (u->path.empty())
        return {u->origin + "/.well-known/oauth-authorization-server", u->origin + "/.well-known/openid-configuration"};
    return {u->origin + "/.well-known/oauth-authorization-server" + u->path,
            u->origin + "/.well-known/openid-configuration" + u->path,
            u->origin + u->path + "/.well-known/openid-configuration"};
}

std::vector<std::string> protected_resource_metadata_urls(std::string_view server_url) {
    auto u = split_url(server_url);
    if (!u) return {};
    std::vector<std::string> out;
    if (!u->path.empty()) out.push_back(u->origin + "/.well-known/oauth-protected-resource" + u->path);
    out.push_back(u->origin + "/.well-known/oauth-protected-resource");
    return out;
}

struct oauth_client::impl {
    oauth_options opts;
    std::shared_ptr<auth::fetcher> http;
    std::map<std::string, registration, std::less<>> registrations;  // by issuer
    std::string token, refresh, issuer, resource;
    std::vector<std::string> scopes;

    json::limits doc_limits() const {
        json::limits lim;
        lim.max_bytes = opts.fetch.max_body_bytes;
        lim.max_depth = 32;
        lim.max_nodes = 100'000;
        return lim;
    }

    // A JSON object from a response body, strictly; or nothing.
    std::optional<object> object_of(const auth::fetch_response& r) const {
        auto doc = json::parse(r.body, doc_limits());
        if (!doc || !doc->root().is_object()) return std::nullopt;
        return json::detach(doc->root()).as_object();
    }

    // The JSON object `url` answers with 200, or nothing and why not (in `why`).
    net::awaitable<std::optional<object>> document(const std::string& url, std::string& why) const {
        auto r = co_await http->get(url);
        if (!r) {
            why = url + ": " + std::string(auth::to_string(r.error()));
            co_return std::nullopt;
        }
        if (r->status != 200) {
            why = url + ": HTTP " + std::to_string(r->status);
            co_return std::nullopt;
        }
        auto doc = object_of(*r);
        if (!doc) why = url + ": not a JSON object";
        co_return doc;
    }

    net::awaitable<outcome<resource_metadata>> discover_resource(const std::string& server_url,
                                                                 const std::string& named) {
        const auto urls = resource_metadata_urls(server_url, named);
        std::string why = "no URL to ask";
        for (const auto& url : urls) {
            auto doc = co_await document(url, why);
            if (!doc) continue;
            const auto servers = strings_of(*doc, "authorization_servers");
            if (string_of(*doc, "resource").empty() || servers.empty()) {
                why = url + ": not protected resource metadata (resource, authorization_servers)";
                continue;
            }
            resource_metadata m;
            m.resource = string_of(*doc, "resource");
            m.issuer = servers.front();
            m.scopes_supported = strings_of(*doc, "scopes_supported");
            co_return m;
        }
        co_return failed("RESOURCE_METADATA_UNAVAILABLE",
                         "no protected resource metadata for " + server_url + " (" + why + ")");
    }

    net::awaitable<outcome<server_metadata>> discover_server(const std::string& issuer_id) {
        bool mismatch = false;
        std::string why = "not an absolute URL";
        for (const auto& url : authorization_server_metadata_urls(issuer_id)) {
            auto doc = co_await document(url, why);
            if (!doc) continue;
            // RFC 8414 §3.3: the document's issuer is the one its URL was made from, exactly.
            if (string_of(*doc, "issuer") != issuer_id) {
                mismatch = true;
                why = url + ": its issuer is " + excerpt(string_of(*doc, "issuer"));
                continue;
            }
            server_metadata m;
            m.issuer = issuer_id;
            m.authorization_endpoint = string_of(*doc, "authorization_endpoint");
            m.token_endpoint = string_of(*doc, "token_endpoint");
            m.registration_endpoint = string_of(*doc, "registration_endpoint");
            m.scopes_supported = strings_of(*doc, "scopes_supported");
            m.auth_methods = strings_of(*doc, "token_endpoint_auth_methods_supported");
            const auto* cimd = doc->if_contains("client_id_metadata_document_supported");
            m.client_id_documents = cimd && cimd->is_bool() && cimd->get_bool();
            const auto* iss = doc->if_contains("authorization_response_iss_parameter_supported");
            m.iss_parameter = iss && iss->is_bool() && iss->get_bool();
            if (!auth::secure_or_loopback(m.authorization_endpoint) || !auth::secure_or_loopback(m.token_endpoint) ||
                (!m.registration_endpoint.empty() && !auth::secure_or_loopback(m.registration_endpoint)))
                co_return failed("AUTHORIZATION_SERVER_METADATA_UNAVAILABLE",
                                 url + ": its endpoints must be https URLs (or http on a loopback host)");
            // MCP: without S256 listed the server does not do PKCE, and the client must not go on.
            if (!contains(strings_of(*doc, "code_challenge_methods_supported"), "S256"))
                co_return failed("PKCE_UNSUPPORTED", issuer_id + " does not list PKCE S256 in its metadata");
            co_return m;
        }
        if (mismatch)
            co_return failed("ISSUER_MISMATCH", "the authorization server metadata for " + issuer_id +
                                                    " names another issuer; it is not used (" + why + ")");
        co_return failed("AUTHORIZATION_SERVER_METADATA_UNAVAILABLE",
                         "no authorization server metadata for " + issuer_id + " (" + why + ")");
    }

    net::awaitable<outcome<registration>> register_with(const server_metadata& m) {
        if (auto known = registrations.find(m.issuer); known != registrations.end()) co_return known->second;
        for (const auto& p : opts.preregistered)
            if (p.issuer == m.issuer || p.issuer.empty()) {
                registration r{p.client_id, p.client_secret, auth_method_for(m, !p.client_secret.empty()),
                               p.private_key_pem, false};
                if (!p.private_key_pem.empty()) r.auth_method = "private_key_jwt";
                registrations.emplace(m.issuer, r);
                co_return r;
            }
        if (opts.client_credentials)
            co_return failed("NO_REGISTRATION", "no credentials for " + m.issuer + " (client_credentials)");
        if (m.client_id_documents && !opts.client_metadata_url.empty()) co_return metadata_document_client(opts);
        if (m.registration_endpoint.empty())
            co_return failed("NO_REGISTRATION", m.issuer +
                                                    " offers no dynamic registration and this client has no "
                                                    "credentials for it (nor a client metadata document it accepts)");
        auth::fetch_request rq;
        rq.verb = auth::fetch_request::method::post;
        rq.url = m.registration_endpoint;
        rq.content_type = "application/json";
        rq.body = registration_body(opts, m);
        auto r = co_await http->send(std::move(rq));
        if (!r)
            co_return failed("REGISTRATION_REFUSED", "registration at " + m.registration_endpoint + ": " +
                                                         std::string(auth::to_string(r.error())));
        auto doc = object_of(*r);
        if ((r->status != 200 && r->status != 201) || !doc || string_of(*doc, "client_id").empty())
            co_return failed("REGISTRATION_REFUSED", answered("registration at " + m.registration_endpoint, *r, doc));
        registration reg{string_of(*doc, "client_id"),
                         string_of(*doc, "client_secret"),
                         string_of(*doc, "token_endpoint_auth_method"),
                         {},
                         true};
        if (reg.auth_method.empty()) reg.auth_method = auth_method_for(m, !reg.client_secret.empty());
        registrations.emplace(m.issuer, reg);
        co_return reg;
    }

    // A token request with the client's authentication; the access token, or why not.
    net::awaitable<outcome<object>> token_request(const server_metadata& m, const registration& reg, form params) {
        auth::fetch_request rq;
        rq.verb = auth::fetch_request::method::post;
        rq.url = m.token_endpoint;
        rq.content_type = "application/x-www-form-urlencoded";
        if (reg.auth_method == "client_secret_basic") {
            // RFC 6749 §2.3.1: both form-encoded, then base64.
            rq.headers.emplace_back("Authorization", "Basic " + mcp::base64_encode(form_escape(reg.client_id) + ":" +
                                                                                   form_escape(reg.client_secret)));
        } else if (reg.auth_method == "private_key_jwt") {
            const auto claims = assertion_claims(reg.client_id, m.issuer, random_text(16));
            const auto assertion = es256_assertion(reg.private_key_pem, claims);
            if (assertion.empty())
                co_return failed("TOKEN_REFUSED", "the client's private key is not a usable P-256 key (PEM)");
            params.emplace_back("client_id", reg.client_id);
            params.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
            params.emplace_back("client_assertion", assertion);
        } else {
            params.emplace_back("client_id", reg.client_id);
            if (reg.auth_method == "client_secret_post") params.emplace_back("client_secret", reg.client_secret);
        }
        rq.body = encode(params);
        auto r = co_await http->send(std::move(rq));
        if (!r)
            co_return failed("TOKEN_REFUSED",
                             "token request to " + m.token_endpoint + ": " + std::string(auth::to_string(r.error())));
        auto doc = object_of(*r);
        if (r->status != 200 || !doc || string_of(*doc, "access_token").empty() ||
            lower(string_of(*doc, "token_type")) != "bearer") {
            // A registration the server no longer knows (expired, removed) is made again next time.
            if (reg.dynamic && doc && string_of(*doc, "error") == "invalid_client") registrations.erase(m.issuer);
            co_return failed("TOKEN_REFUSED", answered(m.token_endpoint, *r, doc) + " (no bearer access token)");
        }
        co_return std::move(*doc);
    }

    void keep(const object& t, const std::string& iss, const std::string& res, std::vector<std::string> asked) {
        token = string_of(t, "access_token");
        if (auto r = string_of(t, "refresh_token"); !r.empty()) refresh = std::move(r);
        issuer = iss;
        resource = res;
        scopes = std::move(asked);
    }

    // The authorization response's parameters, after its iss and state are checked.
    outcome<std::string> code_from(const std::string& redirect, const server_metadata& m,
                                   const std::string& state) const {
        auto u = boost::urls::parse_uri_reference(redirect);
        auto expected = boost::urls::parse_absolute_uri(opts.redirect_uri);
        if (!u || !expected || u->scheme() != expected->scheme() ||
            u->encoded_authority() != expected->encoded_authority() || u->encoded_path() != expected->encoded_path())
            return failed("REDIRECT_MISMATCH", "the authorization response did not come to " + opts.redirect_uri);
        std::map<std::string, std::string, std::less<>> p;
        for (auto param : u->params()) {
            if (p.count(param.key))
                return failed("AUTHORIZATION_DECLINED", "the authorization response repeats " + param.key);
            p.emplace(param.key, param.value);
        }
        // RFC 9207 §2.4 as MCP words it: a present iss is compared as a plain string; an absent
        // one is refused where the server said it sends it. Before anything else is believed.
        const auto iss = p.find("iss");
        if (iss == p.end() && m.iss_parameter)
            return failed("ISS_MISSING", m.issuer + " says it sends iss, and its authorization response has none");
        if (iss != p.end() && iss->second != m.issuer)
            return failed("ISS_MISMATCH", "the authorization response comes from issuer " + excerpt(iss->second) +
                                              ", not " + m.issuer + "; it is not used");
        if (auto s = p.find("state"); s == p.end() || s->second != state)
            return failed("STATE_MISMATCH", "the authorization response's state is not the request's");
        if (auto e = p.find("error"); e != p.end()) {
            auto d = p.find("error_description");
            return failed("AUTHORIZATION_DECLINED", "the authorization server answered " + excerpt(e->second) +
                                                        (d != p.end() ? ": " + excerpt(d->second) : ""));
        }
        auto code = p.find("code");
        if (code == p.end() || code->second.empty())
            return failed("AUTHORIZATION_DECLINED", "the authorization response has no code");
        return code->second;
    }

    net::awaitable<outcome<std::string>> authorize(const std::string& server_url, unsigned status,
                                                   const std::string& www) {
        std::string named, challenged, error_code;
        for (const auto& [k, v] : bearer_challenge(www)) {
            if (k == "resource_metadata") named = v;
            else if (k == "scope") challenged = v;
            else if (k == "error") error_code = v;
        }
        if (status == 403 && error_code != "insufficient_scope") co_return failed("FORBIDDEN", forbidden(error_code));
        auto prm = co_await discover_resource(server_url, named);
        if (!prm) co_return prm.error();
        // The token must be for this server: a resource that is not it (or above it) is not trusted.
        if (!resource_covers(prm->resource, server_url))
            co_return failed("RESOURCE_MISMATCH", "the protected resource metadata is for " + excerpt(prm->resource) +
                                                      ", not " + server_url);
        auto meta = co_await discover_server(prm->issuer);
        if (!meta) co_return meta.error();
        const bool again = prm->issuer == issuer && prm->resource == resource;
        if (!again) refresh.clear();  // a refresh token is the issuer's and the resource's
        // A 401 with a refresh token: a new access token without asking the user.
        if (status == 401 && again && !refresh.empty()) {
            auto reg = co_await register_with(*meta);
            if (reg) {
                auto f = refresh_form(refresh, prm->resource);
                refresh.clear();
                auto t = co_await token_request(*meta, *reg, std::move(f));
                if (t) {
                    keep(*t, meta->issuer, prm->resource, scopes);
                    co_return token;
                }
            }
        }
        // The scopes: the challenge's (authoritative for this request), else the resource's; on
        // a new authorization at the same server, with those asked before (not to lose them).
        auto wanted = prm->scopes_supported;
        if (!challenged.empty()) wanted = split_scopes(challenged);
        if (again)
            for (const auto& s : scopes)
                if (!contains(wanted, s)) wanted.push_back(s);
        if (opts.offline_access && contains(meta->scopes_supported, "offline_access") &&
            !contains(wanted, "offline_access"))
            wanted.emplace_back("offline_access");
        auto reg = co_await register_with(*meta);
        if (!reg) co_return reg.error();
        if (opts.client_credentials) {
            auto t = co_await token_request(*meta, *reg, client_credentials_form(wanted, prm->resource));
            if (!t) co_return t.error();
            keep(*t, meta->issuer, prm->resource, std::move(wanted));
            co_return token;
        }
        const auto verifier = random_text(32);
        const auto state = random_text(16);
        auto url = authorization_url(meta->authorization_endpoint, *reg, opts, state, verifier, wanted, prm->resource);
        auto redirect = co_await opts.authorize(url);
        if (!redirect)
            co_return failed("AUTHORIZATION_DECLINED", "the authorization was not given: " + redirect.error().message);
        auto code = code_from(*redirect, *meta, state);
        if (!code) co_return code.error();
        auto f = code_form(*code, opts, verifier, prm->resource);
        auto t = co_await token_request(*meta, *reg, std::move(f));
        if (!t) co_return t.error();
        keep(*t, meta->issuer, prm->resource, std::move(wanted));
        co_return token;
    }
};

namespace {

// Waits for the browser's request to the redirect URI on `acceptor`, until `deadline`.
net::awaitable<outcome<std::string>> receive_redirect(net::ip::tcp::acceptor& acceptor, std::string origin,
                                                      std::string path,
                                                      std::chrono::steady_clock::time_point deadline) {
    namespace http = boost::beast::http;
    const auto declined = [](std::string why) { return failed("AUTHORIZATION_DECLINED", std::move(why)); };
    while (true) {
        auto ex = co_await net::this_coro::executor;
        net::steady_timer timer(ex);
        timer.expires_at(deadline);
        timer.async_wait([&acceptor](boost::system::error_code ec) {
            if (!ec) acceptor.cancel();
        });
        auto [aec, socket] = co_await acceptor.async_accept(net::as_tuple(net::use_awaitable));
        timer.cancel();
        if (aec) co_return declined("no redirect came back to " + origin + path + " in time");
        boost::beast::tcp_stream stream(std::move(socket));
        stream.expires_after(std::chrono::seconds(10));
        boost::beast::flat_buffer buffer;
        http::request_parser<http::empty_body> parser;
        parser.header_limit(16 * 1024);
        auto [rec, n] = co_await http::async_read(stream, buffer, parser, net::as_tuple(net::use_awaitable));
        if (rec) continue;
        const std::string target(parser.get().target());
        const bool ours = parser.get().method() == http::verb::get && target.substr(0, target.find('?')) == path;
        http::response<http::string_body> res{ours ? http::status::ok : http::status::not_found, 11};
        res.set(http::field::content_type, "text/html; charset=utf-8");
        res.set(http::field::connection, "close");
        res.body() = ours ? "<!doctype html><title>Authorized</title><p>The authorization went back to the "
                            "application. You may close this window.</p>"
                          : "<!doctype html><title>Not found</title>";
        res.prepare_payload();
        (void)co_await http::async_write(stream, res, net::as_tuple(net::use_awaitable));
        if (ours) co_return origin + target;
    }
}

// Where a loopback redirect URI is received: its address and port, and its path; or nothing.
struct loopback_target {
    net::ip::tcp::endpoint at;
    std::string origin, path;
};
std::optional<loopback_target> loopback_of(const std::string& redirect_uri) {
    auto u = boost::urls::parse_absolute_uri(redirect_uri);
    if (!u || u->scheme_id() != boost::urls::scheme::http || !u->has_port()) return std::nullopt;
    std::string host(u->host_address());
    if (host == "localhost") host = "127.0.0.1";
    boost::system::error_code ec;
    const auto address = net::ip::make_address(host, ec);
    if (ec || !address.is_loopback()) return std::nullopt;
    loopback_target t;
    t.at = net::ip::tcp::endpoint(address, static_cast<unsigned short>(u->port_number()));
    t.origin = std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
    t.path = std::string(u->encoded_path());
    if (t.path.empty()) t.path = "/";
    return t;
}

}  // namespace

authorization_handler loopback_authorization(std::string redirect_uri, std::function<void(const std::string&)> show,
                                             std::chrono::milliseconds wait) {
    return [redirect_uri = std::move(redirect_uri), show = std::move(show),
            wait](std::string url) -> net::awaitable<outcome<std::string>> {
        const auto target = loopback_of(redirect_uri);
        if (!target)
            co_return failed("AUTHORIZATION_DECLINED",
                             "the redirect URI " + redirect_uri + " is not http:// on a loopback address with a port");
        auto ex = co_await net::this_coro::executor;
        net::ip::tcp::acceptor acceptor(ex);
        boost::system::error_code ec;
        acceptor.open(target->at.protocol(), ec);
        if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
        if (!ec) acceptor.bind(target->at, ec);
        if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
        if (ec) co_return failed("AUTHORIZATION_DECLINED", "cannot listen on " + redirect_uri + ": " + ec.message());
        // Listening before the user is shown the URL: the browser cannot come back too early.
        show(url);
        const auto deadline = std::chrono::steady_clock::now() + wait;
        co_return co_await receive_redirect(acceptor, target->origin, target->path, deadline);
    };
}

boost::system::result<std::shared_ptr<oauth_client>, client_error> oauth_client::create(oauth_options options) {
    if (!options.authorize && !options.client_credentials)
        return detail::error("INVALID_ENDPOINT", "OAuth needs an authorize handler (the browser step)");
    if (!boost::urls::parse_absolute_uri(options.redirect_uri))
        return detail::error("INVALID_ENDPOINT", "the redirect URI is not an absolute URL: " + options.redirect_uri);
    if (!options.client_metadata_url.empty()) {
        auto u = boost::urls::parse_absolute_uri(options.client_metadata_url);
        if (!u || u->scheme_id() != boost::urls::scheme::https || u->encoded_path().size() < 2)
            return detail::error("INVALID_ENDPOINT", "a client metadata document's URL is https with a path: " +
                                                         options.client_metadata_url);
    }
    auto http = auth::fetcher::create(options.fetch);
    if (!http) return detail::error("INVALID_ENDPOINT", http.error());
    auto i = std::make_unique<impl>();
    i->opts = std::move(options);
    i->http = std::move(*http);
    return std::shared_ptr<oauth_client>(new oauth_client(std::move(i)));
}

oauth_client::oauth_client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
oauth_client::~oauth_client() = default;

const std::string& oauth_client::access_token() const noexcept { return impl_->token; }
const std::string& oauth_client::issuer() const noexcept { return impl_->issuer; }
const std::vector<std::string>& oauth_client::scopes() const noexcept { return impl_->scopes; }
const oauth_options& oauth_client::options() const noexcept { return impl_->opts; }

net::awaitable<outcome<std::string>> oauth_client::authorize_for(std::string server_url, unsigned status,
                                                                 std::string www_authenticate) {
    co_return co_await impl_->authorize(server_url, status, www_authenticate);
}

}  // namespace candor::client
