// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The store interface (`store::sql_database`, database.hpp) on PostgreSQL, through a
/// `postgres::pool` (component `postgres`): what a server's SQL state and SQL tools already
/// write through runs on a database that several replicas share.
///
/// `sql_database` is synchronous: each call here waits until the pool's I/O threads have run the
/// statement (or its deadline, `pool_options::statement_timeout`, has passed and the statement
/// was cancelled on the server). Call it from a `store::worker` thread, as the users of
/// `sql_database` do; called on a thread that runs the pool's own executor, it refuses at once
/// (it would wait for itself).
///
/// Dialect (`dialect()` is `sql_dialect::postgres`): callers write `?` placeholders (as for
/// SQLite); they become `$1`, `$2`, … here (a `?` inside a quoted string or identifier stays;
/// dollar quotes are not recognised, so a function body written here holds no `?`). Values
/// travel as text and take the type their place in the statement gives them (`CAST(? AS
/// BIGINT)` where nothing does); text cannot hold a NUL character (such a parameter is refused).
/// Booleans of the portable schema are 0/1 `BIGINT`s; a `boolean` result column reads as 0/1.
///
/// Outside a transaction each statement runs on any of the pool's connections; `transaction`
/// holds one connection for its work (a plain BEGIN: the server's default isolation, normally
/// READ COMMITTED), and a nested `transaction` is a savepoint. Unlike SQLite's single
/// connection, statements of other callers run meanwhile on other connections (PostgreSQL's
/// MVCC isolates them), so a `store::worker` with a few threads serves a pool better than one.

#include <candor/postgres/pool.hpp>
#include <candor/store/database.hpp>

namespace candor::store {

/// @param pool a pool whose executor other threads run (never the caller's)
/// @return the database
std::shared_ptr<sql_database> open_postgres(std::shared_ptr<postgres::pool> pool);

/// `?` placeholders as `$1`, `$2`, …, outside quoted strings and identifiers.
std::string numbered_placeholders(std::string_view sql);

/// A database named by a URL (`--state`, `CANDOR_STATE_URL`), and what keeps it open.
struct opened_database {
    std::shared_ptr<sql_database> db;
    /// PostgreSQL only (else null): the pool, for its round-trip counter and sizes.
    std::shared_ptr<postgres::pool> pool;
    /// The URL without a password, for the server log.
    std::string description;
};

/// Whether `url` names a PostgreSQL database (`postgres://…` or `postgresql://…`).
bool is_postgres_url(std::string_view url) noexcept;

/// `url` without the password of its user part (`postgres://user:***@host/db`).
std::string redacted_url(std::string_view url);

/// Open `url`. A PostgreSQL URL gets a pool (`options`, with `conninfo` set to the URL) driven
/// by an I/O thread of its own, and the framework's state tables (evidence, plan ledger, repair
/// counts) are created by the versioned migrations of component `candor_state` under their
/// advisory lock (`postgres::migrate`), so that replicas starting together never race. Anything
/// else is a SQLite file path (created if missing; each store creates its own tables).
/// Call it at startup, on a thread that is not the pool's (it waits for the database, at most
/// `options.connect_timeout` plus `options.statement_timeout`).
/// @return the database, or why it could not be opened (unreachable, refused, migration failed)
boost::system::result<opened_database, db_error> open_url(const std::string& url, postgres::pool_options options = {});

}  // namespace candor::store
