// SPDX-License-Identifier: BSL-1.0
// The HTTP engine's life and its connections: construction, start, drain and stop; accepting
// connections (at the cap, closing the one that has waited longest for a request), reading
// requests under limits, and writing complete responses.

#include "engine.hpp"

#include <candor/offload/worker.hpp>
#include <candor/transport/event_log.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/status.hpp>

#include <algorithm>
#include <array>
#include <exception>
#include <string>
#include <thread>

namespace candor::transport::detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using http_policy::refusal;

namespace {

// The I/O threads a transport runs (`http_options::threads`, 0: one per core).
std::size_t io_threads(const http_options& o) {
    return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
}

// Thread `i`'s part of a server-wide `total` split among `n` threads: as even as it goes, and at
// least one unless the total is none.
std::size_t part_of(std::size_t total, std::size_t n, std::size_t i) {
    if (total == 0) return 0;
    return std::max<std::size_t>(1, total / n + (i < total % n ? 1 : 0));
}

// Thread `i`'s share of the concurrency limit and of the queue's bounds.
admission::options lane_limits(const http_options& o, std::size_t i) {
    const auto n = io_threads(o);
    const auto slots = o.max_requests_in_flight ? o.max_requests_in_flight : std::max<std::size_t>(256, 128 * n);
    return {part_of(slots, n, i),
            part_of(o.max_queued_requests, n, i),
            part_of(o.max_queued_request_bytes, n, i),
            part_of(o.max_queued_requests_per_principal, n, i),
            o.max_queue_delay,
            o.queue_delay_target,
            o.queue_delay_interval};
}

}  // namespace

// Built outside coroutine bodies: GCC 12 miscompiles braced lists of string literals there.
header_list one_header(std::string_view name, std::string value) {
    header_list h;
    h.emplace_back(name, std::move(value));
    return h;
}
header_list retry_after() { return one_header("Retry-After", "1"); }

reply refused(const refusal& r, header_list headers) {
    return reply{static_cast<http::status>(r.status), http_policy::refusal_body(r), "application/json",
                 std::move(headers)};
}

reply refused(const auth_refusal& r) {
    header_list headers;
    for (const auto& [name, value] : r.headers) headers.emplace_back(name, value);
    return refused(refusal{r.status, r.code, r.message}, std::move(headers));
}

reply draining_refusal() {
    return refused({503, "DRAINING", "the server is shutting down; try again (elsewhere)"}, retry_after());
}

reply session_refusal(const refusal& r) { return refused(r, r.status == 503 ? retry_after() : header_list{}); }

http_engine::http_engine(mcp::server& srv, http_options opts)
    : srv_(srv),
      opts_(std::move(opts)),
      max_body_(opts_.max_body_bytes.value_or(srv.options().message_limits.max_bytes)),
      ioc_(lane_limits(opts_, 0), srv.make_registry_cache()),
      acceptor_(net::make_strand(ioc_)),
      sweep_timer_(ioc_),
      sessions_({opts_.max_sessions, opts_.max_sessions_per_principal}, opts_.session_idle_timeout),
      recheck_(std::min(opts_.shared_session_recheck, opts_.session_idle_timeout / 4)),
      // Server-wide, listen streams never take more than half the connections: calls, and
      // a load balancer's /readyz, always find room.
      listens_(opts_.max_listen_streams_per_principal,
               std::min(opts_.max_listen_streams, std::max<std::size_t>(opts_.max_connections / 2, 1))) {
    // Each io_context has one thread (concurrency hint 1): Asio then keeps handlers posted from
    // it on a private queue and never wakes another thread for them.
    for (std::size_t i = 1; i < io_threads(opts_); ++i)
        more_iocs_.push_back(std::make_unique<thread_context>(lane_limits(opts_, i), srv_.make_registry_cache()));
    if (opts_.shared_sessions) {
        // Moved out of the options: the worker is joined (with the engine) before the
        // io_context its work resumes on is destroyed.
        auto worker = opts_.shared_sessions_worker ? std::move(opts_.shared_sessions_worker)
                                                   : std::make_shared<offload::worker>(1);
        shared_ = std::make_unique<shared_sessions>(
            std::move(opts_.shared_sessions), std::move(worker), opts_.shared_session_timeout,
            opts_.session_idle_timeout,
            [&srv](mcp::log_level l, std::string_view text) { srv.options().log(l, text); });
    }
    if (opts_.resumable_streams && !opts_.stateless) {
        auto log = opts_.event_log ? std::move(opts_.event_log) : std::make_shared<memory_event_log>();
        auto worker = opts_.event_log_worker ? std::move(opts_.event_log_worker) : std::make_shared<offload::worker>(1);
        journal_ = std::make_unique<event_journal>(
            std::move(log), std::move(worker),
            event_journal::settings{opts_.event_log_timeout, opts_.event_retention,
                                    std::max<std::size_t>(opts_.max_logged_events_per_stream, 1), opts_.event_log_poll},
            [&srv](mcp::log_level l, std::string_view text) { srv.options().log(l, text); });
    }
}

boost::system::result<void> http_engine::start() {
    boost::system::error_code ec;
    const auto address = net::ip::make_address(opts_.host, ec);
    if (ec) return ec;
    const tcp::endpoint ep(address, opts_.port);
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return ec;
    port_ = acceptor_.local_endpoint().port();
    net::co_spawn(acceptor_.get_executor(), accept_loop(), net::detached);
    net::co_spawn(ioc_, sweep_loop(), net::detached);
    threads_.emplace_back([this] { ioc_.run(); });
    for (auto& more : more_iocs_) {
        // Its work comes from the accept loop: kept running until stop() while it has none.
        threads_.emplace_back([ioc = more.get()] {
            auto guard = net::make_work_guard(*ioc);
            ioc->run();
        });
    }
    std::lock_guard lock(mu_);
    started_ = true;
    return {};
}

// Nothing is closed here: a connection that was about to send a request (a load balancer's
// probe) would see it fail. Every response from now on says `Connection: close`, and stop()
// closes what is left.
void http_engine::drain() { draining_ = true; }

void http_engine::stop() {
    {
        std::lock_guard lock(mu_);
        if (!started_ || stopped_) return;
        stopped_ = true;
    }
    drain();
    net::post(acceptor_.get_executor(), [this] {
        boost::system::error_code ignored;
        acceptor_.close(ignored);
    });
    net::post(ioc_, [this] { sweep_timer_.cancel(); });
    {
        // Requests in flight may finish within the grace period.
        std::unique_lock lock(mu_);
        done_.wait_for(lock, opts_.shutdown_grace, [this] { return in_flight() == 0; });
    }
    // Cancel what still runs: calls stop, waiting POSTs get 503, streams end, and requests
    // still queued for a slot are refused.
    // (Each queue on its own thread.)
    net::post(ioc_, [this] { ioc_.gate.stop(); });
    for (auto& more : more_iocs_) net::post(*more, [lane = more.get()] { lane->gate.stop(); });
    sessions_.close_all(end_reason::shutdown);
    std::vector<std::shared_ptr<tcp_connection>> open;
    {
        std::lock_guard lock(mu_);
        for (auto& [n, w] : live_)
            if (auto c = w.lock()) open.push_back(std::move(c));
    }
    {
        // Let writers of cancelled requests answer 503 before the sockets go.
        std::unique_lock lock(mu_);
        done_.wait_for(lock, std::chrono::seconds(2), [this] { return in_flight() == 0; });
    }
    for (auto& c : open) {
        net::post(c->stream.get_executor(), [c] {
            boost::system::error_code ignored;
            c->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
            c->stream.close();
        });
    }
    open.clear();
    {
        std::unique_lock lock(mu_);
        done_.wait_for(lock, std::chrono::seconds(5), [this] { return connections_.load() == 0; });
    }
    ioc_.stop();
    for (auto& more : more_iocs_) more->stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
    // A request that gave up on the records left its work running on their worker (which may
    // be shared, and outlive this engine); its end posts to ioc_.
    if (shared_) shared_->wait_idle(opts_.shared_session_timeout + std::chrono::seconds(5));
    if (journal_) journal_->wait_idle(opts_.event_log_timeout + std::chrono::seconds(5));
}

void http_engine::request_done(thread_context& lane) {
    lane.in_flight.fetch_sub(1);
    if (draining_) {
        std::lock_guard lock(mu_);
        done_.notify_all();
    }
}

std::size_t http_engine::in_flight() const {
    std::size_t n = ioc_.in_flight.load();
    for (const auto& more : more_iocs_) n += more->in_flight.load();
    return n;
}

net::awaitable<void> http_engine::sweep_loop() {
    const auto period =
        std::clamp(opts_.session_idle_timeout / 4, std::chrono::milliseconds(100), std::chrono::milliseconds(60'000));
    while (!draining_) {
        sweep_timer_.expires_after(period);
        auto [ec] = co_await sweep_timer_.async_wait(use_tuple);
        if (ec || draining_) co_return;
        sessions_.sweep();
        // The local expiry leaves the records alone (another replica may still use them); the
        // records expire on their own clock.
        if (shared_) shared_->purge();
        if (journal_) journal_->purge();
    }
}

net::awaitable<void> http_engine::accept_loop() {
    for (;;) {
        // Each connection to the next I/O thread in turn.
        const auto turn = next_home_.fetch_add(1, std::memory_order_relaxed) % (more_iocs_.size() + 1);
        auto& home = turn == 0 ? ioc_ : *more_iocs_[turn - 1];
        // The connection's socket runs on its thread's executor itself: one thread runs that
        // io_context, so its handlers never run at once, and a strand would only add a lock
        // and a queue to each completion.
        auto [ec, socket] = co_await acceptor_.async_accept(home.get_executor(), use_tuple);
        if (ec) {
            if (!acceptor_.is_open()) co_return;
            continue;  // e.g. EMFILE: keep serving the connections we have
        }
        auto conn = std::make_shared<tcp_connection>(std::move(socket), home);
        conn->mark_idle();
        const auto n = next_connection_++;
        // At the cap, a connection that only waits gives its place to the newcomer.
        const bool over = connections_.fetch_add(1) >= opts_.max_connections && !close_longest_idle();
        {
            std::lock_guard lock(mu_);
            live_.emplace(n, conn);
        }
        auto finish = [this, n](std::exception_ptr ep) {
            if (ep) {
                try {
                    std::rethrow_exception(ep);
                } catch (const std::exception& e) {
                    srv_.options().log(mcp::log_level::error, std::string("http connection failed: ") + e.what());
                } catch (...) {
                }
            }
            std::lock_guard lock(mu_);
            live_.erase(n);
            if (connections_.fetch_sub(1) == 1) done_.notify_all();
        };
        auto ex = conn->stream.get_executor();
        if (over) net::co_spawn(ex, reject_connection(std::move(conn)), finish);
        else net::co_spawn(ex, serve_connection(std::move(conn)), finish);
    }
}

bool http_engine::close_longest_idle() {
    // Only a connection that has waited since `cutoff` or earlier may give way.
    const auto cutoff = (std::chrono::steady_clock::now() - opts_.min_idle_to_evict).time_since_epoch().count();
    // A few tries: the one found may start a request before it is claimed.
    for (int attempt = 0; attempt < 3; ++attempt) {
        std::shared_ptr<tcp_connection> oldest;
        std::int64_t since = 0;
        {
            std::lock_guard lock(mu_);
            for (const auto& [n, weak] : live_) {
                auto c = weak.lock();
                const auto t = c ? c->idle_since() : 0;
                if (t > 0 && t <= cutoff && (since == 0 || t < since)) {
                    since = t;
                    oldest = std::move(c);
                }
            }
        }
        if (!oldest) return false;
        if (!oldest->claim_idle(since)) continue;
        // Its pending read ends (or, if bytes arrived just now, mark_busy refuses them).
        net::post(oldest->stream.get_executor(), [oldest] { oldest->stream.cancel(); });
        return true;
    }
    return false;
}

net::awaitable<void> http_engine::reject_connection(std::shared_ptr<tcp_connection> conn) {
    conn->stream.expires_after(std::chrono::seconds(1));
    refusal r{503, "TOO_MANY_CONNECTIONS", "the server has too many open connections; try again later"};
    {
        const auto reply_ = refused(r, retry_after());
        co_await send(*conn, nullptr, reply_);
    }
}

net::awaitable<void> http_engine::serve_connection(std::shared_ptr<tcp_connection> conn) {
    auto& stream = conn->stream;
    beast::flat_buffer buffer;
    // The first request's head must have arrived within header_timeout of the accept, so a
    // connection that sends nothing holds its place no longer than that.
    auto head_deadline = conn->accepted + opts_.header_timeout;
    for (bool first = true;; first = false) {
        if (buffer.size() == 0) {
            // Waiting for a request: idle (the first to go at the connection cap); a kept-alive
            // connection may wait idle_timeout for its next one.
            stream.expires_at(first ? head_deadline : std::chrono::steady_clock::now() + opts_.idle_timeout);
            conn->mark_idle();
            auto [ec, n] = co_await stream.async_read_some(buffer.prepare(4096), use_tuple);
            if (!conn->mark_busy() || ec) co_return;
            buffer.commit(n);
        }
        // From its first byte, a request's head must arrive within header_timeout (the first
        // request's: from the accept) and the whole request within read_timeout. A timeout or a
        // client gone needs no answer (tcp_stream has already closed the socket).
        const auto first_byte = std::chrono::steady_clock::now();
        if (!first) head_deadline = first_byte + opts_.header_timeout;
        request_reader reader(opts_.max_header_bytes, max_body_);
        if (!co_await read_request(stream, buffer, reader, head_deadline, first_byte + opts_.read_timeout)) co_return;
        if (reader.status() == request_reader::state::refused) {
            // Malformed or over a limit: answered, and the connection closed, since where the
            // next request would start is not known (a body over the limit is not read).
            const auto reply_ = refused(reader.refusal(), {});
            co_await send(*conn, nullptr, reply_);
            co_return;
        }
        stream.expires_never();
        auto req = reader.release();
        if (!co_await handle(*conn, req)) {
            boost::system::error_code ignored;
            stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
            co_return;
        }
    }
}

net::awaitable<bool> http_engine::read_request(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                               request_reader& reader,
                                               std::chrono::steady_clock::time_point head_deadline,
                                               std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        const auto data = buffer.data();
        buffer.consume(reader.feed(std::string_view(static_cast<const char*>(data.data()), data.size())));
        if (reader.status() != request_reader::state::need_more) co_return true;
        stream.expires_at(reader.head_done() ? deadline : std::min(head_deadline, deadline));
        auto [ec, n] = co_await stream.async_read_some(buffer.prepare(beast::read_size(buffer, 65536)), use_tuple);
        if (ec) co_return false;
        buffer.commit(n);
    }
}

// A whole response with a body of known length, written as two buffers: the head (formatted
// here; Beast's serializer cost more per reply than the rest of the HTTP layer) and the body,
// as it is (never copied into a message object).
net::awaitable<bool> http_engine::send(tcp_connection& conn, const request_t* req, const reply& r) {
    const bool http10 = req && req->version() == 10;
    const bool keep = req && req->keep_alive() && !draining_;
    const auto status = static_cast<unsigned>(r.status);
    std::string head;
    head.reserve(128 + r.content_type.size());
    head += http10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    head += std::to_string(status);
    head += ' ';
    const auto reason = http::obsolete_reason(r.status);
    head.append(reason.data(), reason.size());
    head += "\r\nServer: candor\r\n";
    if (!r.body.empty()) {
        head += "Content-Type: ";
        head += r.content_type;
        head += "\r\n";
    }
    for (const auto& [name, value] : r.headers) {
        // Values are the server's own (session ids, Retry-After); a line break would end the head.
        if (value.find_first_of("\r\n") != std::string::npos) continue;
        head += name;
        head += ": ";
        head += value;
        head += "\r\n";
    }
    if (http10 && keep) head += "Connection: keep-alive\r\n";
    if (!http10 && !keep) head += "Connection: close\r\n";
    if (status != 204 && status != 304 && status >= 200) {
        head += "Content-Length: ";
        head += std::to_string(r.body.size());
        head += "\r\n";
    }
    head += "\r\n";
    const std::array<net::const_buffer, 2> buffers{net::buffer(head), net::buffer(r.body)};
    conn.stream.expires_after(opts_.write_timeout);
    auto [ec, n] = co_await net::async_write(conn.stream, buffers, use_tuple);
    conn.stream.expires_never();
    co_return !ec && keep;
}

}  // namespace candor::transport::detail
