// SPDX-License-Identifier: BSL-1.0
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_event_log.hpp>

#include "store/event_log_rules.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace {

namespace st = candor::store;

std::shared_ptr<candor::state::sql_event_log> memory_database_log() {
    return candor::state::sql_event_log::open(candor::sqlite::open_sql_database(":memory:").value()).value();
}

TEST(SqlEventLog, ReadsAStreamInOrderWithinItsSession) {
    candor::test::reads_a_stream_in_order(*memory_database_log());
}

TEST(SqlEventLog, KeepsTheNewestEventsOfAStreamUntilTheyExpire) {
    candor::test::bounds_and_expires(*memory_database_log());
}

TEST(SqlEventLog, OpeningTwiceOnOneFileSharesTheLog) {
    const auto path =
        std::filesystem::temp_directory_path() / ("candor_sql_event_log_" + std::to_string(::getpid()) + ".db");
    {
        auto a = candor::state::sql_event_log::open(candor::sqlite::open_sql_database(path.string()).value()).value();
        auto b = candor::state::sql_event_log::open(candor::sqlite::open_sql_database(path.string()).value()).value();
        const auto now = std::chrono::system_clock::now();
        ASSERT_TRUE(a->append(candor::test::event("s1", "pA", 1, now), 10));
        EXPECT_EQ(b->read("s1", "pA", 0, 10, now).value().size(), 1u);
    }
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

TEST(MemoryEventLog, ReadsAStreamInOrderWithinItsSession) {
    candor::transport::memory_event_log log;
    candor::test::reads_a_stream_in_order(log);
}

TEST(MemoryEventLog, KeepsTheNewestEventsOfAStreamUntilTheyExpire) {
    candor::transport::memory_event_log log;
    candor::test::bounds_and_expires(log);
}

}  // namespace
