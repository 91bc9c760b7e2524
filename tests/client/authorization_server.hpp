// SPDX-License-Identifier: BSL-1.0
#pragma once
// A small OAuth 2.1 authorization server for the client's tests, on the test document server
// (auth/doc_server.hpp: 127.0.0.1, a thread of its own): metadata (RFC 8414), dynamic registration, an authorization endpoint that consents at
// once (a 302 to the redirect URI with code, state and iss), and a token endpoint that checks
// the PKCE verifier and issues ES256 JWT access tokens (RFC 9068) for the resource asked for,
// with refresh tokens. It records what it was asked, for the test to check.
#include "auth/doc_server.hpp"
#include "auth/support.hpp"

#include <boost/json/parse.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/url.hpp>

#include <openssl/sha.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace candor::test {

class authorization_server {
public:
    /// What it does differently.
    struct behaviour {
        bool send_iss = true;              ///< `iss` in the authorization response
        std::string iss_override{};        ///< a wrong `iss` to send instead of its own
        bool first_token_expired = false;  ///< the first access token is already expired
        bool forget_first_client = false;  ///< the first registered client is unknown at the token endpoint
    };

    /// An authorization request, as it came.
    struct authorization {
        std::string client_id, scope, resource, code_challenge, method;
    };

    authorization_server() {
        server_.handle([this](const request& r) { return std::optional<response>(answer(r)); });
    }

    std::string issuer() const { return server_.url(); }
    const signing_key& key() const { return key_; }

    void set(behaviour b) {
        std::lock_guard lock(mu_);
        behaviour_ = std::move(b);
    }
    std::vector<authorization> authorizations() const {
        std::lock_guard lock(mu_);
        return authorizations_;
    }
    int registrations() const {
        std::lock_guard lock(mu_);
        return registrations_;
    }
    /// Token requests by grant type ("authorization_code", "refresh_token").
    int grants(const std::string& type) const {
        std::lock_guard lock(mu_);
        auto it = grants_.find(type);
        return it == grants_.end() ? 0 : it->second;
    }

private:
    using request = doc_server::request;
    using response = doc_server::response;

    struct grant {
        std::string challenge, scope, resource, client_id;
    };

    static response json(unsigned status, const boost::json::object& body) {
        response r{static_cast<boost::beast::http::status>(status), 11};
        r.set(boost::beast::http::field::content_type, "application/json");
        r.body() = boost::json::serialize(body);
        return r;
    }

    static std::map<std::string, std::string> form_of(std::string_view text) {
        std::map<std::string, std::string> out;
        if (auto params = boost::urls::parse_query(text))
            for (auto p : *params) out[p.key.decode()] = p.value.decode();
        return out;
    }

    static std::string s256(const std::string& verifier) {
        unsigned char d[SHA256_DIGEST_LENGTH];
        SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), d);
        return auth::base64url_encode(std::string_view(reinterpret_cast<const char*>(d), sizeof d));
    }

    response answer(const request& req) {
        std::lock_guard lock(mu_);
        const std::string target(req.target());
        const auto path = target.substr(0, target.find('?'));
        if (path == "/.well-known/oauth-authorization-server")
            return json(200, {{"issuer", issuer()},
                              {"authorization_endpoint", issuer() + "/authorize"},
                              {"token_endpoint", issuer() + "/token"},
                              {"registration_endpoint", issuer() + "/register"},
                              {"jwks_uri", issuer() + "/jwks"},
                              {"scopes_supported", boost::json::array{"mcp:tools", "notes:archive"}},
                              {"response_types_supported", boost::json::array{"code"}},
                              {"code_challenge_methods_supported", boost::json::array{"S256"}},
                              {"token_endpoint_auth_methods_supported", boost::json::array{"none"}},
                              {"authorization_response_iss_parameter_supported", true}});
        if (path == "/jwks") return json(200, boost::json::parse(jwks_of({&key_})).as_object());
        if (path == "/register") {
            ++registrations_;
            return json(201, {{"client_id", "client-" + std::to_string(registrations_)},
                              {"token_endpoint_auth_method", "none"}});
        }
        if (path == "/authorize") {
            auto q = form_of(target.substr(path.size() + 1));
            authorizations_.push_back(
                {q["client_id"], q["scope"], q["resource"], q["code_challenge"], q["code_challenge_method"]});
            const auto code = "code-" + std::to_string(authorizations_.size());
            codes_[code] = {q["code_challenge"], q["scope"], q["resource"], q["client_id"]};
            auto to = boost::urls::url(q["redirect_uri"]);
            to.params().append({"code", code});
            to.params().append({"state", q["state"]});
            if (behaviour_.send_iss)
                to.params().append({"iss", behaviour_.iss_override.empty() ? issuer() : behaviour_.iss_override});
            response r{boost::beast::http::status::found, 11};
            r.set(boost::beast::http::field::location, to.buffer());
            return r;
        }
        if (path == "/token") {
            auto f = form_of(req.body());
            ++grants_[f["grant_type"]];
            if (behaviour_.forget_first_client && f["client_id"] == "client-1")
                return json(401, {{"error", "invalid_client"}});
            grant g;
            if (f["grant_type"] == "authorization_code") {
                auto it = codes_.find(f["code"]);
                if (it == codes_.end() || s256(f["code_verifier"]) != it->second.challenge ||
                    f["resource"] != it->second.resource || f["client_id"] != it->second.client_id)
                    return json(400, {{"error", "invalid_grant"}});
                g = it->second;
                codes_.erase(it);
            } else if (f["grant_type"] == "refresh_token") {
                auto it = refresh_.find(f["refresh_token"]);
                if (it == refresh_.end() || f["resource"] != it->second.resource)
                    return json(400, {{"error", "invalid_grant"}});
                g = it->second;
                refresh_.erase(it);
            } else {
                return json(400, {{"error", "unsupported_grant_type"}});
            }
            auto claims = access_claims("alice", g.scope);
            claims["iss"] = issuer();
            claims["aud"] = g.resource;
            claims["client_id"] = g.client_id;
            claims["jti"] = "t-" + std::to_string(++issued_);
            if (behaviour_.first_token_expired && issued_ == 1) claims["exp"] = claims["iat"].as_int64() - 120;
            const auto refresh = "r-" + std::to_string(issued_);
            refresh_[refresh] = g;
            return json(200, {{"access_token", key_.token(claims)},
                              {"token_type", "Bearer"},
                              {"expires_in", 300},
                              {"refresh_token", refresh},
                              {"scope", g.scope}});
        }
        return json(404, {{"error", "not_found"}});
    }

    signing_key key_ = signing_key::generate("k1", "ES256");
    mutable std::mutex mu_;
    behaviour behaviour_{};
    std::vector<authorization> authorizations_;
    std::map<std::string, grant> codes_, refresh_;
    std::map<std::string, int> grants_;
    int registrations_ = 0;
    int issued_ = 0;
    doc_server server_;  // last: it stops (its thread joined) before the state it answers from goes
};

}  // namespace candor::test
