// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The store interface (`store::sql_database`, database.hpp) on PostgreSQL, through a
/// `postgres::pool` (component `postgres`): what a server's SQL state and SQL tools already
/// write through runs on a database that several replicas share. (`state::open_url` opens one
/// from a URL, with the framework's state migrated.)
///
/// `sql_database` is synchronous: each call here waits until the pool's I/O threads have run the
/// statement (or its deadline, `pool_options::statement_timeout`, has passed and the statement
/// was cancelled on the server). Call it from an `offload::worker` thread, as the users of
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
/// MVCC isolates them), so an `offload::worker` with a few threads serves a pool better than one.

#include <candor/postgres/pool.hpp>
#include <candor/store/database.hpp>

namespace candor::postgres {

/// @param pool a pool whose executor other threads run (never the caller's)
/// @return the database
std::shared_ptr<store::sql_database> open_sql_database(std::shared_ptr<pool> pool);

/// `?` placeholders as `$1`, `$2`, …, outside quoted strings and identifiers.
std::string numbered_placeholders(std::string_view sql);

/// A driver failure as the store interface reports it (the SQLSTATE, then the message).
store::db_error to_db_error(const error& e);

}  // namespace candor::postgres
