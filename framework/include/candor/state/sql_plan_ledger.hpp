// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The plan ledger in a SQL database (`store::sql_database`; component sqlite): executed plan
/// tokens survive restarts and are shared by every process on the same database, and an action
/// whose data lives in that database records the use in the same transaction as its writes
/// (`consume_with`).
///
/// One table, created if missing:
/// `candor_plan_use(nonce TEXT PRIMARY KEY, expiry BIGINT NOT NULL)` (expiry in Unix seconds,
/// indexed). A use deletes the expired rows, then inserts its nonce with
/// `INSERT … ON CONFLICT (nonce) DO NOTHING`: one changed row is `fresh`, none is `used`. The
/// statements are plain SQL that SQLite and PostgreSQL both run.

#include <candor/offload/worker.hpp>
#include <candor/store/database.hpp>
#include <candor/validation/plan_ledger.hpp>

#include <memory>
#include <span>
#include <string_view>

namespace candor::state {

struct sql_plan_ledger_options {
    /// Live (unexpired) uses kept at most; one more is refused with `validation::plan_verdict::full`.
    std::size_t max_entries = 100'000;
};

class sql_plan_ledger final : public validation::plan_ledger {
public:
    /// The table, as statements that SQLite and PostgreSQL both run (`IF NOT EXISTS`).
    static std::span<const std::string_view> schema() noexcept;

    /// Create the table if it is missing (on the calling thread: call it at startup), under
    /// `store::create_schema`'s lock, so that replicas starting together create it once.
    /// @param db the database (the action's own, so that `consume_with` is one transaction)
    /// @param worker the threads that run the ledger's statements (never an I/O thread)
    /// @return the ledger, or why its table could not be created
    static boost::system::result<std::shared_ptr<sql_plan_ledger>, store::db_error> open(
        std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker,
        sql_plan_ledger_options opts = {});

    boost::asio::awaitable<boost::system::result<validation::plan_verdict, store::db_error>> consume(
        const validation::plan_use& use, std::chrono::system_clock::time_point now) override;
    boost::asio::awaitable<boost::system::result<validation::plan_verdict, store::db_error>> consume_with(
        const validation::plan_use& use, std::chrono::system_clock::time_point now,
        validation::ledger_work work) override;
    std::shared_ptr<store::sql_database> database() const noexcept override { return db_; }
    boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> size() override;

    /// Record the use inside a transaction the caller already runs on `database()` (on a worker
    /// thread): committed and rolled back with it.
    /// @param tx the transaction's database (what `store::sql_database::transaction` passed its work)
    boost::system::result<validation::plan_verdict, store::db_error> record(
        store::sql_database& tx, const validation::plan_use& use, std::chrono::system_clock::time_point now) const;

private:
    sql_plan_ledger(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker,
                    sql_plan_ledger_options opts);

    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<offload::worker> worker_;
    sql_plan_ledger_options opts_;
};

}  // namespace candor::state
