// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Notices that reach across replicas: the feed the replicas of one deployment share
/// (`server::set_shared_notices`; `state::sql_notice_feed` on SQLite or PostgreSQL).
///
/// What a client hears without asking — `notifications/{tools,prompts,resources}/list_changed`,
/// `notifications/resources/updated`, and the events of a `subscriptions/listen` stream — is
/// raised on one replica, while the client's stream may be held by another. A server with a
/// feed writes every change it raises to it, and reads the others' every
/// `shared_notice_options::poll_interval` (500 ms) while it holds a connection that can hear
/// one; it then tells its own connections, as if the change were its own. A
/// `notifications/cancelled` of the 2025-11-25 revision for a call this replica does not run
/// goes the same way to the replica that runs it (the call is found by its session and request
/// id).
///
/// The promise is at most once: a notice reaches each listener once or, when a replica cannot
/// read the feed then (the database down), not at all; a notice raised before a replica began
/// to read the feed (its first listener came) is not replayed to it. Replicas' clocks are
/// assumed in step (NTP), as for task leases. A client that reconnects reads the current state again
/// (`tools/list`, `resources/read`), as it must after any gap.

#include <candor/store/database.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace candor::mcp {

/// One change a replica tells the others of.
struct notice {
    enum class kind {
        /// `subject`: the notification's method (`notifications/tools/list_changed`, …).
        list_changed,
        /// `subject`: the resource's URI.
        resource_updated,
        /// `subject`: the session id; `detail`: the cancelled request's id as JSON.
        cancelled,
    };
    kind what = kind::list_changed;
    std::string subject{};
    std::string detail{};
};

/// What one read of the feed found.
struct notice_batch {
    /// The other replicas' notices, oldest first.
    std::vector<notice> notices{};
    /// Where the next read starts (the feed's end as this read saw it).
    std::int64_t last = 0;
};

/// The shared feed. `read` runs on the implementation's worker and is awaited; `publish` is
/// queued; neither blocks the caller's thread.
class shared_notices {
public:
    virtual ~shared_notices() = default;

    /// Add `n` from replica `origin` to the feed. Queued, never awaited: a failure loses it
    /// (at most once).
    virtual void publish(std::string origin, notice n) = 0;

    /// The notices of other origins than `origin` after `after`, at most `max` of them; with no
    /// `after` (a new reader), those published at or after `since` (the reader's start: a first
    /// read that comes late misses nothing raised after it began to listen).
    virtual boost::asio::awaitable<boost::system::result<notice_batch, store::db_error>> read(
        std::optional<std::int64_t> after, std::string origin, std::size_t max,
        std::chrono::system_clock::time_point since) = 0;
};

struct shared_notice_options {
    /// How often a replica reads the feed while it holds a connection that can hear a change.
    std::chrono::milliseconds poll_interval{500};
    /// Notices read per poll, at most (the rest on the next one).
    std::size_t max_per_read = 256;
};

}  // namespace candor::mcp
