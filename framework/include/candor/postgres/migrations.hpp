// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Versioned schema migrations: each component that keeps state in PostgreSQL lists its schema
/// as numbered steps, and every replica applies the missing ones at start. The table
/// `candor_schema_migrations (component, version, name, applied_at)` records what was applied.
/// All of one call runs in one transaction under an advisory lock
/// (`pg_advisory_xact_lock`), so replicas that start together apply each step exactly once and
/// a step that fails leaves the schema as it was (PostgreSQL's DDL is transactional).
///
/// @code
/// static constexpr postgres::migration steps[] = {
///     {1, "plans", "CREATE TABLE candor_plans(id text PRIMARY KEY, used_at timestamptz)"},
/// };
/// auto v = co_await postgres::migrate(db, "plan_ledger", steps, deadline);
/// @endcode

#include <candor/postgres/pool.hpp>

namespace candor::postgres {

/// One step of a component's schema.
struct migration {
    /// 1, 2, 3, …: strictly increasing within a component; a step once released never changes.
    int version{};
    /// What the step does, recorded beside its version.
    std::string_view name{};
    /// One or more statements (the simple query protocol); fixed text, never built from input.
    std::string_view sql{};
};

/// Apply the steps of `component` whose versions the database has not recorded, in order.
/// @return the component's schema version afterwards (a database migrated by a newer release
///         may be ahead of `steps`: its version is returned, nothing is applied), or the error
///         (`rejected` with sqlstate `22023` when the versions do not increase)
boost::asio::awaitable<boost::system::result<int, error>> migrate(pool& db, std::string_view component,
                                                                  std::span<const migration> steps,
                                                                  clock::time_point deadline);

}  // namespace candor::postgres
