// SPDX-License-Identifier: BSL-1.0
#pragma once
// The HTTP transport's side of shared session records (`http_options::shared_sessions`): every
// call runs on the records' worker, bounded by `shared_session_timeout`, and resumes on the
// caller's strand. Private to the transport module.

#include <candor/mcp/logging.hpp>
#include <candor/transport/session_records.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace candor::offload {
class worker;
}

namespace candor::transport::detail {

/// What a look-up found.
struct shared_lookup {
    enum class outcome { found, missing, unavailable };
    outcome status = outcome::unavailable;
    session_record record;
};

class shared_sessions {
public:
    /// @param idle the sessions' idle timeout (a record's life after its last recorded use)
    shared_sessions(std::shared_ptr<session_records> records, std::shared_ptr<offload::worker> worker,
                    std::chrono::milliseconds timeout, std::chrono::milliseconds idle, mcp::log_sink log);

    /// The record of session `id`; `unavailable` when the records failed or were late (logged).
    /// Call it from a strand.
    boost::asio::awaitable<shared_lookup> find(std::string id);
    /// Write the record of a session just initialized. @return false when the records failed
    boost::asio::awaitable<bool> put(session_record r);
    /// Remove session `id`'s record. @return false when the records failed
    boost::asio::awaitable<bool> remove(std::string id);
    /// Record a use of session `id` now (throttled by the records), without waiting for it.
    void touch(std::string id);
    /// Remove the expired records, without waiting for it.
    void purge();

    /// Wait (at most `limit`) until no look-up, write or removal a request gave up on still
    /// runs: its end resumes on the caller's io_context, which must still exist then.
    void wait_idle(std::chrono::milliseconds limit) const;

    std::chrono::milliseconds idle() const noexcept { return idle_; }
    /// A record written now lives until then.
    std::chrono::system_clock::time_point expiry(std::chrono::system_clock::time_point now) const {
        return now + idle_;
    }

private:
    std::shared_ptr<session_records> records_;
    std::shared_ptr<offload::worker> worker_;
    std::chrono::milliseconds timeout_;
    std::chrono::milliseconds idle_;
    mcp::log_sink log_;
    // Copied into each awaited piece of work: more than one owner while any runs.
    std::shared_ptr<int> running_ = std::make_shared<int>();
};

}  // namespace candor::transport::detail
