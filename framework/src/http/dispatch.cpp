// SPDX-License-Identifier: BSL-1.0
// Every request the HTTP server reads, to its handler: the health endpoints, the admin paths
// and the authenticator's public documents; for the MCP endpoint, DNS-rebinding protection
// (Host, Origin), authentication, draining and the version header of a GET or DELETE, then the
// handler of its method.

#include "engine.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/verb.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace candor::transport::detail {

namespace net = boost::asio;
namespace http = boost::beast::http;

namespace {

// An answer of an admin handler or of the authenticator's public documents.
reply answered(const admin_response& a) {
    header_list headers;
    for (const auto& [name, value] : a.headers) headers.emplace_back(name, value);
    return reply{static_cast<http::status>(a.status), a.body, a.content_type, std::move(headers)};
}

}  // namespace

net::awaitable<bool> http_engine::handle(tcp_connection& conn, request_t& req) {
    const std::string_view target = req.target();
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/healthz" && req.method() == http::verb::get) {
        const reply reply_{http::status::ok, "ok\n", "text/plain", {}};
        co_return co_await send(conn, &req, reply_);
    }
    if (path == "/readyz" && req.method() == http::verb::get) {
        if (draining_) {
            const reply reply_{http::status::service_unavailable, "draining\n", "text/plain", {}};
            co_return co_await send(conn, &req, reply_);
        }
        {
            const reply reply_{http::status::ok, "ready\n", "text/plain", {}};
            co_return co_await send(conn, &req, reply_);
        }
    }
    if (path != opts_.endpoint) {
        if ((opts_.admin || opts_.authenticator) &&
            http_policy::host_allowed(req[http::field::host], opts_.allowed_hosts)) {
            const admin_request areq{req.method_string(), target, req[http::field::authorization],
                                     req[http::field::cookie]};
            auto answer = opts_.authenticator ? opts_.authenticator->serve_public(areq) : std::nullopt;
            if (!answer && opts_.admin) answer = opts_.admin(areq);
            if (answer) {
                const auto reply_ = answered(*answer);
                co_return co_await send(conn, &req, reply_);
            }
        }
        const auto reply_ = refused({404, "NOT_FOUND", "no such endpoint"}, {});
        co_return co_await send(conn, &req, reply_);
    }

    // DNS-rebinding protection before anything else looks at the request.
    if (!http_policy::host_allowed(req[http::field::host], opts_.allowed_hosts)) {
        const auto reply_ = refused({403, "FORBIDDEN_HOST", "the Host header is not allowed"}, {});
        co_return co_await send(conn, &req, reply_);
    }
    if (auto origin = req.find(http::field::origin);
        origin != req.end() && !http_policy::origin_allowed(origin->value(), opts_.allowed_origins)) {
        const auto reply_ = refused({403, "FORBIDDEN_ORIGIN", "the Origin is not allowed"}, {});
        co_return co_await send(conn, &req, reply_);
    }

    mcp::principal who;
    if (opts_.authenticator) {
        auto outcome = co_await opts_.authenticator->authenticate(req[http::field::authorization]);
        if (const auto* r = std::get_if<auth_refusal>(&outcome)) {
            const auto reply_ = refused(*r);
            co_return co_await send(conn, &req, reply_);
        }
        who = std::move(std::get<mcp::principal>(outcome));
    } else if (!opts_.tokens.empty()) {
        auto token = http_policy::bearer_token(req[http::field::authorization]);
        auto it = token ? opts_.tokens.find(*token) : opts_.tokens.end();
        if (it == opts_.tokens.end()) {
            const auto reply_ =
                refused({401, "UNAUTHORIZED", "a valid bearer token is required"},
                        one_header("WWW-Authenticate", token ? "Bearer error=\"invalid_token\"" : "Bearer"));
            co_return co_await send(conn, &req, reply_);
        }
        who = it->second;
    }
    // Draining: no new work (a POST is judged once its message is read: a reply to a call in
    // flight still gets through); DELETE still ends a session.
    if (draining_ && req.method() != http::verb::post && req.method() != http::verb::delete_) {
        const auto reply_ = draining_refusal();
        co_return co_await send(conn, &req, reply_);
    }

    // A POST's version header is checked once its body tells which revision it is of.
    const auto version = req.find(version_header);
    if (version != req.end() && req.method() != http::verb::post &&
        http_policy::claims_stateless_version(version->value())) {
        // The stateless revision has no GET stream and no sessions to delete.
        const auto reply_ =
            refused({405, "METHOD_NOT_ALLOWED",
                     "protocol revision " + std::string(version->value()) + " serves POST only on this endpoint"},
                    one_header("Allow", "POST"));
        co_return co_await send(conn, &req, reply_);
    }
    if (version != req.end() && req.method() != http::verb::post &&
        !http_policy::protocol_version_supported(version->value())) {
        const auto reply_ = refused(
            {400, "UNSUPPORTED_PROTOCOL_VERSION", "unsupported MCP-Protocol-Version: " + std::string(version->value())},
            {});
        co_return co_await send(conn, &req, reply_);
    }

    switch (req.method()) {
        case http::verb::post: co_return co_await handle_post(conn, req, who);
        case http::verb::get:
            if (!opts_.stateless) co_return co_await handle_get(conn, req, who);
            break;
        case http::verb::delete_:
            if (!opts_.stateless) co_return co_await handle_delete(req, conn, who);
            break;
        default: break;
    }
    {
        const auto reply_ = refused({405, "METHOD_NOT_ALLOWED", "method not allowed on this endpoint"},
                                    one_header("Allow", opts_.stateless ? "POST" : "GET, POST, DELETE"));
        co_return co_await send(conn, &req, reply_);
    }
}

}  // namespace candor::transport::detail
