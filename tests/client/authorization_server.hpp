// SPDX-License-Identifier: BSL-1.0
#pragma once
// A small OAuth 2.1 authorization server for the client's tests, on 127.0.0.1 on a thread of its
// own: metadata (RFC 8414), dynamic registration, an authorization endpoint that consents at
// once (a 302 to the redirect URI with code, state and iss), and a token endpoint that checks
// the PKCE verifier and issues ES256 JWT access tokens (RFC 9068) for the resource asked for,
// with refresh tokens. It records what it was asked, for the test to check.
#include "auth/support.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <openssl/sha.h>

#include <map>
#include <mutex>
#include <string>
#include <thread>
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

    authorization_server() : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
        boost::asio::co_spawn(ioc_, accept_loop(), boost::asio::detached);
        thread_ = std::thread([this] { ioc_.run(); });
    }
    ~authorization_server() {
        ioc_.stop();
        thread_.join();
    }

    std::string issuer() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }
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
    using request = boost::beast::http::request<boost::beast::http::string_body>;
    using response = boost::beast::http::response<boost::beast::http::string_body>;
    static constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

    struct grant {
        std::string challenge, scope, resource, client_id;
    };

    boost::asio::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
            if (ec) co_return;
            boost::asio::co_spawn(ioc_, serve(std::move(socket)), boost::asio::detached);
        }
    }

    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket) {
        boost::beast::flat_buffer buffer;
        request req;
        auto [ec, n] = co_await boost::beast::http::async_read(socket, buffer, req, use_tuple);
        if (ec) co_return;
        response res = answer(req);
        res.prepare_payload();
        co_await boost::beast::http::async_write(socket, res, use_tuple);
    }

    static response json(unsigned status, const boost::json::object& body) {
        response r{static_cast<boost::beast::http::status>(status), 11};
        r.set(boost::beast::http::field::content_type, "application/json");
        r.body() = boost::json::serialize(body);
        return r;
    }

    static std::map<std::string, std::string> form_of(std::string_view text) {
        std::map<std::string, std::string> out;
        const std::string query = "?" + std::string(text);  // the view below reads it
        auto u = boost::urls::parse_uri_reference(query);
        if (u)
            for (auto p : u->params()) out[p.key] = p.value;
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

    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::thread thread_;
    signing_key key_ = signing_key::generate("k1", "ES256");
    mutable std::mutex mu_;
    behaviour behaviour_{};
    std::vector<authorization> authorizations_;
    std::map<std::string, grant> codes_, refresh_;
    std::map<std::string, int> grants_;
    int registrations_ = 0;
    int issued_ = 0;
};

}  // namespace candor::test
