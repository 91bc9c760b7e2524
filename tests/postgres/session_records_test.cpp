// SPDX-License-Identifier: BSL-1.0
// The HTTP transport's shared session records on PostgreSQL: the same rules as on SQLite
// (tests/store), and a table that replicas starting at once create without a fault.
#include <candor/state/sql_session_records.hpp>

#include "postgres/test_support.hpp"
#include "store/session_records_rules.hpp"

#include <candor/state/open_url.hpp>

#include <gtest/gtest.h>

#include <future>
#include <vector>

namespace {

namespace st = candor::store;

TEST(PostgresSessionRecords, ReplicasStartingAtOnceCreateTheTableOnce) {
    candor_test::io_thread t;
    // Each "replica" has a pool of its own (its own connections), as separate processes would.
    std::vector<std::future<bool>> opened;
    for (int i = 0; i < 4; ++i)
        opened.push_back(std::async(std::launch::async, [&t] {
            return bool(candor::state::sql_session_records::open(candor_test::open_database(t)));
        }));
    for (auto& f : opened) EXPECT_TRUE(f.get());
}

TEST(PostgresSessionRecords, FindsWhatWasPutUntilItExpires) {
    candor_test::io_thread t;
    auto records = candor::state::sql_session_records::open(candor_test::open_database(t)).value();
    candor::test::finds_until_expiry(*records);
    // Another replica (another pool) reads what this one wrote.
    auto other = candor::state::sql_session_records::open(candor_test::open_database(t)).value();
    EXPECT_TRUE(other->find("s1", candor::test::now_ms()).value());
}

TEST(PostgresSessionRecords, TouchIsThrottledAndNeverRevivesAnExpiredRecord) {
    candor_test::io_thread t;
    candor::test::throttles_touch(*candor::state::sql_session_records::open(candor_test::open_database(t)).value());
}

TEST(PostgresSessionRecords, RemoveAndPurgeTakeRecordsAway) {
    candor_test::io_thread t;
    candor::test::removes_and_purges(*candor::state::sql_session_records::open(candor_test::open_database(t)).value());
}

}  // namespace
