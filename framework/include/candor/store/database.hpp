// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The narrow SQL interface that a server's durable state and its SQL tools write through: run
/// one parameterized statement and stream its rows, run a few statements in one transaction.
/// SQLite is the embedded default (`open_sqlite`); PostgreSQL is the shared one (`open_postgres`,
/// postgres.hpp, component `postgres`). Callers write `?` placeholders and double-quoted
/// identifiers, and SQL that both engines run alike: `ON CONFLICT … DO NOTHING`, `IS DISTINCT
/// FROM`, `TRUE`/`FALSE` as conditions, the column types `BIGINT`, `DOUBLE PRECISION` and
/// `TEXT` (booleans as 0/1 in a `BIGINT`). Where no portable form exists (trigger bodies, a text
/// column's collation, advisory locks), a generator asks `dialect()`.
///
/// Users: `tools/sql_collection` (tables as collection tools), the SQL plan ledger
/// (`state::sql_plan_ledger`: single-use approvals in the same transaction as the action
/// they approve), the examples.
///
/// Values only ever travel as bound parameters (`sql_value`); SQL text comes from the caller's
/// own generator, never from input.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace candor::store {

/// One bound value or column value.
using sql_value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using sql_row = std::vector<sql_value>;

/// A database failure (for the server log; callers see `SOURCE_UNAVAILABLE`).
struct db_error {
    std::string message{};
};
[[noreturn]] void throw_exception_from_error(const db_error& e, const boost::source_location& loc);

/// The SQL an implementation speaks, for the few statements that have no portable form.
enum class sql_dialect { sqlite, postgres };

/// Why a read in a held view failed.
struct view_error {
    enum class kind {
        gone,    ///< the view ended (too old, its holder closed or gone with its process, never opened here)
        limit,   ///< `open` only: as many views are held as allowed
        failed,  ///< the database failed
    } what = kind::failed;
    std::string message{};
};

/// The bounds of held read views (`sql_database::read_views`).
struct read_view_options {
    /// Views held open at once by this process, at most.
    std::size_t max_held = 32;
    /// A view ends this long after it was opened (below PostgreSQL's
    /// `idle_in_transaction_session_timeout`, when that is set).
    std::chrono::seconds max_age{600};
    /// The clock a view's age is measured with; defaults to `steady_clock::now` (tests move it).
    std::function<std::chrono::steady_clock::time_point()> clock{};
};

/// Read views held open across calls: every statement run in one reads the database as it was
/// when the view was opened, whatever other programs write meanwhile — how a walk over a table
/// Candor does not own stays one snapshot. Each view keeps a read transaction open, which costs
/// the database (PostgreSQL: vacuum cannot remove row versions the view might see; SQLite: a
/// WAL checkpoint cannot pass it), so views are bounded in number and age and end on their own.
///
/// PostgreSQL: `open` exports the snapshot of a REPEATABLE READ transaction kept open on a
/// connection of its own (with `idle_in_transaction_session_timeout` set to the maximum age, so
/// the server ends it even if this process does not); `query` imports it on any pooled
/// connection (`SET TRANSACTION SNAPSHOT`), so a view opened on one replica is read on any other
/// replica of the same database while its holder lives. SQLite (WAL): a read transaction on a
/// connection of its own, read by this process only. Calls block like the database's own: run
/// them on a `offload::worker`.
class read_views {
public:
    virtual ~read_views() = default;
    /// Open a view of the database as it is now. @return its id (opaque text; seal it)
    virtual boost::system::result<std::string, view_error> open() = 0;
    /// Run `sql` in view `id`; call `on_row` per row until it returns false.
    virtual boost::system::result<void, view_error> query(std::string_view id, std::string_view sql,
                                                          std::span<const sql_value> params,
                                                          const std::function<bool(const sql_row&)>& on_row) = 0;
    /// End view `id` now: once this returns, no statement reads it any more (nothing when it is
    /// not held here).
    virtual void close(std::string_view id) = 0;
    /// Views held open by this process now (ended ones are counted until the next call notices).
    virtual std::size_t held() const = 0;
};

class sql_database {
public:
    virtual ~sql_database() = default;

    /// Which engine runs the statements (a transaction's object answers as its database).
    virtual sql_dialect dialect() const noexcept = 0;

    /// Run `sql` with `params` bound in order; call `on_row` per row until it returns false.
    virtual boost::system::result<void, db_error> query(std::string_view sql, std::span<const sql_value> params,
                                                        const std::function<bool(const sql_row&)>& on_row) = 0;

    /// Run a statement that returns no rows. @return the number of rows changed
    virtual boost::system::result<std::int64_t, db_error> execute(std::string_view sql,
                                                                  std::span<const sql_value> params) = 0;

    /// Run `work` inside one write transaction (committed when `work` succeeds, rolled back
    /// otherwise). No other statement of this object runs meanwhile. Called again from inside
    /// `work` (on the object `work` received), it nests: the inner work is rolled back alone
    /// when it fails (a savepoint), and nothing is committed before the outermost work ends.
    virtual boost::system::result<void, db_error> transaction(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) = 0;

    /// Held read views of this database under `options` (see `read_views`), or null when it
    /// has none (an in-memory SQLite database, a wrapper that does not pass them on).
    virtual std::shared_ptr<read_views> open_read_views(const read_view_options& options);
};

/// Inside a transaction on `tx`: on PostgreSQL, take the transaction's advisory lock `key`, so
/// that replicas that create or seed the same tables at start take turns (two concurrent
/// `CREATE TABLE IF NOT EXISTS` of one name fail there, on pg_type's unique index); on SQLite,
/// nothing (its writers take turns already). The lock ends with the transaction.
/// @param key any fixed 64-bit number, the same on every replica, one per kind of setup
boost::system::result<void, db_error> lock_for_setup(sql_database& tx, std::int64_t key);

/// The columns of `table`, in order (PostgreSQL: in the current schema): none when there is no
/// such table. For start-up work that brings an older table up to date.
boost::system::result<std::vector<std::string>, db_error> column_names(sql_database& db, std::string_view table);

/// Run `statements` (fixed DDL, each `IF NOT EXISTS`) in one transaction under
/// `lock_for_setup(key)`: how a store creates its tables at start, safely when replicas start
/// together.
boost::system::result<void, db_error> create_schema(sql_database& db, std::int64_t key,
                                                    std::span<const std::string_view> statements);

}  // namespace candor::store
