// SPDX-License-Identifier: BSL-1.0
#pragma once
// The HTTP transport's engine: accepting, reading requests under limits, the MCP endpoint's
// POST/GET/DELETE, SSE streams, health endpoints and graceful shutdown. Private to the
// http module; `http_server` (candor/http/server.hpp) is its public face.
//
// Structure after Beast's server-flex-awaitable example: one coroutine per TCP connection on
// its own strand; expected I/O outcomes come back as values (`as_tuple`), and anything thrown
// is caught once where the connection's coroutine is spawned. The header rules are pure
// functions (policy.cpp); session state and routing are in session.cpp.
//
// The engine's parts, a file each:
//   engine.cpp    starting, draining and stopping; accepting connections, reading requests,
//                 writing responses
//   dispatch.cpp  what every request passes: health endpoints, admin paths, Host and Origin,
//                 authentication, draining, the version header, then its method
//   post.cpp      POST: a message's revision, its session, its answer (JSON or a stream)
//   streams.cpp   SSE streams: their wire form, and those that hold their connection: GET,
//                 resumption, listen
//   sessions.cpp  a request's session (held here, or taken over from its shared record), an
//                 initialize's record, DELETE
//   server.cpp    http_server and serve_http

#include "admission.hpp"
#include "event_log.hpp"
#include "listen_streams.hpp"
#include "request_reader.hpp"
#include "session.hpp"
#include "shared_sessions.hpp"

#include <candor/http/authenticator.hpp>
#include <candor/http/policy.hpp>
#include <candor/http/server.hpp>
#include <candor/mcp/server.hpp>
#include <candor/transport/session_records.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace candor::transport::detail {

inline constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

using header_list = std::vector<std::pair<std::string_view, std::string>>;
/// The head of a streamed response (SSE): its body is written chunk by chunk.
using stream_head_t = boost::beast::http::response<boost::beast::http::empty_body>;

/// A list of one header.
header_list one_header(std::string_view name, std::string value);
/// `Retry-After: 1`, for a refusal that is worth trying again soon.
header_list retry_after();

// One complete (non-streamed) response. Callers build it as a named local before awaiting
// `send`: GCC 12 destroys some temporaries of a co_await full-expression twice.
struct reply {
    boost::beast::http::status status;
    std::string body;
    std::string_view content_type = "application/json";
    header_list headers;
};

/// A refusal with its JSON body.
reply refused(const http_policy::refusal& r, header_list headers);
/// An authenticator's refusal, with its headers.
reply refused(const auth_refusal& r);
/// 503 DRAINING.
reply draining_refusal();
/// A session's request refused: a 503 (the table is full, the records are down) says when to
/// come back.
reply session_refusal(const http_policy::refusal& r);

// The session header, as the spec spells it (HTTP field names are case-insensitive).
inline constexpr std::string_view session_header = "Mcp-Session-Id";
inline constexpr std::string_view version_header = "MCP-Protocol-Version";

/// One SSE event carrying `json`, with `id` unless it is empty.
std::string sse_event(std::string_view json, std::string_view id = {});
/// The event that opens a resumable stream: an id to resume from, no data, and how long to wait
/// before reconnecting.
std::string sse_priming(std::string_view id, std::chrono::milliseconds retry);

/// An I/O thread's io_context (run by that thread alone), whose pending handlers and operations
/// can be destroyed while its siblings still live: a handler queued here may hold an object of
/// another thread's context (a session opened on one thread, used from another). With what the
/// thread's requests count on their way, so that no request writes what another thread writes:
/// the thread's share of the concurrency limit and its queue, and its requests in flight.
class thread_context : public boost::asio::io_context {
public:
    thread_context(admission::options limits, std::shared_ptr<mcp::detail::registry_cache> r)
        : io_context(1), gate(limits), registry(std::move(r)) {}
    void shut_down() { shutdown(); }

    /// The thread's slots and queue (used on the thread alone).
    admission gate;
    /// The server's registry as this thread sees it: its requests find their tools there
    /// (`connection_options::registry`; used on the thread alone).
    std::shared_ptr<mcp::detail::registry_cache> registry;
    /// Requests of the thread's connections being answered or queued (a shutdown waits for
    /// them); written by the thread alone, read by `stop`.
    std::atomic<std::size_t> in_flight{0};
};

/// One TCP connection: its stream, registered so that shutdown can close it.
struct tcp_connection {
    tcp_connection(boost::asio::ip::tcp::socket s, thread_context& l)
        : address_share(address_share_of(s)), stream(std::move(s)), lane(l), home(l.get_executor()) {}
    /// "address A.B.C.D": the share a request without a principal counts against, read once.
    const std::string address_share;
    boost::beast::tcp_stream stream;
    /// The I/O thread the connection lives on: its socket, and the MCP connections it opens,
    /// are served there alone, and its requests take that thread's slots.
    thread_context& lane;
    boost::asio::io_context::executor_type home;
    const std::chrono::steady_clock::time_point accepted = std::chrono::steady_clock::now();

    /// It waits for a request (its first, or the next on a kept-alive connection).
    void mark_idle() noexcept {
        std::int64_t busy = 0;
        idle_since_.compare_exchange_strong(busy, std::chrono::steady_clock::now().time_since_epoch().count());
    }
    /// A request's first bytes arrived. @return false if the connection was picked to be closed
    /// (at the connection cap) meanwhile: it must end without reading on
    bool mark_busy() noexcept {
        auto since = idle_since_.load();
        while (since > 0)
            if (idle_since_.compare_exchange_weak(since, 0)) return true;
        return since == 0;
    }
    /// Since when it has been waiting for a request (steady-clock ticks), or 0 if it is not.
    std::int64_t idle_since() const noexcept { return std::max<std::int64_t>(idle_since_.load(), 0); }
    /// Pick it to be closed, if it still waits for a request since `since`. @return whether it was
    bool claim_idle(std::int64_t since) noexcept { return since > 0 && idle_since_.compare_exchange_strong(since, -1); }

private:
    static std::string address_share_of(const boost::asio::ip::tcp::socket& s) {
        boost::system::error_code ec;
        const auto peer = s.remote_endpoint(ec);
        return "address " + (ec ? std::string("unknown") : peer.address().to_string());
    }

    // Steady-clock ticks since it began to wait; 0 while it reads or answers a request; -1 once
    // it was picked to be closed.
    std::atomic<std::int64_t> idle_since_{0};
};

class http_engine {
public:
    http_engine(mcp::server& srv, http_options opts);
    ~http_engine() {
        stop();
        // Every context's leftovers are destroyed while all of them live, then the contexts.
        ioc_.shut_down();
        for (auto& more : more_iocs_) more->shut_down();
    }

    boost::system::result<void> start();
    void drain();
    void stop();
    std::uint16_t port() const noexcept { return port_; }
    std::size_t session_count() const { return sessions_.size(); }
    std::size_t connection_count() const noexcept { return connections_.load(); }
    std::size_t queued_requests() const {
        std::size_t n = ioc_.gate.queued();
        for (const auto& more : more_iocs_) n += more->gate.queued();
        return n;
    }

private:
    template <class T>
    using awaitable = boost::asio::awaitable<T>;

    awaitable<void> accept_loop();
    awaitable<void> sweep_loop();
    awaitable<void> serve_connection(std::shared_ptr<tcp_connection> conn);
    awaitable<void> reject_connection(std::shared_ptr<tcp_connection> conn);
    /// At the connection cap: close the connection that has waited longest for a request (a
    /// kept-alive one between requests, or one that has sent nothing yet). @return false if none
    /// waits
    bool close_longest_idle();
    /// Read into `buffer` until `reader` has a request or a refusal, the head by `head_deadline`
    /// and the rest by `deadline`. @return false if the connection failed or timed out first
    awaitable<bool> read_request(boost::beast::tcp_stream& stream, boost::beast::flat_buffer& buffer,
                                 request_reader& reader, std::chrono::steady_clock::time_point head_deadline,
                                 std::chrono::steady_clock::time_point deadline);
    /// @return whether the connection may serve another request
    awaitable<bool> handle(tcp_connection& conn, request_t& req);
    /// A POST: its media types, its message, the revision it belongs to, then its handler.
    awaitable<bool> handle_post(tcp_connection& conn, request_t& req, const mcp::principal& who);
    /// A POST to a server without sessions (`http_options::stateless`): one connection for this
    /// request alone, initialized implicitly unless the request is `initialize`.
    awaitable<bool> handle_post_without_sessions(tcp_connection& conn, request_t& req, const mcp::principal& who,
                                                 jsonrpc::inbound message);
    /// A POST of a handshake revision: an `initialize` without a session id opens a session, any
    /// other message goes to the session its `Mcp-Session-Id` names.
    awaitable<bool> handle_post_in_session(tcp_connection& conn, request_t& req, const mcp::principal& who,
                                           jsonrpc::inbound message);
    /// A POST of the stateless revision: its checks (with the request's headers), then one
    /// connection for this request alone, closed after the response.
    awaitable<bool> handle_stateless_post(tcp_connection& conn, request_t& req, const mcp::principal& who,
                                          jsonrpc::inbound message);
    /// The response stream of `subscriptions/listen` (the connection is not kept alive).
    awaitable<void> stream_listen(tcp_connection& conn, const request_t& req, http_session& session,
                                  std::shared_ptr<exchange> ex, jsonrpc::inbound message,
                                  listen_streams::ticket& ticket);
    awaitable<bool> handle_get(tcp_connection& conn, request_t& req, const mcp::principal& who);
    /// A GET's stream: the messages that belong to no request, until the client goes away.
    /// `replay`: events of the stream it resumes (`resumes`, which it replaces if still open
    /// here), sent first.
    awaitable<bool> stream_get(tcp_connection& conn, const request_t& req, std::shared_ptr<http_session> session,
                               std::vector<logged_event> replay, std::string_view resumes = {});
    /// A GET with `Last-Event-ID`: the resumed stream's events after it; then, for a POST's
    /// stream, its later events as they are logged (here or on another replica) until its last;
    /// for a GET stream, a new GET stream.
    awaitable<bool> resume_stream(tcp_connection& conn, const request_t& req, std::shared_ptr<http_session> session,
                                  std::string_view last_event_id);
    /// Follow a POST's stream in the log from event `from` on, writing each event, until its
    /// last event, the retention, a log failure or a failed write.
    awaitable<void> follow_stream(tcp_connection& conn, std::string session_id, std::string stream_id,
                                  std::uint64_t from);
    /// The client went away from a POST's resumable stream: its call goes on, and its later
    /// messages are logged for a resume.
    awaitable<void> log_rest(std::shared_ptr<http_session> session, jsonrpc::request_id id,
                             std::shared_ptr<exchange> ex, stream_cursor cursor);
    /// Whether a request's streams carry event ids and are logged (2025-11-25, in a session).
    bool resumable(const request_t& req, const http_session& session) const;
    awaitable<bool> handle_delete(request_t& req, tcp_connection& conn, const mcp::principal& who);
    /// Awaited with a request's response before it goes out; a refusal goes out instead.
    using response_gate = std::function<awaitable<std::optional<http_policy::refusal>>(const std::string& response)>;
    /// Answer request `id` of `session`: once it has a slot, hand `message` over, then answer with
    /// one JSON response, or with an SSE stream of what `ex` carries that ends with the response.
    /// `session_id`: a new session's id, sent in the session header.
    /// @return whether the connection may serve another request
    awaitable<bool> answer_request(tcp_connection& conn, const request_t& req, std::shared_ptr<http_session> session,
                                   const jsonrpc::request_id& id, std::shared_ptr<exchange> ex,
                                   std::string_view session_id, jsonrpc::inbound message,
                                   const response_gate* gate = nullptr);
    /// Write the head of a POST's SSE stream, with `headers`. @return false if the write failed
    awaitable<bool> open_event_stream(tcp_connection& conn, const request_t& req, const header_list& headers);
    /// Write the head of a stream (its chunks follow), within write_timeout.
    /// @return false if the write failed
    awaitable<bool> write_stream_head(tcp_connection& conn, stream_head_t& head);
    /// Write `data` as one chunk of a stream, within write_timeout, so that a client that stops
    /// reading holds its connection no longer than that; empty `data` is the last chunk, which
    /// ends the stream. @return false if the write failed
    awaitable<bool> write_chunk(tcp_connection& conn, std::string_view data);
    /// Write one complete response. @return whether the connection may serve another request
    awaitable<bool> send(tcp_connection& conn, const request_t* req, const reply& r);
    /// Whose share of the session table a session opened by `who` on `conn` counts against: the
    /// principal, or for an anonymous caller (no tokens) the client's address.
    static std::string share_of(tcp_connection& conn, const mcp::principal& who);
    /// A stream for a response written on `conn`, bounded as the options say.
    std::shared_ptr<exchange> new_exchange(tcp_connection& conn) const {
        return std::make_shared<exchange>(conn.stream.get_executor(), opts_.max_queued_messages,
                                          opts_.max_queued_bytes);
    }
    using found_session = std::variant<std::shared_ptr<http_session>, http_policy::refusal>;
    /// Resolve the session of a request (400 without the header, 404 unknown or foreign): one
    /// held here (checked against its shared record when due), else, with shared records, one
    /// taken over from its record (503 when the records cannot be reached).
    awaitable<found_session> session_of(tcp_connection& conn, const request_t& req, const mcp::principal& who);
    /// Take session `id` over from its shared record (this replica does not hold it).
    awaitable<found_session> take_over(tcp_connection& conn, const mcp::principal& who, std::string id);
    /// Record a use of a shared session when its record's last one is a quarter of the idle
    /// timeout old (so that a busy session does not write on every request).
    void touch_record(const session_record& r) const;
    /// The response gate of an `initialize` with shared records: its record is written before
    /// the response goes out (the client may use the session on another replica at once).
    awaitable<std::optional<http_policy::refusal>> record_session(std::shared_ptr<http_session> session,
                                                                  session_record rec, std::string response);
    void request_done(thread_context& lane);
    /// Requests being answered or queued, on every thread.
    std::size_t in_flight() const;

    mcp::server& srv_;
    http_options opts_;
    std::size_t max_body_;
    std::uint16_t port_ = 0;

    // Declared first among the I/O members: destroyed last, after everything that uses them.
    // One io_context per I/O thread, each run by its thread alone, so that a connection's work
    // never leaves its thread (no scheduler or strand lock shared between threads, no memory
    // freed on another thread than the one that took it). `ioc_` is the first thread's: it
    // also holds the acceptor and the sweep; accepted connections go to each in turn.
    thread_context ioc_;
    std::vector<std::unique_ptr<thread_context>> more_iocs_;
    std::atomic<std::size_t> next_home_{0};
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer sweep_timer_;
    session_table sessions_;
    std::chrono::milliseconds recheck_;
    std::unique_ptr<shared_sessions> shared_;  // null: sessions live in this process only
    std::unique_ptr<event_journal> journal_;   // null: no event ids, nothing resumes
    listen_streams listens_;
    std::vector<std::thread> threads_;

    std::atomic<bool> draining_{false};
    std::atomic<std::size_t> connections_{0};
    std::atomic<std::uint64_t> next_connection_{0};
    std::mutex mu_;  // guards live_ and the stop state; signalled through done_
    std::condition_variable done_;
    std::unordered_map<std::uint64_t, std::weak_ptr<tcp_connection>> live_;
    bool started_ = false;
    bool stopped_ = false;
};

}  // namespace candor::transport::detail
