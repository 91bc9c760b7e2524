// SPDX-License-Identifier: BSL-1.0
// The HTTP transport's SSE event log on PostgreSQL: the same rules as on SQLite (tests/store),
// a table that replicas starting at once create without a fault, and a stream one replica
// writes that another reads.
#include <candor/state/sql_event_log.hpp>

#include "postgres/test_support.hpp"
#include "store/event_log_rules.hpp"

#include <candor/state/open_url.hpp>

#include <gtest/gtest.h>

#include <future>
#include <vector>

namespace {

namespace st = candor::store;

TEST(PostgresEventLog, ReplicasStartingAtOnceCreateTheTableOnce) {
    candor_test::io_thread t;
    std::vector<std::future<bool>> opened;
    for (int i = 0; i < 4; ++i)
        opened.push_back(std::async(std::launch::async, [&t] {
            return bool(candor::state::sql_event_log::open(candor_test::open_database(t)));
        }));
    for (auto& f : opened) EXPECT_TRUE(f.get());
}

TEST(PostgresEventLog, ReadsAStreamInOrderWithinItsSessionOnAnotherReplica) {
    candor_test::io_thread t;
    auto log = candor::state::sql_event_log::open(candor_test::open_database(t)).value();
    ASSERT_TRUE(log->purge(std::chrono::system_clock::now() + std::chrono::hours(24)));
    candor::test::reads_a_stream_in_order(*log);
    auto other = candor::state::sql_event_log::open(candor_test::open_database(t)).value();
    EXPECT_EQ(other->read("s1", "pA", 0, 100, std::chrono::system_clock::now()).value().size(), 5u);
}

TEST(PostgresEventLog, KeepsTheNewestEventsOfAStreamUntilTheyExpire) {
    candor_test::io_thread t;
    auto log = candor::state::sql_event_log::open(candor_test::open_database(t)).value();
    ASSERT_TRUE(log->purge(std::chrono::system_clock::now() + std::chrono::hours(24)));
    candor::test::bounds_and_expires(*log);
}

}  // namespace
