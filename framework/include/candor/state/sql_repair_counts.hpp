// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Repair counts in a SQL database (`store::sql_database`; component sqlite), shared by every
/// process on it: SQLite for the processes of one host, PostgreSQL for replicas.
///
/// One table, created if missing:
/// `candor_repair_counts(repair_key TEXT PRIMARY KEY, failures BIGINT, last_ms BIGINT)`. Each
/// call is one statement (an upsert or a delete with `RETURNING`, which SQLite 3.35+ and
/// PostgreSQL both run), run on the worker and waited for cancellably, so that a slow database
/// never holds an I/O thread and a call's deadline still wins. Rows whose window has passed are
/// deleted now and then by a failure's call.
///
/// @code
/// auto counts = state::sql_repair_counts::open(db, worker).value();
/// validation_options o;
/// o.repairs = std::make_shared<validation::repair_budget>(validation::repair_budget_options{.shared = counts});
/// @endcode

#include <candor/offload/worker.hpp>
#include <candor/store/database.hpp>
#include <candor/validation/repair_budget.hpp>

#include <atomic>
#include <memory>
#include <span>
#include <string_view>

namespace candor::state {

class sql_repair_counts final : public validation::shared_repair_counts {
public:
    /// The table, as statements that SQLite and PostgreSQL both run (`IF NOT EXISTS`).
    static std::span<const std::string_view> schema() noexcept;

    /// Create the table if it is missing (on the calling thread: call it at startup).
    /// @param worker the threads that run the statements (never an I/O thread)
    static boost::system::result<std::shared_ptr<sql_repair_counts>, store::db_error> open(
        std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker);

    boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> add_failure(
        std::string key, wall_time now, std::chrono::seconds window) override;
    boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> failures(
        std::string key, wall_time now, std::chrono::seconds window) override;
    boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> clear(
        std::string key, wall_time now, std::chrono::seconds window) override;

private:
    sql_repair_counts(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker)
        : db_(std::move(db)), worker_(std::move(worker)) {}

    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<offload::worker> worker_;
    std::atomic<std::int64_t> last_purge_ms_{0};
};

}  // namespace candor::state
