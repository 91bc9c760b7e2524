// SPDX-License-Identifier: BSL-1.0
#pragma once
// The HTTP transport's side of the SSE event log (`http_options::event_log`, 2025-11-25 wire):
// event ids, appends and reads on the log's worker bounded by `event_log_timeout`, and the
// wake-ups of resumed streams that follow a stream written in this process. Private to the
// transport module.

#include <candor/mcp/logging.hpp>
#include <candor/transport/event_log.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace candor::offload {
class worker;
}

namespace candor::transport::detail {

/// Which stream an event id names, and where in it.
struct event_ref {
    std::string stream_id;
    std::uint64_t seq = 0;
};

/// A new stream id: `kind` ('p' for a POST's stream, 'g' for a GET stream) and 32 random hex
/// digits, so that ids are unique within a session and cannot be guessed across sessions.
std::string new_stream_id(char kind);
/// The SSE id of event `seq` of `stream_id`: `<stream id>-<seq>`.
std::string event_id(std::string_view stream_id, std::uint64_t seq);
/// Read a `Last-Event-ID`. @return nothing unless it is an id `event_id` makes
std::optional<event_ref> parse_event_id(std::string_view id);

/// One stream being written: what its next event is numbered, and whether its log failed (then
/// the failure was logged once, and its events still go out live).
struct stream_cursor {
    std::string session_id;
    std::string stream_id;
    std::uint64_t next = 0;
    bool failed = false;
};

/// Woken when a stream written in this process gets an event (or when `poll` is over).
struct stream_wake {
    explicit stream_wake(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    std::atomic<bool> pending{false};
};

class event_journal {
public:
    struct settings {
        std::chrono::milliseconds timeout;
        std::chrono::milliseconds retention;
        std::size_t keep;
        std::chrono::milliseconds poll;
    };
    event_journal(std::shared_ptr<event_log> log, std::shared_ptr<offload::worker> worker, settings s,
                  mcp::log_sink sink);

    /// Log the cursor's next event (`final`: the stream's last) before it is sent, and wake the
    /// streams here that follow it. A failure is logged once per stream. Call it from a strand.
    /// @return the event's SSE id
    boost::asio::awaitable<std::string> record(stream_cursor& cursor, bool final, std::string text);
    /// The events of one stream from `from` on (at most a page). Call it from a strand.
    /// @return them, or nothing when the log failed or was late (logged)
    boost::asio::awaitable<std::optional<std::vector<logged_event>>> read(std::string session_id, std::string stream_id,
                                                                          std::uint64_t from);
    /// Remove the expired events, without waiting for it.
    void purge();

    /// Follow `stream_id`: the wake's timer is cancelled whenever an event of it is logged here.
    std::shared_ptr<stream_wake> watch(const std::string& stream_id, const boost::asio::any_io_executor& ex);
    /// Wait for the next event of the watched stream: a wake-up from this process, or the poll
    /// interval (the writer may be another replica).
    boost::asio::awaitable<void> wait(stream_wake& wake) const;

    /// Wait (at most `limit`) until no append or read a stream gave up on still runs.
    void wait_idle(std::chrono::milliseconds limit) const;

    const settings& limits() const noexcept { return settings_; }

private:
    void notify(const std::string& stream_id);

    std::shared_ptr<event_log> log_;
    std::shared_ptr<offload::worker> worker_;
    settings settings_;
    mcp::log_sink sink_;
    std::shared_ptr<int> running_ = std::make_shared<int>();
    std::mutex mu_;  // guards watchers_
    std::unordered_map<std::string, std::vector<std::weak_ptr<stream_wake>>> watchers_;
};

}  // namespace candor::transport::detail
