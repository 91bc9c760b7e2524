// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The log of the HTTP transport's SSE events (2025-11-25 wire), from which a client that lost
/// a stream resumes it with `Last-Event-ID` (`http_options::event_log`). Every event a stream
/// carries is appended before it is written to the socket, and a call whose client went away
/// goes on appending, so that a resume — on this replica or, with a log that the replicas share,
/// on any — delivers what the client missed, the response included.
///
/// An event is named by its stream (an id the transport draws at random) and its sequence
/// number in the stream: 0 is the priming event, which carries no message. An event with
/// `final` set is the stream's last: its text is the response that ends a POST stream, or
/// empty when the stream ended without one (the call was cancelled, the server shut down).
///
/// `memory_event_log` (below) keeps the events in this process: resumption on one replica.
/// The implementation on a SQL database that the replicas share is `state::sql_event_log`
/// (candor/state/sql_event_log.hpp, component sqlite). Every method blocks: the transport calls
/// them on a `offload::worker` thread, never on an I/O thread.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::transport {

/// One SSE event of a stream.
struct logged_event {
    /// The session (`Mcp-Session-Id`) the stream belongs to.
    std::string session_id{};
    /// The stream, unique within the session.
    std::string stream_id{};
    /// Its place in the stream: 0 for the priming event, then 1, 2, … in the order sent.
    std::uint64_t seq = 0;
    /// The stream's last event: nothing follows it.
    bool final = false;
    /// The JSON-RPC message it carries; empty for the priming event and for the end of a stream
    /// that ended without its response.
    std::string text{};
    /// From then on the event is gone (`http_options::event_retention` after it was sent).
    std::chrono::system_clock::time_point expires{};
};

/// Why the log could not be read or written (for the server log; a resume that cannot read it
/// is answered 503 `EVENT_LOG_UNAVAILABLE`).
struct event_log_error {
    std::string message{};
};
[[noreturn]] inline void throw_exception_from_error(const event_log_error& e, const boost::source_location&) {
    throw std::runtime_error(e.message);
}

template <class T>
using event_log_result = boost::system::result<T, event_log_error>;

/// The SSE events of the sessions' streams. Thread-safe; every method may block.
class event_log {
public:
    virtual ~event_log() = default;

    /// Append one event (replacing one with the same session, stream and sequence number), then
    /// keep no more than `keep` events of its stream: those numbered `e.seq - keep` and below
    /// are dropped.
    virtual event_log_result<void> append(const logged_event& e, std::size_t keep) = 0;

    /// The events of one stream numbered `from` and above, in order, at most `max`, leaving out
    /// those expired before `now`.
    virtual event_log_result<std::vector<logged_event>> read(std::string_view session_id, std::string_view stream_id,
                                                             std::uint64_t from, std::size_t max,
                                                             std::chrono::system_clock::time_point now) = 0;

    /// Remove the events that expired before `now`. @return how many
    virtual event_log_result<std::size_t> purge(std::chrono::system_clock::time_point now) = 0;
};

/// The events in this process's memory: a resume works on the replica that sent the stream
/// only. The transport's default. Thread-safe (one mutex; no method blocks on anything else).
class memory_event_log final : public event_log {
public:
    event_log_result<void> append(const logged_event& e, std::size_t keep) override {
        std::lock_guard lock(mu_);
        auto& stream = streams_[key(e.session_id, e.stream_id)];
        auto at = stream.begin();
        while (at != stream.end() && at->seq < e.seq) ++at;
        if (at != stream.end() && at->seq == e.seq) *at = e;
        else stream.insert(at, e);
        while (!stream.empty() && keep <= e.seq && stream.front().seq <= e.seq - keep) stream.pop_front();
        return {};
    }

    event_log_result<std::vector<logged_event>> read(std::string_view session_id, std::string_view stream_id,
                                                     std::uint64_t from, std::size_t max,
                                                     std::chrono::system_clock::time_point now) override {
        std::vector<logged_event> out;
        std::lock_guard lock(mu_);
        const auto it = streams_.find(key(session_id, stream_id));
        if (it == streams_.end()) return out;
        for (const auto& e : it->second) {
            if (out.size() >= max) break;
            if (e.seq >= from && e.expires > now) out.push_back(e);
        }
        return out;
    }

    event_log_result<std::size_t> purge(std::chrono::system_clock::time_point now) override {
        std::size_t gone = 0;
        std::lock_guard lock(mu_);
        for (auto it = streams_.begin(); it != streams_.end();) {
            gone += std::erase_if(it->second, [now](const logged_event& e) { return e.expires <= now; });
            it = it->second.empty() ? streams_.erase(it) : std::next(it);
        }
        return gone;
    }

private:
    static std::pair<std::string, std::string> key(std::string_view session_id, std::string_view stream_id) {
        return {std::string(session_id), std::string(stream_id)};
    }

    std::mutex mu_;
    std::map<std::pair<std::string, std::string>, std::deque<logged_event>> streams_;
};

}  // namespace candor::transport
