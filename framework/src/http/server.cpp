// SPDX-License-Identifier: BSL-1.0
// The HTTP transport's public face: `http_server`, a handle on the engine (engine.hpp),
// and `serve_http`, which serves until a signal and then drains and stops.

#include <candor/http/server.hpp>

#include "engine.hpp"

#include <candor/mcp/server.hpp>

#include <chrono>
#include <csignal>
#include <ctime>
#include <memory>
#include <string>
#include <utility>

namespace candor::transport {

http_server::http_server(mcp::server& srv, http_options opts)
    : engine_(std::make_unique<detail::http_engine>(srv, std::move(opts))) {}
http_server::~http_server() = default;
boost::system::result<void> http_server::start() { return engine_->start(); }
std::uint16_t http_server::port() const noexcept { return engine_->port(); }
void http_server::drain() { engine_->drain(); }
void http_server::stop() { engine_->stop(); }
std::size_t http_server::session_count() const { return engine_->session_count(); }
std::size_t http_server::connection_count() const noexcept { return engine_->connection_count(); }
std::size_t http_server::queued_requests() const { return engine_->queued_requests(); }

int serve_http(mcp::server& srv, const http_options& opts) {
    // Block the signals before any thread starts, so that only sigwait below receives them.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    http_server server(srv, opts);
    if (auto started = server.start(); !started) {
        srv.options().log(mcp::log_level::error, "cannot listen on " + opts.host + ":" + std::to_string(opts.port) +
                                                     ": " + started.error().message());
        return 1;
    }
    srv.options().log(mcp::log_level::info,
                      "listening on http://" + opts.host + ":" + std::to_string(server.port()) + opts.endpoint);
    int sig = 0;
    sigwait(&set, &sig);
    if (sig == SIGTERM && opts.drain_period.count() > 0) {
        // A load balancer sees /readyz turn 503 and stops sending work before the listener goes;
        // a second signal ends the drain period at once.
        srv.options().log(mcp::log_level::info, "draining for " + std::to_string(opts.drain_period.count()) +
                                                    " ms: /readyz answers 503, new requests 503 DRAINING");
        server.drain();
        const auto until = std::chrono::steady_clock::now() + opts.drain_period;
        for (auto left = opts.drain_period; left.count() > 0;
             left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now())) {
            const timespec wait{static_cast<time_t>(left.count() / 1000),
                                static_cast<long>(left.count() % 1000) * 1'000'000};
            if (sigtimedwait(&set, nullptr, &wait) >= 0) break;
        }
    }
    srv.options().log(mcp::log_level::info, "shutting down");
    server.stop();
    return 0;
}

}  // namespace candor::transport
