// SPDX-License-Identifier: BSL-1.0
// The HTTP engine's sessions: which session a request belongs to (one held here, or, with
// shared records, one taken over from its record), an initialize's record, whose share of the
// table a session counts against, and DELETE. The session itself is in session.cpp, the shared
// records' calls in shared_sessions.cpp.

#include "engine.hpp"

#include <candor/mcp/connection.hpp>

#include <boost/beast/http/status.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace candor::transport::detail {

namespace net = boost::asio;
namespace http = boost::beast::http;
using http_policy::refusal;

namespace {

refusal session_not_found() { return refusal{404, "SESSION_NOT_FOUND", "unknown or expired session"}; }

// Not 404: that would tell the client to initialize again while its session is merely out of
// reach.
refusal session_store_unavailable() {
    return refusal{503, "SESSION_STORE_UNAVAILABLE", "the shared session records cannot be reached; try again"};
}

// The client's `capabilities` of a shared record, as an object (anything else: none).
boost::json::object capabilities_of(const session_record& r) {
    boost::system::error_code ec;
    auto v = boost::json::parse(r.client_capabilities, ec);
    if (ec || !v.is_object()) return {};
    return std::move(v.as_object());
}

}  // namespace

net::awaitable<http_engine::found_session> http_engine::session_of(tcp_connection& conn, const request_t& req,
                                                                   const mcp::principal& who) {
    found_session out = session_not_found();
    const auto h = req.find(session_header);
    if (h == req.end()) {
        out = refusal{400, "SESSION_REQUIRED", "Mcp-Session-Id header required"};
        co_return out;
    }
    std::string id(h->value());
    auto s = sessions_.find(id);
    // A session of another principal is reported as unknown: ids are not to be probed.
    if (s && s->caller().id != who.id) co_return out;
    if (!shared_) {
        if (s) out = std::move(s);
        co_return out;
    }
    if (!s) co_return co_await take_over(conn, who, std::move(id));
    if (s->claim_check(std::chrono::steady_clock::now(), recheck_)) {
        // Deleted (or expired) on another replica: gone here too. When the records cannot be
        // read, the session held here goes on.
        const auto look = co_await shared_->find(id);
        if (look.status == shared_lookup::outcome::missing) {
            if (auto gone = sessions_.remove(id)) gone->close(end_reason::session_closed);
            co_return out;
        }
        if (look.status == shared_lookup::outcome::found) touch_record(look.record);
    }
    out = std::move(s);
    co_return out;
}

net::awaitable<http_engine::found_session> http_engine::take_over(tcp_connection& conn, const mcp::principal& who,
                                                                  std::string id) {
    found_session out = session_not_found();
    const auto look = co_await shared_->find(id);
    if (look.status == shared_lookup::outcome::unavailable) {
        out = session_store_unavailable();
        co_return out;
    }
    if (look.status == shared_lookup::outcome::missing || look.record.owner != who.id) co_return out;
    const auto& rec = look.record;
    auto session = std::make_shared<http_session>(id, who, share_of(conn, who));
    session->taken_over();
    session->attach(srv_.connect_routed(conn.home, session->router(),
                                        {.caller = who, .session_id = id, .registry = conn.lane.registry}));
    session->connection().assume_initialized(rec.protocol_version, rec.client_name, rec.client_version,
                                             capabilities_of(rec));
    auto adopted = sessions_.adopt(session);
    if (auto* r = std::get_if<refusal>(&adopted)) {
        session->close(end_reason::session_closed);
        out = std::move(*r);
        co_return out;
    }
    auto& held = std::get<std::shared_ptr<http_session>>(adopted);
    // Another request of the session took it over first: this copy goes.
    if (held != session) session->close(end_reason::session_closed);
    else touch_record(rec);
    if (held->caller().id != who.id) co_return out;
    out = std::move(held);
    co_return out;
}

void http_engine::touch_record(const session_record& r) const {
    if (std::chrono::system_clock::now() - r.last_used >= shared_->idle() / 4) shared_->touch(r.id);
}

net::awaitable<std::optional<refusal>> http_engine::record_session(std::shared_ptr<http_session> session,
                                                                   session_record rec, std::string response) {
    std::optional<refusal> out;
    boost::system::error_code ec;
    const auto doc = boost::json::parse(response, ec);
    const auto* result = !ec && doc.is_object() ? doc.as_object().if_contains("result") : nullptr;
    // An error answer: there is no session to share.
    if (!result || !result->is_object()) co_return out;
    if (const auto* v = result->as_object().if_contains("protocolVersion"); v && v->is_string())
        rec.protocol_version = v->get_string();
    const auto now = std::chrono::system_clock::now();
    rec.last_used = now;
    rec.expires = shared_->expiry(now);
    if (co_await shared_->put(std::move(rec))) co_return out;
    // Not recorded: the session would fail on any other replica, so it does not begin.
    if (auto gone = sessions_.remove(session->id())) gone->close(end_reason::session_closed);
    out = session_store_unavailable();
    co_return out;
}

std::string http_engine::share_of(tcp_connection& conn, const mcp::principal& who) {
    if (!who.id.empty()) return "principal " + who.id;
    return conn.address_share;  // (asking the socket would be a system call per request)
}

net::awaitable<bool> http_engine::handle_delete(request_t& req, tcp_connection& conn, const mcp::principal& who) {
    auto found = co_await session_of(conn, req, who);
    if (auto* r = std::get_if<refusal>(&found)) {
        const auto reply_ = session_refusal(*r);
        co_return co_await send(conn, &req, reply_);
    }
    const auto id = std::get<std::shared_ptr<http_session>>(found)->id();
    // The record first: while it stays, the session goes on on the other replicas.
    if (shared_ && !co_await shared_->remove(id)) {
        const auto reply_ = session_refusal(session_store_unavailable());
        co_return co_await send(conn, &req, reply_);
    }
    auto session = sessions_.remove(id);
    if (session) session->close(end_reason::session_closed);
    {
        const reply reply_{http::status::no_content, {}, "application/json", {}};
        co_return co_await send(conn, &req, reply_);
    }
}

}  // namespace candor::transport::detail
