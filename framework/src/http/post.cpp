// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// The HTTP engine's POST: a JSON-RPC message, the revision it belongs to (stateless, or a
// handshake revision with its session), and the answer to a request: one JSON response, or an
// SSE stream that carries the messages before it and ends with it.

#include "engine.hpp"

#include <candor/jsonrpc/encode.hpp>
#include <candor/jsonrpc/intake.hpp>
#include <candor/mcp/connection.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/json/serialize.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace candor::transport::detail {

namespace net = boost::asio;
namespace http = boost::beast::http;
using http_policy::refusal;

namespace {

// Watches a streaming response's connection for the client going away while the call is quiet:
// on the stateless revision a disconnect is the request's cancellation, and without it a call
// that sends nothing would only notice at its next message. Armed once a response streams (the
// quick JSON answers pay nothing); stopped when the response ends.
class disconnect_watch {
public:
    template <class OnGone>
    disconnect_watch(net::ip::tcp::socket& socket, OnGone on_gone) : state_(std::make_shared<state>()) {
        socket.async_wait(net::ip::tcp::socket::wait_read,
                          net::bind_cancellation_slot(
                              state_->stop.slot(), [s = state_, fd = socket.native_handle(),
                                                    on_gone = std::move(on_gone)](boost::system::error_code ec) {
                                  if (ec || s->stopped) return;
                                  // Readable: the end of the stream (or a reset) is a client gone; bytes are a
                                  // pipelined request, left where they are for the connection's reader.
                                  char c;
                                  const auto n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
                                  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) on_gone();
                              }));
    }
    ~disconnect_watch() {
        state_->stopped = true;
        state_->stop.emit(net::cancellation_type::all);
    }
    disconnect_watch(const disconnect_watch&) = delete;
    disconnect_watch& operator=(const disconnect_watch&) = delete;

private:
    struct state {
        net::cancellation_signal stop;
        bool stopped = false;
    };
    std::shared_ptr<state> state_;
};

// What a session's record says of its client, from its `initialize` request.
session_record record_of_initialize(const jsonrpc::request& r, std::string id, const mcp::principal& who) {
    session_record rec;
    rec.id = std::move(id);
    rec.owner = who.id;
    if (!r.params) return rec;
    if (const auto* caps = r.params->if_contains("capabilities"); caps && caps->is_object())
        rec.client_capabilities = boost::json::serialize(*caps);
    if (const auto* client = r.params->if_contains("clientInfo"); client && client->is_object()) {
        const auto& ci = client->get_object();
        if (const auto* n = ci.if_contains("name"); n && n->is_string()) rec.client_name = n->get_string();
        if (const auto* v = ci.if_contains("version"); v && v->is_string()) rec.client_version = v->get_string();
    }
    return rec;
}

// A request id as JSON ("requestId" of notifications/cancelled).
std::optional<jsonrpc::request_id> id_from(const boost::json::value* v) {
    if (!v) return std::nullopt;
    if (const auto* s = v->if_string()) return jsonrpc::request_id(std::string(*s));
    if (const auto* i = v->if_int64()) return jsonrpc::request_id(*i);
    return std::nullopt;
}

// A POST's Accept must list both forms its answer may take, and its body must be JSON.
std::optional<refusal> media_type_refusal(const request_t& req) {
    const auto accept = req[http::field::accept];
    if (!http_policy::lists_media_type(accept, "application/json") ||
        !http_policy::lists_media_type(accept, "text/event-stream"))
        return refusal{406, "NOT_ACCEPTABLE", "Accept must list application/json and text/event-stream"};
    if (!http_policy::is_json(req[http::field::content_type]))
        return refusal{415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"};
    return std::nullopt;
}

// Which revision: a request whose _meta names a version (or, lacking that, whose version
// header is not a handshake revision) is stateless; a session id, or an initialize without
// such a claim, keeps the handshake revisions (docs/protocol.md, "Which revision a request
// belongs to").
bool of_stateless_revision(const request_t& req, const jsonrpc::request* request) {
    if (req.find(session_header) != req.end()) return false;
    const bool is_initialize = request && request->method == "initialize";
    const auto version = req.find(version_header);
    const bool claimed = request && mcp::claims_stateless(*request);
    const bool by_header =
        !is_initialize && version != req.end() && http_policy::claims_stateless_version(version->value());
    return claimed || by_header;
}

// Why a request got no slot to run in.
refusal admission_refusal(admission::verdict v) {
    const char* why = "the server is shutting down; try again";
    if (v == admission::verdict::full) why = "the server is busy and its queue is full; try again";
    if (v == admission::verdict::crowded)
        why = "the server is busy and already queues as many of this caller's requests as it may; try again";
    if (v == admission::verdict::late) why = "the server is busy: no slot came free in time; try again";
    return refusal{503, "TOO_MANY_REQUESTS_IN_FLIGHT", why};
}

// The answer to a request whose stream ended before its response, when nothing of it has been
// written yet.
reply unanswered_reply(end_reason why, header_list headers) {
    if (why == end_reason::cancelled) return reply{http::status::accepted, {}, "application/json", std::move(headers)};
    if (why == end_reason::overflow)
        return refused({500, "STREAM_OVERFLOW", "too many messages queued for this request"}, {});
    return draining_refusal();
}

// A logged stream that ends without a response: its last event is empty, so that a resume
// says so rather than wait for one.
net::awaitable<void> log_end_without_response(event_journal& journal, stream_cursor& cursor) {
    std::string none;
    co_await journal.record(cursor, true, std::move(none));
}

}  // namespace

net::awaitable<bool> http_engine::handle_post(tcp_connection& conn, request_t& req, const mcp::principal& who) {
    if (const auto r = media_type_refusal(req)) {
        const auto reply_ = refused(*r, {});
        co_return co_await send(conn, &req, reply_);
    }

    auto in = jsonrpc::read_message(req.body(), srv_.options().message_limits);
    if (!in) {
        const reply reply_{
            http::status::bad_request, jsonrpc::encode_error(in.error().id, in.error().error), "application/json", {}};
        co_return co_await send(conn, &req, reply_);
    }

    const auto* request = std::get_if<jsonrpc::request>(&in->msg);
    if (request && draining_) {
        const auto reply_ = draining_refusal();
        co_return co_await send(conn, &req, reply_);
    }

    if (request && opts_.authenticator) {
        if (const auto r = opts_.authenticator->authorize(who, *request)) {
            const auto reply_ = refused(*r);
            co_return co_await send(conn, &req, reply_);
        }
    }

    if (of_stateless_revision(req, request)) co_return co_await handle_stateless_post(conn, req, who, std::move(*in));
    const auto version = req.find(version_header);
    if (version != req.end() && !http_policy::protocol_version_supported(version->value())) {
        const auto reply_ = refused(
            {400, "UNSUPPORTED_PROTOCOL_VERSION", "unsupported MCP-Protocol-Version: " + std::string(version->value())},
            {});
        co_return co_await send(conn, &req, reply_);
    }
    if (opts_.stateless) co_return co_await handle_post_without_sessions(conn, req, who, std::move(*in));
    co_return co_await handle_post_in_session(conn, req, who, std::move(*in));
}

net::awaitable<bool> http_engine::handle_post_without_sessions(tcp_connection& conn, request_t& req,
                                                               const mcp::principal& who, jsonrpc::inbound message) {
    const auto* request = std::get_if<jsonrpc::request>(&message.msg);
    if (!request) {
        const reply reply_{http::status::accepted, {}, "application/json", {}};
        co_return co_await send(conn, &req, reply_);
    }
    auto session = std::make_shared<http_session>(std::string(), who, share_of(conn, who));
    session->attach(srv_.connect_routed(conn.home, session->router(),
                                        {.caller = who, .session_id = {}, .registry = conn.lane.registry}));
    auto ex = new_exchange(conn);
    session->open_request(request->id, ex);
    if (request->method != "initialize") {
        // Stateless servers initialize implicitly (each POST is self-contained), for the
        // version the request names.
        const auto v = req.find(version_header);
        session->connection().assume_initialized(
            std::string(v != req.end() ? std::string_view(v->value()) : http_policy::assumed_protocol_version),
            "stateless-http", "0");
    }
    const auto id = request->id;
    const bool keep = co_await answer_request(conn, req, session, id, ex, {}, std::move(message));
    session->close(end_reason::session_closed);
    co_return keep;
}

net::awaitable<bool> http_engine::handle_post_in_session(tcp_connection& conn, request_t& req,
                                                         const mcp::principal& who, jsonrpc::inbound message) {
    const auto* request = std::get_if<jsonrpc::request>(&message.msg);
    std::shared_ptr<http_session> session;
    std::string new_id;
    response_gate gate;
    if (request && request->method == "initialize" && req.find(session_header) == req.end()) {
        new_id = http_policy::new_session_id();
        session = std::make_shared<http_session>(new_id, who, share_of(conn, who));
        if (auto r = sessions_.add(session)) {
            const auto reply_ = refused(*r, retry_after());
            co_return co_await send(conn, &req, reply_);
        }
        session->attach(srv_.connect_routed(conn.home, session->router(),
                                            {.caller = who, .session_id = new_id, .registry = conn.lane.registry}));
        if (shared_) {
            gate = [this, session, rec = record_of_initialize(*request, new_id, who)](const std::string& response) {
                return record_session(session, rec, response);
            };
        }
    } else {
        auto found = co_await session_of(conn, req, who);
        if (auto* r = std::get_if<refusal>(&found)) {
            const auto reply_ = session_refusal(*r);
            co_return co_await send(conn, &req, reply_);
        }
        session = std::move(std::get<std::shared_ptr<http_session>>(found));
        session->update_caller(who);
    }

    if (!request) {
        // A notification or a response: hand it over and acknowledge. A cancelled request's
        // response never comes, so its stream ends now.
        if (const auto* n = std::get_if<jsonrpc::notification>(&message.msg);
            n && n->method == "notifications/cancelled") {
            if (auto id = id_from(n->params ? n->params->if_contains("requestId") : nullptr))
                session->cancel_request(*id);
        }
        session->connection().receive(std::move(message), req.body().size());
        {
            const reply reply_{http::status::accepted, {}, "application/json", {}};
            co_return co_await send(conn, &req, reply_);
        }
    }

    const auto id = request->id;
    auto ex = new_exchange(conn);
    if (!session->open_request(id, ex)) {
        jsonrpc::error_object e = jsonrpc::error_object::make(
            jsonrpc::error_code::invalid_request, "a request with this id is still being answered in this session");
        {
            const reply reply_{http::status::bad_request, jsonrpc::encode_error(id, e), "application/json", {}};
            co_return co_await send(conn, &req, reply_);
        }
    }
    const bool keep =
        co_await answer_request(conn, req, session, id, ex, new_id, std::move(message), gate ? &gate : nullptr);
    co_return keep;
}

net::awaitable<bool> http_engine::handle_stateless_post(tcp_connection& conn, request_t& req, const mcp::principal& who,
                                                        jsonrpc::inbound message) {
    const auto* request = std::get_if<jsonrpc::request>(&message.msg);
    if (!request) {
        // This revision defines no client notification over HTTP (closing a stream cancels its
        // request): accepted and dropped, as the transport rules for a notification ask.
        const reply reply_{http::status::accepted, {}, "application/json", {}};
        co_return co_await send(conn, &req, reply_);
    }
    const mcp::header_lookup headers = [&req](std::string_view name) -> std::optional<std::string_view> {
        // Beast matches field names case-insensitively; a repeated header is refused as ambiguous.
        auto range = req.equal_range(name);
        if (range.first == range.second || std::next(range.first) != range.second) return std::nullopt;
        return std::string_view(range.first->value());
    };
    if (auto refusal = srv_.preflight(*request, &headers, conn.lane.registry.get())) {
        const reply reply_{static_cast<http::status>(refusal->http_status),
                           jsonrpc::encode_error(request->id, refusal->error),
                           "application/json",
                           {}};
        co_return co_await send(conn, &req, reply_);
    }
    std::shared_ptr<listen_streams::ticket> listening;
    if (request->method == "subscriptions/listen") {
        // Counted before anything is opened for it: past the server's bound, refused; past the
        // caller's, the caller's oldest stream ends.
        listening = listens_.open(conn.stream.get_executor(), share_of(conn, who));
        if (!listening) {
            const auto reply_ = refused({503, "TOO_MANY_STREAMS",
                                         "the server holds as many subscriptions/listen streams as it may; try "
                                         "again later"},
                                        retry_after());
            co_return co_await send(conn, &req, reply_);
        }
    }
    auto session = std::make_shared<http_session>(std::string(), who, share_of(conn, who));
    session->attach(srv_.connect_routed(conn.home, session->router(),
                                        {.caller = who,
                                         .session_id = {},
                                         .preflighted = true,
                                         .single_request = true,
                                         .registry = conn.lane.registry}));
    auto ex = new_exchange(conn);
    const auto id = request->id;
    session->open_request(id, ex);
    if (listening) {
        co_await stream_listen(conn, req, *session, ex, std::move(message), *listening);
        listens_.close(listening);
        session->close(end_reason::session_closed);
        co_return false;
    }
    const bool keep = co_await answer_request(conn, req, session, id, ex, {}, std::move(message));
    session->close(end_reason::session_closed);
    co_return keep;
}

net::awaitable<bool> http_engine::answer_request(tcp_connection& conn, const request_t& req,
                                                 std::shared_ptr<http_session> session, const jsonrpc::request_id& id,
                                                 std::shared_ptr<exchange> ex, std::string_view session_id,
                                                 jsonrpc::inbound message, const response_gate* gate) {
    thread_context& lane = conn.lane;
    lane.in_flight.fetch_add(1);  // counted from here: a shutdown waits for it, queued or answered
    if (!lane.gate.try_enter()) {
        // Every slot of this thread is taken: wait for one in its queue.
        const auto v = co_await lane.gate.enter(req.body().size(), session->owner());
        if (v != admission::verdict::admitted) {
            request_done(lane);
            session->forget_request(id);
            const auto reply_ = refused(admission_refusal(v), retry_after());
            co_return co_await send(conn, &req, reply_);
        }
    }
    struct done_guard {
        http_engine* e;
        thread_context& lane;
        ~done_guard() {
            lane.gate.leave();
            e->request_done(lane);
        }
    } guard{this, lane};

    header_list headers;
    if (!session_id.empty()) headers.emplace_back(session_header, std::string(session_id));
    session->connection().receive(std::move(message), req.body().size());  // parsed once, here

    // JSON unless related messages come before the response; then an SSE stream that carries
    // them and ends with the response. On the 2025-11-25 wire its events have ids and are
    // logged before they are written, so that a client that loses the stream can resume it.
    bool streaming = false;
    const bool keep = req.keep_alive();
    std::optional<disconnect_watch> watch;
    std::optional<stream_cursor> cursor;
    if (resumable(req, *session)) cursor.emplace(stream_cursor{session->id(), new_stream_id('p')});
    for (;;) {
        auto [ec, text, final] = co_await ex->next();
        if (ec) {
            session->forget_request(id);
            if (streaming) {
                if (cursor) co_await log_end_without_response(*journal_, *cursor);
                break;
            }
            const auto reply_ = unanswered_reply(ex->reason(), std::move(headers));
            co_return co_await send(conn, &req, reply_);
        }
        if (final && gate) {
            const auto stop = co_await (*gate)(text);
            if (stop) {
                if (streaming) {
                    if (cursor) co_await log_end_without_response(*journal_, *cursor);
                    break;  // end the stream without the response
                }
                const auto reply_ = session_refusal(*stop);
                co_return co_await send(conn, &req, reply_);
            }
        }
        if (!streaming && final) {
            {
                const reply reply_{http::status::ok, std::move(text), "application/json", std::move(headers)};
                co_return co_await send(conn, &req, reply_);
            }
        }
        std::string event;
        if (!streaming) {
            if (!co_await open_event_stream(conn, req, headers)) {
                session->forget_request(id);
                co_return false;
            }
            streaming = true;
            // A resumable stream outlives its connection (the call goes on, logged); any other
            // ends its call when the client goes away.
            if (!cursor) watch.emplace(conn.stream.socket(), [session, id] { session->cancel_request(id); });
            // The priming event goes out with the first message, in one chunk.
            if (cursor) {
                std::string none;
                const auto priming = co_await journal_->record(*cursor, false, std::move(none));
                event = sse_priming(priming, opts_.sse_retry);
            }
        }
        std::string logged_as;
        if (cursor) logged_as = co_await journal_->record(*cursor, final, text);
        event += sse_event(text, logged_as);
        if (!co_await write_chunk(conn, event)) {
            // The client went away. On the 2025-11-25 wire the call goes on and its later
            // messages are logged, for a resume; otherwise they are dropped.
            if (cursor && !final) {
                auto rest = log_rest(session, id, ex, std::move(*cursor));
                net::co_spawn(conn.stream.get_executor(), std::move(rest), net::detached);
            } else {
                session->forget_request(id);
            }
            co_return false;
        }
        if (final) break;
    }
    if (!co_await write_chunk(conn, {})) co_return false;  // the last chunk
    co_return keep && !draining_;
}

net::awaitable<bool> http_engine::open_event_stream(tcp_connection& conn, const request_t& req,
                                                    const header_list& headers) {
    stream_head_t head{http::status::ok, req.version()};
    head.set(http::field::server, "candor");
    head.set(http::field::content_type, "text/event-stream");
    head.set(http::field::cache_control, "no-cache");
    for (const auto& [name, value] : headers) head.set(name, value);
    head.keep_alive(req.keep_alive() && !draining_);
    head.chunked(true);
    co_return co_await write_stream_head(conn, head);
}

net::awaitable<void> http_engine::log_rest(std::shared_ptr<http_session> session, jsonrpc::request_id id,
                                           std::shared_ptr<exchange> ex, stream_cursor cursor) {
    for (;;) {
        auto [ec, text, final] = co_await ex->next();
        if (ec) {
            session->forget_request(id);
            co_await log_end_without_response(*journal_, cursor);
            co_return;
        }
        co_await journal_->record(cursor, final, std::move(text));
        if (final) co_return;
    }
}

}  // namespace candor::transport::detail
