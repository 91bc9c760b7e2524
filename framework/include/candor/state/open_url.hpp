// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A server's durable state named by a URL (`--state`, `CANDOR_STATE_URL`): a PostgreSQL
/// database that replicas share, or a SQLite file, opened with the framework's state tables
/// migrated.

#include <candor/postgres/migrations.hpp>
#include <candor/postgres/pool.hpp>
#include <candor/store/database.hpp>

#include <boost/system/result.hpp>

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace candor::state {

/// A database named by a URL, and what keeps it open.
struct opened_database {
    std::shared_ptr<store::sql_database> db{};
    /// PostgreSQL only (else null): the pool, for its round-trip counter and sizes.
    std::shared_ptr<postgres::pool> pool{};
    /// The URL without a password, for the server log.
    std::string description{};
};

/// Whether `url` names a PostgreSQL database (`postgres://…` or `postgresql://…`).
bool is_postgres_url(std::string_view url) noexcept;

/// `url` without the password of its user part (`postgres://user:***@host/db`).
std::string redacted_url(std::string_view url);

/// The framework's state on PostgreSQL as numbered steps (component `candor_state` of
/// `postgres::migrate`), literal SQL: a released step never changes, and a later schema is a new
/// step. tests/postgres checks that a database the previous release left migrates to what a new
/// one gets.
std::span<const postgres::migration> migrations() noexcept;

/// Open `url`. A PostgreSQL URL gets a pool (`options`, with `conninfo` set to the URL) driven
/// by an I/O thread of its own, and the framework's state tables (evidence, plan ledger, repair
/// counts) are created by the versioned migrations of component `candor_state` under their
/// advisory lock (`postgres::migrate`), so that replicas starting together never race. Anything
/// else is a SQLite file path (created if missing; each store creates its own tables).
/// Call it at startup, on a thread that is not the pool's (it waits for the database, at most
/// `options.connect_timeout` plus `options.statement_timeout`).
/// @return the database, or why it could not be opened (unreachable, refused, migration failed)
boost::system::result<opened_database, store::db_error> open_url(const std::string& url,
                                                                 postgres::pool_options options = {});

}  // namespace candor::state
