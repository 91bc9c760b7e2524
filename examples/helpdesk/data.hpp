// SPDX-License-Identifier: BSL-1.0
#pragma once
// The helpdesk's database: tables, deterministic seed data, principals' visibility.

#include <candor/mcp/call_context.hpp>
#include <candor/sql_collection/database.hpp>
#include <candor/sql_collection/table.hpp>

#include <boost/json/value.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace helpdesk {

namespace sc = candor::sql_collection;

const sc::table_spec& tickets_table();
const sc::table_spec& accounts_table();

/// The seeded description of ticket `n`: 200 B to 3 KB of text, the same for the same `n`.
std::string ticket_description(int n);

/// "2026-01-01" plus `days`, as YYYY-MM-DD.
std::string day_after_new_year(int days);

/// Inside a transaction of `tx`: make the helpdesk's other replicas wait until it ends before
/// they create or seed tables (PostgreSQL: an advisory lock; SQLite needs none, its write
/// transactions take turns already).
boost::system::result<void, sc::db_error> lock_for_setup(sc::sql_database& tx);

/// Create the tables and, on first run, seed them:
/// tickets 1..tickets (see README), service accounts 1..500, a knowledge base, a chat log.
/// The knowledge-base index is "refreshed" at seeding time (`helpdesk_meta.kb_refreshed_at`).
/// One transaction under `lock_for_setup`: replicas that start together against one empty
/// database seed it once.
boost::system::result<void, sc::db_error> open_and_seed(sc::sql_database& db, int tickets);

/// When the knowledge-base index was last refreshed.
boost::system::result<std::chrono::system_clock::time_point, sc::db_error> kb_refreshed_at(sc::sql_database& db);

/// The service accounts a principal may see: `admin` all, `team-x` the accounts of team-x,
/// anyone else (including an anonymous caller) none.
std::optional<boost::json::value> account_visibility(const candor::mcp::principal& p);

/// True if `p` may see an account of `team`.
bool may_see_team(const candor::mcp::principal& p, std::string_view team);

}  // namespace helpdesk
