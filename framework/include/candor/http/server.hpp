// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The Streamable HTTP transport (MCP 2025-03-26 and later): one endpoint for POST, GET and
/// DELETE, sessions, and the limits that keep one client from starving the others.
///
/// A POST carries one JSON-RPC message. A notification or response is answered `202`; a
/// request is answered with one `application/json` response, unless the server sends related
/// notifications (progress, logging) before the response — then the answer is a
/// `text/event-stream` carrying them and ending with the response. A GET opens a stream for
/// messages that belong to no request (`notifications/tools/list_changed`). Every message goes
/// to exactly one stream. Status codes, headers and every limit are in docs/http.md.
///
/// Secure by default: it binds 127.0.0.1, refuses foreign `Origin` and `Host` headers (DNS
/// rebinding), and, given tokens, requires `Authorization: Bearer` on every request; the
/// token's principal reaches the tool through `call_context::caller()`.

#include <candor/mcp/server.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::offload {
class worker;
}

namespace candor::transport {

class authenticator;
class event_log;
class session_records;

/// A request to a path other than the MCP endpoint and the health probes (metrics, console).
struct admin_request {
    std::string_view method{};  ///< "GET", "POST", …
    std::string_view target{};  ///< path and query, e.g. "/ops/feed?after=3"
    std::string_view authorization{};
    std::string_view cookie{};
};

/// The answer to an `admin_request`.
struct admin_response {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body{};
    std::vector<std::pair<std::string, std::string>> headers{};
};

/// Serves admin paths; nothing means "not mine" (the transport answers 404). Called on an I/O
/// thread: it must answer quickly and never block.
using admin_handler = std::function<std::optional<admin_response>(const admin_request&)>;

/// Settings of the HTTP transport. Every limit has a default and a documented refusal.
struct http_options {
    /// Address to bind. Anything but a loopback address exposes the server to the network.
    std::string host = "127.0.0.1";
    /// Port to bind; 0 picks a free one (see `http_server::port()`).
    std::uint16_t port = 0;
    /// Path of the MCP endpoint.
    std::string endpoint = "/mcp";
    /// No sessions: every POST is self-contained (a fresh connection, initialized implicitly
    /// when the message is not `initialize`); GET and DELETE answer 405.
    bool stateless = false;
    /// I/O threads, each running an io_context of its own that the accepted connections are
    /// handed to in turn; 0 means one per core.
    std::size_t threads = 0;

    /// Origins accepted besides the loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`, also https). A request with any other `Origin` gets 403. Requests
    /// without `Origin` (non-browser clients) are accepted. "*" accepts every origin.
    std::vector<std::string> allowed_origins{};
    /// `Host` values (without port) accepted besides localhost, 127.0.0.1 and [::1]; others get
    /// 403. "*" accepts every host (for servers behind a proxy that checks it).
    std::vector<std::string> allowed_hosts{};
    /// Bearer tokens and the principal each stands for. Empty: no authentication. Otherwise a
    /// request without a known token gets 401 with `WWW-Authenticate: Bearer`.
    std::map<std::string, mcp::principal, std::less<>> tokens{};
    /// Decides who calls instead of `tokens` (OAuth 2.1: `candor::auth::make_oauth`; see
    /// authenticator.hpp and docs/auth.md). Null: `tokens` (or nobody) decides.
    std::shared_ptr<transport::authenticator> authenticator{};

    /// Bytes of the request line and headers; more gets 431 and the connection is closed.
    std::size_t max_header_bytes = 16 * 1024;
    /// Bytes of a POST body; default: the server's `message_limits.max_bytes`. A larger
    /// `Content-Length` gets 413 before any of the body is read, and the connection is closed.
    std::optional<std::size_t> max_body_bytes{};
    /// Time to receive a request's line and headers, counted from the accept for a connection's
    /// first request and from the first byte for later ones; after it the connection is closed
    /// without an answer (a connection that sends nothing holds its place no longer).
    std::chrono::milliseconds header_timeout{10'000};
    /// Time to receive one whole request once its first byte arrived; after it the connection
    /// is closed without an answer (a client sending one byte a minute is cut off).
    std::chrono::milliseconds read_timeout{10'000};
    /// Time a kept-alive connection may wait for its next request; then it is closed.
    std::chrono::milliseconds idle_timeout{60'000};
    /// Time to write one chunk of a response; a client that stops reading is cut off.
    std::chrono::milliseconds write_timeout{30'000};
    /// Open TCP connections. At the cap, the connection that has waited longest for a request
    /// (kept alive between requests, or silent since its accept) is closed to make room, if it
    /// has waited `min_idle_to_evict`; otherwise the new one is answered 503
    /// `TOO_MANY_CONNECTIONS` and closed.
    std::size_t max_connections = 1024;
    /// How long a connection must have waited for a request before it may give its place to a
    /// newcomer at `max_connections`. A client between two quick requests keeps its connection,
    /// so a crowd of newcomers is refused instead of each closing a connection that was about
    /// to be used (a churn in which no call completes).
    std::chrono::milliseconds min_idle_to_evict{1'000};
    /// JSON-RPC requests being answered at once, server-wide; 0: 128 per I/O thread, at least
    /// 256. Past it a request waits for a slot in a first-in-first-out queue (below); only one
    /// that finds the queue full, or waits past its delay bound, gets 503 with `Retry-After`.
    /// The limit and the queue's bounds below are divided among the I/O threads (as evenly as
    /// they go, at least one slot each): each thread admits and queues its own connections'
    /// requests, so that no lock or counter is shared by the threads on a request's way.
    std::size_t max_requests_in_flight = 0;
    /// Requests waiting for a slot, at most (each holds its connection and its parsed body).
    std::size_t max_queued_requests = 4096;
    /// Requests of one principal (without tokens: one client address) waiting for a slot, at
    /// most: past it that caller's next request is refused, never anyone else's.
    std::size_t max_queued_requests_per_principal = 256;
    /// Bytes of request bodies waiting for a slot, at most.
    std::size_t max_queued_request_bytes = 64u << 20;
    /// How long a request waits for a slot before it is refused, while the queue drains.
    std::chrono::milliseconds max_queue_delay{500};
    /// A queue in which every request that got a slot (or gave up) during
    /// `queue_delay_interval` had waited at least this long stands: it no longer absorbs a
    /// burst but only adds latency (CoDel's test). While it stands, a request that joins it
    /// waits at most `queue_delay_interval` instead of `max_queue_delay`; it stands until a
    /// request leaves it sooner than this, or it empties.
    std::chrono::milliseconds queue_delay_target{5};
    /// See `queue_delay_target`.
    std::chrono::milliseconds queue_delay_interval{100};
    /// Live sessions. When the table is full, an `initialize` closes (in this order) an expired
    /// session, the least recently used session never used after its `initialize`, or the
    /// caller's own least recently used session; a session with a request in flight or a stream
    /// open is never closed, and when none can go the `initialize` gets 503.
    std::size_t max_sessions = 1024;
    /// Live sessions one principal may hold (without tokens: one client address). Past it, its
    /// own least recently used session is closed for the new one (503 when all are busy), so no
    /// principal can take the table from the others.
    std::size_t max_sessions_per_principal = 64;
    /// A session unused for this long expires (later requests with its id get 404).
    std::chrono::milliseconds session_idle_timeout{30 * 60'000};
    /// Sessions that go on on another replica (several replicas behind a load balancer without
    /// stickiness): `initialize` writes the session's record before its answer goes out, and a
    /// replica that does not hold a session takes it over from its record (same principal only;
    /// counted against `max_sessions` and `max_sessions_per_principal` there). DELETE removes the
    /// record, so the session ends on every replica; local expiry and eviction do not (another
    /// replica may still use the session), and an expired record is gone everywhere. What stays
    /// per replica: streams, calls in flight, `logging/setLevel` and resource subscriptions.
    /// Null: sessions live in this process only. See docs/http.md, "Sessions across replicas".
    std::shared_ptr<transport::session_records> shared_sessions{};
    /// The threads that run `shared_sessions`' statements (they block; never an I/O thread).
    /// Null: one thread of the transport's own.
    std::shared_ptr<offload::worker> shared_sessions_worker{};
    /// How long a request waits for `shared_sessions` (a look-up, the write of `initialize`, a
    /// DELETE); past it, or when the records fail, the answer is 503 `SESSION_STORE_UNAVAILABLE`
    /// with `Retry-After` — never 404, which would tell the client to initialize again.
    std::chrono::milliseconds shared_session_timeout{2'000};
    /// A session held here is checked against its record at most this often (at most a quarter
    /// of `session_idle_timeout`), so a DELETE on another replica ends it here too; 0: on every
    /// request. When the records cannot be read, a session held here goes on.
    std::chrono::milliseconds shared_session_recheck{1'000};
    /// SSE resumption on the 2025-11-25 wire (requests whose `MCP-Protocol-Version` is
    /// 2025-11-25, in a session): every SSE event gets an id (`<stream id>-<n>`), a stream opens
    /// with a priming event (an id and no data, with `retry`), and every event is appended to
    /// `event_log` before it is written, also after the client went away from a POST's stream
    /// (its call goes on). A GET with `Last-Event-ID` replays the events after that id, then
    /// follows the stream to its response (a POST's) or goes on as a new GET stream (a GET's).
    /// Off: no ids, and the 2025-11-25 wire behaves as the earlier ones. See docs/http.md,
    /// "Resuming a stream".
    bool resumable_streams = true;
    /// Where the events are logged. Null: in this process's memory (`memory_event_log`), so a
    /// stream resumes on the replica that sent it; share a log (`state::sql_event_log`) for
    /// replicas behind a load balancer without stickiness.
    std::shared_ptr<transport::event_log> event_log{};
    /// The threads that run `event_log`'s statements (they block; never an I/O thread). Null:
    /// one thread of the transport's own.
    std::shared_ptr<offload::worker> event_log_worker{};
    /// How long an event stays in the log after it was sent; a resume from an id older than
    /// that gets 410 `LAST_EVENT_ID_GONE`, and a resumed stream follows a call no longer.
    std::chrono::milliseconds event_retention{5 * 60'000};
    /// Events kept per stream: past it the oldest go (the priming event first), and a resume from
    /// one of them gets 410 `LAST_EVENT_ID_GONE`. The newest always stay, the response with them.
    std::size_t max_logged_events_per_stream = 1000;
    /// How long a write waits for `event_log` (past it the event goes out live only, and the
    /// failure is logged once per stream) and a resume for its read (past it, or when the log
    /// fails, the answer is 503 `EVENT_LOG_UNAVAILABLE` with `Retry-After`).
    std::chrono::milliseconds event_log_timeout{2'000};
    /// A resumed stream whose writer is another replica reads the log this often for new
    /// events (a writer in this process wakes it at once).
    std::chrono::milliseconds event_log_poll{250};
    /// The `retry` field of the priming event: how long a client waits before it reconnects.
    std::chrono::milliseconds sse_retry{1'000};
    /// Standalone GET streams one session may hold open; one more gets 409.
    std::size_t max_streams_per_session = 1;
    /// `subscriptions/listen` streams (2026-07-28) one principal may hold open at once (without
    /// tokens: one client address). Past it, the principal's oldest stream ends — with the
    /// listen request's own response, as at a shutdown — to make room for the new one.
    std::size_t max_listen_streams_per_principal = 8;
    /// `subscriptions/listen` streams open at once, server-wide; never more than half of
    /// `max_connections` (so calls and `/readyz` always find a connection). Past it, a new
    /// one gets 503 `TOO_MANY_STREAMS` with `Retry-After`.
    std::size_t max_listen_streams = 256;
    /// Messages queued for one stream whose client reads slowly; beyond it the stream is ended.
    std::size_t max_queued_messages = 1024;
    /// A `subscriptions/listen` stream with nothing to say for this long gets an SSE comment
    /// line, so that proxies and clients do not close it as idle.
    std::chrono::milliseconds stream_keepalive{15'000};
    /// Bytes of the messages queued for one stream; beyond it the stream is ended, as for
    /// `max_queued_messages`. A message larger than this is still sent when nothing else waits
    /// (a response is never refused for its size alone).
    std::size_t max_queued_bytes = 1u << 20;
    /// On SIGTERM (`serve_http`), how long the server drains before it stops: it keeps accepting
    /// connections, `/readyz` answers 503 and new MCP requests 503 `DRAINING` (with
    /// `Retry-After`), so a load balancer that health-checks sees it leave rather than die;
    /// requests in flight go on. SIGINT, or a second signal, skips or ends it. 0: no drain period.
    std::chrono::milliseconds drain_period{5'000};
    /// On shutdown (after the drain period), how long requests in flight may still finish before
    /// they are cancelled.
    std::chrono::milliseconds shutdown_grace{10'000};

    /// Paths besides the endpoint, `/healthz` and `/readyz` (e.g. `/metrics`, `/ops`; see
    /// `ops::admin`). They get the same `Host` check as the endpoint, not the agents' tokens.
    admin_handler admin{};
};

namespace detail {
class http_engine;
}

/// A running HTTP transport. Non-blocking: `start` binds and runs the I/O threads,
/// `stop` drains. For a process whose whole job is serving, use `serve_http`.
class http_server {
public:
    /// @param srv the MCP server; must outlive this object
    http_server(mcp::server& srv, http_options opts);
    ~http_server();  ///< stops (with the grace period) if still running
    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    /// Bind, listen and start the threads.
    /// @return nothing, or why the address could not be bound
    boost::system::result<void> start();

    /// The bound port (after `start`).
    std::uint16_t port() const noexcept;

    /// Start draining and return: connections are still accepted, `/readyz` answers 503, new
    /// MCP requests (and GET streams) 503 `DRAINING` with `Retry-After`, and every response says
    /// `Connection: close`. Requests in flight go on, and the client's replies and notifications
    /// to them still get through. Idempotent; thread-safe.
    void drain();

    /// Drain (if `drain` was not called), stop accepting, let requests in flight finish within
    /// the grace period, cancel the rest, close every connection and join the threads.
    /// Idempotent; thread-safe; must not be called from an I/O thread.
    void stop();

    /// Live sessions (for tests and metrics).
    std::size_t session_count() const;
    /// Open TCP connections (for tests and metrics).
    std::size_t connection_count() const noexcept;
    /// Requests waiting for a slot now (`max_requests_in_flight`; for tests and metrics).
    std::size_t queued_requests() const;

private:
    std::unique_ptr<detail::http_engine> engine_;
};

/// Serve until SIGINT/SIGTERM, then shut down gracefully: on SIGTERM, drain for
/// `http_options::drain_period` first (a second signal ends it), then `stop`.
/// @return 0 after a clean shutdown, 1 if the address could not be bound (said on stderr)
int serve_http(mcp::server& srv, const http_options& opts);

}  // namespace candor::transport
