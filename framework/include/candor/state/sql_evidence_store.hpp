// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The evidence store on any `store::sql_database` (component sqlite): SQLite for one host,
/// PostgreSQL (`state::open_url("postgres://…")`) for replicas that share it, so that a walk
/// whose pages came from different replicas is evidence on each of them.
///
/// Two tables, created if missing (portable SQL; on PostgreSQL `state::open_url` creates them
/// at start under the migrations' advisory lock, see `schema()`):
/// `candor_evidence_walk(walk, closed, expiry_ms)` and `candor_evidence_id(walk, id)`.
///
/// Round trips per call: `record` two statements (the walk's row, then all the page's ids in
/// one multi-row insert), `close` one, `uncovered` two (the walk, then the ids in one `IN`
/// list), `purge` two. The calls block on the database: a caller on an I/O thread runs them
/// on `worker()` (see `evidence::call_store`), never inline.
///
/// A database failure throws `evidence::store_failure` (the evidence interface is synchronous); callers
/// that go through `call_store` get it as a value.

#include <candor/evidence/store.hpp>
#include <candor/store/database.hpp>

#include <span>
#include <string_view>

namespace candor::state {

/// The store's tables, as statements that SQLite and PostgreSQL both run (`IF NOT EXISTS`).
std::span<const std::string_view> sql_store_schema() noexcept;

/// Open the store: create its tables if they are missing (on the calling thread).
/// @param worker where callers run the store's blocking calls (required)
/// @return the store, or the database's failure
boost::system::result<std::shared_ptr<evidence::evidence_store>, store::db_error> open_sql_store(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker);

}  // namespace candor::state
