// SPDX-License-Identifier: BSL-1.0
// The HTTP engine's SSE streams: their wire form (events, priming events, chunks), and the
// streams that hold their connection to the end: a GET's, one resumed with `Last-Event-ID`
// (replayed from the event log, then followed or replaced by a new GET stream), and the
// response stream of `subscriptions/listen`.

#include "engine.hpp"

#include <candor/mcp/connection.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace candor::transport::detail {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using namespace net::experimental::awaitable_operators;
using http_policy::refusal;

namespace {

// A `Last-Event-ID` that no stream of this server could have sent.
refusal malformed_event_id() {
    return refusal{400, "MALFORMED_LAST_EVENT_ID", "Last-Event-ID is not an event id this server sends"};
}

// Not 404: the session is fine, only the stream cannot be resumed.
refusal event_id_gone() {
    return refusal{410, "LAST_EVENT_ID_GONE",
                   "no event with this id in this session's log (another session's, expired, or dropped at the "
                   "stream's bound); the stream cannot be resumed"};
}

refusal event_log_unavailable() {
    return refusal{503, "EVENT_LOG_UNAVAILABLE", "the event log cannot be read; try again"};
}

// The revision whose SSE events carry ids and can be resumed (later ones removed it).
constexpr std::string_view resumable_version = "2025-11-25";

// The head of a stream that holds its connection to the end (a GET's, a listen's).
stream_head_t stream_head(const request_t& req) {
    stream_head_t head{http::status::ok, req.version()};
    head.set(http::field::server, "candor");
    head.set(http::field::content_type, "text/event-stream");
    head.set(http::field::cache_control, "no-cache");
    head.keep_alive(false);
    head.chunked(true);
    return head;
}

// One HTTP/1.1 chunk holding `data` (the chunked framing written by hand: one contiguous
// buffer, and no Beast chunk temporaries inside co_await expressions).
std::string chunk(std::string_view data) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string size;
    for (std::size_t n = data.size(); n; n >>= 4) size.insert(size.begin(), hex[n & 0xF]);
    if (size.empty()) size = "0";
    std::string out;
    out.reserve(size.size() + data.size() + 4);
    out.append(size).append("\r\n").append(data).append("\r\n");
    return out;
}

// Ends when the client closes the connection of a stream (it sends nothing else), so that a
// stream that waits for messages ends at once rather than at its next write.
net::awaitable<void> client_gone(tcp::socket& socket) {
    char scratch[256];
    for (;;) {
        auto [ec, n] = co_await socket.async_read_some(net::buffer(scratch), use_tuple);
        if (ec) co_return;
    }
}

}  // namespace

std::string sse_event(std::string_view json, std::string_view id) {
    // The writer emits compact JSON, so one data line; split anyway so a newline can never
    // end an event early.
    std::string out;
    if (!id.empty()) out.append("id: ").append(id).append("\n");
    out += "event: message\n";
    while (true) {
        const auto nl = json.find('\n');
        out += "data: ";
        out.append(json.substr(0, nl));
        out += '\n';
        if (nl == std::string_view::npos) break;
        json.remove_prefix(nl + 1);
    }
    out += '\n';
    return out;
}

std::string sse_priming(std::string_view id, std::chrono::milliseconds retry) {
    std::string out = "id: ";
    out.append(id).append("\nretry: ").append(std::to_string(retry.count())).append("\ndata: \n\n");
    return out;
}

net::awaitable<bool> http_engine::write_stream_head(tcp_connection& conn, stream_head_t& head) {
    http::response_serializer<http::empty_body> sr(head);
    conn.stream.expires_after(opts_.write_timeout);
    auto [ec, n] = co_await http::async_write_header(conn.stream, sr, use_tuple);
    conn.stream.expires_never();
    co_return !ec;
}

net::awaitable<bool> http_engine::write_chunk(tcp_connection& conn, std::string_view data) {
    const auto framed = chunk(data);
    conn.stream.expires_after(opts_.write_timeout);
    auto [ec, n] = co_await net::async_write(conn.stream, net::buffer(framed), use_tuple);
    conn.stream.expires_never();
    co_return !ec;
}

bool http_engine::resumable(const request_t& req, const http_session& session) const {
    if (!journal_ || session.id().empty()) return false;
    const auto version = req.find(version_header);
    return version != req.end() && version->value() == resumable_version;
}

net::awaitable<bool> http_engine::handle_get(tcp_connection& conn, request_t& req, const mcp::principal& who) {
    if (!http_policy::lists_media_type(req[http::field::accept], "text/event-stream")) {
        const auto reply_ = refused({406, "NOT_ACCEPTABLE", "Accept must list text/event-stream"}, {});
        co_return co_await send(conn, &req, reply_);
    }
    auto found = co_await session_of(conn, req, who);
    if (auto* r = std::get_if<refusal>(&found)) {
        const auto reply_ = session_refusal(*r);
        co_return co_await send(conn, &req, reply_);
    }
    auto session = std::move(std::get<std::shared_ptr<http_session>>(found));
    if (const auto last = req.find("Last-Event-ID"); last != req.end() && resumable(req, *session))
        co_return co_await resume_stream(conn, req, std::move(session), last->value());
    co_return co_await stream_get(conn, req, std::move(session), {});
}

net::awaitable<bool> http_engine::stream_get(tcp_connection& conn, const request_t& req,
                                             std::shared_ptr<http_session> session, std::vector<logged_event> replay,
                                             std::string_view resumes) {
    std::optional<stream_cursor> cursor;
    if (resumable(req, *session)) cursor.emplace(stream_cursor{session->id(), new_stream_id('g')});
    auto ex = new_exchange(conn);
    if (!session->open_stream(ex, opts_.max_streams_per_session, cursor ? cursor->stream_id : std::string{}, resumes)) {
        const auto reply_ = refused(
            {409, "TOO_MANY_STREAMS",
             "this session already has " + std::to_string(opts_.max_streams_per_session) + " open GET stream(s)"},
            {});
        co_return co_await send(conn, &req, reply_);
    }

    auto head = stream_head(req);
    if (!co_await write_stream_head(conn, head)) {
        session->close_stream(ex);
        co_return false;
    }

    // The events of the stream resumed (messages for the new one queue meanwhile), then the
    // new stream's priming event: its own id, from which the client resumes next time.
    std::string opening;
    for (const auto& e : replay) opening += sse_event(e.text, event_id(e.stream_id, e.seq));
    if (cursor) {
        std::string none;
        const auto priming = co_await journal_->record(*cursor, false, std::move(none));
        opening += sse_priming(priming, opts_.sse_retry);
    }
    bool open = true;
    if (!opening.empty()) open = co_await write_chunk(conn, opening);

    // Pump messages until the stream ends; watch the socket meanwhile, so a client that goes
    // away frees its stream slot at once rather than at the next message.
    auto pump = [&]() -> net::awaitable<void> {
        for (;;) {
            auto [rec, text, final] = co_await ex->next();
            if (rec) co_return;
            std::string logged_as;
            if (cursor) logged_as = co_await journal_->record(*cursor, false, text);
            const auto event = sse_event(text, logged_as);
            if (!co_await write_chunk(conn, event)) co_return;
        }
    };
    if (open) {
        auto gone = client_gone(conn.stream.socket());
        co_await (pump() || std::move(gone));
    }
    session->close_stream(ex);
    co_await write_chunk(conn, {});  // the last chunk
    co_return false;
}

net::awaitable<bool> http_engine::resume_stream(tcp_connection& conn, const request_t& req,
                                                std::shared_ptr<http_session> session, std::string_view last_event_id) {
    const auto ref = parse_event_id(last_event_id);
    if (!ref) {
        const auto reply_ = refused(malformed_event_id(), {});
        co_return co_await send(conn, &req, reply_);
    }
    // From the event the client names: it must still be there (a gap would go unnoticed).
    auto first = co_await journal_->read(session->id(), ref->stream_id, ref->seq);
    if (!first) {
        const auto reply_ = session_refusal(event_log_unavailable());
        co_return co_await send(conn, &req, reply_);
    }
    if (first->empty() || first->front().seq != ref->seq) {
        const auto reply_ = refused(event_id_gone(), {});
        co_return co_await send(conn, &req, reply_);
    }
    auto events = std::move(*first);
    const bool ended = events.front().final;  // the client has seen the stream's last event
    events.erase(events.begin());
    if (ref->stream_id.front() == 'g') {
        // A GET stream: what was logged after the id, then a GET stream of this replica.
        for (auto next = events.empty() ? ref->seq + 1 : events.back().seq + 1;;) {
            auto more = co_await journal_->read(session->id(), ref->stream_id, next);
            if (!more) {
                const auto reply_ = session_refusal(event_log_unavailable());
                co_return co_await send(conn, &req, reply_);
            }
            if (more->empty()) break;
            next = more->back().seq + 1;
            std::move(more->begin(), more->end(), std::back_inserter(events));
        }
        std::erase_if(events, [](const logged_event& e) { return e.text.empty(); });
        co_return co_await stream_get(conn, req, std::move(session), std::move(events), ref->stream_id);
    }

    auto head = stream_head(req);
    if (!co_await write_stream_head(conn, head)) co_return false;
    if (!ended) {
        auto follow = follow_stream(conn, session->id(), ref->stream_id, ref->seq + 1);
        auto gone = client_gone(conn.stream.socket());
        co_await (std::move(follow) || std::move(gone));
    }
    co_await write_chunk(conn, {});  // the last chunk
    co_return false;
}

net::awaitable<void> http_engine::follow_stream(tcp_connection& conn, std::string session_id, std::string stream_id,
                                                std::uint64_t from) {
    // Watched before the first read: an event logged here in between still wakes it.
    const auto wake = journal_->watch(stream_id, conn.stream.get_executor());
    const auto until = std::chrono::steady_clock::now() + opts_.event_retention;
    while (std::chrono::steady_clock::now() < until) {
        auto page = co_await journal_->read(session_id, stream_id, from);
        if (!page) co_return;  // the log failed: the client resumes again later
        if (page->empty()) {
            co_await journal_->wait(*wake);
            continue;
        }
        std::string events;
        bool done = false;
        for (const auto& e : *page) {
            // A gap: events dropped at the bound while this stream lagged. It ends rather than
            // skip them unnoticed.
            if (e.seq != from) co_return;
            from = e.seq + 1;
            if (!e.text.empty()) events += sse_event(e.text, event_id(e.stream_id, e.seq));
            if (e.final) {
                done = true;
                break;
            }
        }
        if (!events.empty() && !co_await write_chunk(conn, events)) co_return;
        if (done) co_return;
    }
}

net::awaitable<void> http_engine::stream_listen(tcp_connection& conn, const request_t& req, http_session& session,
                                                std::shared_ptr<exchange> ex, jsonrpc::inbound message,
                                                listen_streams::ticket& ticket) {
    const auto bytes = req.body().size();
    session.connection().receive(std::move(message), bytes);
    // The stream opens at once (the acknowledgement follows) and stays open until the client
    // closes it — that is how a client ends a subscription — or the server shuts down (then
    // the listen request's own response ends it). Quiet periods carry an SSE comment every
    // `stream_keepalive`, so that proxies and clients do not time it out.
    auto head = stream_head(req);
    head.set("X-Accel-Buffering", "no");
    if (!co_await write_stream_head(conn, head)) co_return;
    net::steady_timer quiet(conn.stream.get_executor());
    auto pump = [&]() -> net::awaitable<void> {
        for (;;) {
            quiet.expires_after(opts_.stream_keepalive);
            auto result = co_await (ex->next() || quiet.async_wait(use_tuple));
            std::string event;
            bool last = false;
            if (result.index() == 0) {
                auto [rec, text, final] = std::get<0>(result);
                if (rec) co_return;
                event = sse_event(text);
                last = final;
            } else {
                event = ":\n\n";
            }
            if (!co_await write_chunk(conn, event) || last) co_return;
        }
    };
    auto gone = client_gone(conn.stream.socket());
    auto evicted = [&]() -> net::awaitable<void> {
        (void)co_await ticket.closed(use_tuple);
        // The caller opened one stream too many and this, its oldest, gives way: it ends as at
        // a shutdown, with the listen request's own response, which the pump writes last;
        // unless that takes longer than write_timeout.
        session.connection().close();
        net::steady_timer limit(conn.stream.get_executor(), opts_.write_timeout);
        (void)co_await limit.async_wait(use_tuple);
    };
    co_await (pump() || std::move(gone) || evicted());
    co_await write_chunk(conn, {});  // the last chunk
}

}  // namespace candor::transport::detail
