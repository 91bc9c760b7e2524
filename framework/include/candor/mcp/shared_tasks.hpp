// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Tasks that reach across replicas: the table the replicas of one deployment share
/// (`task_options::shared`; `state::sql_task_table` on SQLite or PostgreSQL).
///
/// The replica that runs a task stays its authority: it publishes the task's record (what
/// `tasks/get` shows) whenever the record changes, and holds a lease on it that it renews while
/// the tool runs. Any other replica answers `tasks/get` from the table; `tasks/cancel` and
/// `tasks/update` there change the table, and the running replica reads those changes when it
/// next renews its leases (`task_options::shared_poll_interval`) and hands them to the tool. A
/// task whose lease has run out — its replica died or lost the database — is `failed` with
/// `TASK_LOST` for whoever reads it next, and the replica, if it still runs, stops its tool.

#include <candor/mcp/task_store.hpp>
#include <candor/store/database.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace candor::mcp {

/// A task as the replicas share it.
struct shared_task {
    task_record record{};
    /// The replica that runs (or ran) it: `task_options`' holder id of that server.
    std::string holder{};
    /// Until when the holder's lease holds; a task not terminal past it is lost.
    std::chrono::system_clock::time_point lease_until{};
};

/// What a replica running tasks learns when it renews its leases: one of its tasks was ended
/// elsewhere (cancelled, or declared lost), or got answers to its requests to the client.
struct task_mail {
    std::string id{};
    /// The task's status in the table (terminal when it was ended elsewhere).
    task_status status = task_status::working;
    /// `tasks/update` answers made on other replicas, by request key.
    boost::json::object answers{};
};

/// The tasks alive in the table (not ended, their lease holding): what the limits on tasks
/// count across replicas.
struct live_tasks {
    std::size_t total = 0;
    /// Those of the owner asked about.
    std::size_t of_owner = 0;
};

/// The shared task table. Every operation but `publish` runs on the implementation's worker and
/// is awaited; none blocks the caller's thread.
class shared_task_table {
public:
    using time_point = std::chrono::system_clock::time_point;
    virtual ~shared_task_table() = default;

    /// Record `r` as its holder sees it now, leased until `lease_until`. Queued, never awaited:
    /// `version` grows with each publication of one holder, so a later write is never undone by
    /// an earlier one that lands after it, and a task that is terminal in the table (cancelled
    /// or declared lost elsewhere) is never changed by its holder again.
    virtual void publish(task_record r, std::uint64_t version, std::string holder, time_point lease_until) = 0;
    /// `publish`, awaited: a new task is in the table before its id reaches the client, and a
    /// task's end is checked against an end another replica gave it first.
    /// @return true when written; false when the table kept what it had (a later version, or
    ///         a task already terminal there)
    virtual boost::asio::awaitable<boost::system::result<bool, store::db_error>> publish_now(
        task_record r, std::uint64_t version, std::string holder, time_point lease_until) = 0;

    /// Task `id`, unless unknown or expired at `now`.
    virtual boost::asio::awaitable<boost::system::result<std::optional<shared_task>, store::db_error>> find(
        std::string id, time_point now) = 0;

    /// Change task `id` (compare and set: `change` may run more than once, on the worker's
    /// thread, so it only edits what it is given). `answers` are added to the task's mail for its
    /// holder. `change` returns false to leave the task as it is.
    /// @return the task after the change (or as it was), or none if unknown or expired at `now`
    virtual boost::asio::awaitable<boost::system::result<std::optional<shared_task>, store::db_error>> modify(
        std::string id, time_point now, std::function<bool(shared_task&)> change, boost::json::object answers) = 0;

    /// Renew the leases of `holder`'s tasks that are not terminal until `lease_until`, drop the
    /// tasks expired at `now`, and take the mail of `holder`'s tasks (each piece is delivered once).
    virtual boost::asio::awaitable<boost::system::result<std::vector<task_mail>, store::db_error>> renew(
        std::string holder, time_point lease_until, time_point now) = 0;
    /// The tasks alive at `now`, in all and of `owner`: what a replica counts against
    /// `task_options::max_tasks` and `max_tasks_per_principal` before a new task's tool runs.
    virtual boost::asio::awaitable<boost::system::result<live_tasks, store::db_error>> count_live(std::string owner,
                                                                                                  time_point now) = 0;
};

/// A task record as JSON (times in epoch milliseconds), and back: what a shared table stores.
boost::json::object record_to_json(const task_record& r);
/// @return none when `o` is not a record `record_to_json` wrote
std::optional<task_record> record_from_json(const boost::json::object& o);

}  // namespace candor::mcp
