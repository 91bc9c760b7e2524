// SPDX-License-Identifier: BSL-1.0
// The collection tests (collection_test.cpp) on SQLite; postgres/ runs them on PostgreSQL too.
#include "sql_collection/support.hpp"

using candor::test::sql::SqlCollection;

INSTANTIATE_TEST_SUITE_P(Sqlite, SqlCollection, testing::Values(candor::test::sql::sqlite_kind()),
                         candor::test::sql::backend_name);
