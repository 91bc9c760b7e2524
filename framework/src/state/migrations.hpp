// SPDX-License-Identifier: BSL-1.0
#pragma once
// The framework's state on PostgreSQL (`state::migrations`), as literal steps. A released step
// never changes, not even when a store's own `schema()` does: a later schema is a new step here.

#include <candor/postgres/migrations.hpp>

#include <array>

namespace candor::state::detail {

inline constexpr std::array<postgres::migration, 1> state_migrations = {{
    {1, "evidence, plan ledger, repair counts",
     "CREATE TABLE IF NOT EXISTS candor_evidence_walk("
     "walk TEXT PRIMARY KEY, closed BIGINT NOT NULL, expiry_ms BIGINT NOT NULL);\n"
     "CREATE TABLE IF NOT EXISTS candor_evidence_id(walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id));\n"
     "CREATE INDEX IF NOT EXISTS candor_evidence_walk_expiry ON candor_evidence_walk(expiry_ms);\n"
     "CREATE TABLE IF NOT EXISTS candor_plan_use (nonce TEXT PRIMARY KEY, expiry BIGINT NOT NULL);\n"
     "CREATE INDEX IF NOT EXISTS candor_plan_use_expiry ON candor_plan_use (expiry);\n"
     "CREATE TABLE IF NOT EXISTS candor_repair_counts("
     "repair_key TEXT PRIMARY KEY, failures BIGINT NOT NULL, last_ms BIGINT NOT NULL);\n"
     "CREATE INDEX IF NOT EXISTS candor_repair_counts_last ON candor_repair_counts(last_ms);\n"},
}};

}  // namespace candor::state::detail
