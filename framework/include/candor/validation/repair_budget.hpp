// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The repair budget: how many times one caller may send a tool arguments that fail
/// validation before the framework stops inviting another repair round.
///
/// A key names one caller of one tool: `tool + session id` when the transport has a session
/// (HTTP `Mcp-Session-Id`), else `tool + principal id` (stdio and in-memory connections have no
/// session; an anonymous principal is one caller). A failed attempt is counted under its key;
/// the count expires `window` after the last failure and is cleared by a call that passes.
/// Memory is bounded: at most `max_entries` keys; when full, expired keys go first, then the
/// least recently failed one.
///
/// Replicas behind a load balancer share the counts through `repair_budget_options::shared`
/// (`sql_repair_counts`, component sqlite, on SQLite or PostgreSQL): a caller's failure on one
/// replica counts on every other, so the budget does not restart per replica. The pipeline then
/// uses the asynchronous members (`count_failure`, `count_of`, `clear`): one round trip each,
/// only on a call that failed validation or passed it, never on a read that has no contract. When
/// the shared counts fail, the count of this process stands in (a database outage neither
/// blocks a call nor invents a limit).

#include <candor/store/database.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace candor::validation {

/// Failure counts that several processes share (a database). Each call is one statement; the
/// times are wall-clock milliseconds, so that every replica reads a count's window alike.
class shared_repair_counts {
public:
    using wall_time = std::chrono::system_clock::time_point;
    virtual ~shared_repair_counts() = default;
    /// Count one failure of `key` at `now`; a count whose last failure is `window` or longer ago
    /// starts again at one. @return the count, this failure included
    virtual boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> add_failure(
        std::string key, wall_time now, std::chrono::seconds window) = 0;
    /// The failures counted for `key` within the window at `now`.
    virtual boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> failures(
        std::string key, wall_time now, std::chrono::seconds window) = 0;
    /// Forget `key`'s failures. @return the failures it had within the window at `now`
    virtual boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> clear(
        std::string key, wall_time now, std::chrono::seconds window) = 0;
};

struct repair_budget_options {
    /// Repair rounds allowed after a failed attempt; the failure after them is answered
    /// `REPAIR_LIMIT_EXCEEDED`.
    std::size_t max_repairs = 1;
    /// A key's failures are forgotten this long after its last failure.
    std::chrono::seconds window{600};
    /// At most this many keys are remembered.
    std::size_t max_entries = 10'000;
    /// Defaults to `steady_clock::now` (tests inject their own).
    std::function<std::chrono::steady_clock::time_point()> clock{};
    /// Counts shared with other processes; none: this process's own.
    std::shared_ptr<shared_repair_counts> shared{};
    /// The wall clock for `shared` (defaults to `system_clock::now`).
    std::function<shared_repair_counts::wall_time()> wall_clock{};
};

/// Thread-safe; the lock is held only inside each member function, never across a tool call.
class repair_budget {
public:
    explicit repair_budget(repair_budget_options opts = {});

    /// Failed attempts counted for `key` within the window (0 when none).
    /// @complexity O(1) on average
    std::size_t failures(std::string_view key) const;

    /// Count one failed attempt. @return the failures counted for `key`, this one included
    std::size_t record_failure(std::string_view key);

    /// A call passed: forget the key's failures.
    void record_success(std::string_view key);

    /// Repair attempts left after `failures` failed attempts (0 once the limit is reached).
    std::size_t remaining_after(std::size_t failures) const noexcept;

    /// True when `failures` failed attempts exceed the budget.
    bool exceeded(std::size_t failures) const noexcept { return failures > opts_.max_repairs; }

    /// `record_failure` on the shared counts when there are, else in this process.
    boost::asio::awaitable<std::size_t> count_failure(std::string key);
    /// `failures` on the shared counts when there are, else in this process.
    boost::asio::awaitable<std::size_t> count_of(std::string key);
    /// `record_success` on the shared counts when there are, else in this process.
    /// @return the failures the key had
    boost::asio::awaitable<std::size_t> clear(std::string key);
    /// Whether the counts are shared with other processes.
    bool shared() const noexcept { return opts_.shared != nullptr; }

    /// Keys remembered now (for tests and metrics).
    std::size_t size() const;

    const repair_budget_options& options() const noexcept { return opts_; }

    /// The key of one caller of one tool (see the file comment).
    static std::string key(std::string_view tool, std::string_view session_id, std::string_view principal_id);

private:
    struct entry {
        std::size_t failures = 0;
        std::chrono::steady_clock::time_point last{};
        std::list<std::string>::iterator order;
    };
    std::chrono::steady_clock::time_point now() const;
    shared_repair_counts::wall_time wall_now() const;
    bool expired(const entry& e, std::chrono::steady_clock::time_point t) const noexcept;
    void evict_for_insert(std::chrono::steady_clock::time_point t);

    repair_budget_options opts_;
    mutable std::mutex mutex_;
    // Keys in the order of their last failure (front: oldest).
    std::list<std::string> order_;
    std::unordered_map<std::string, entry> entries_;
};

}  // namespace candor::validation
