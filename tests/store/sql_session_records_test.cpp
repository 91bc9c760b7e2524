// SPDX-License-Identifier: BSL-1.0
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_session_records.hpp>

#include "store/session_records_rules.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace {

namespace st = candor::store;

std::shared_ptr<candor::state::sql_session_records> memory_records() {
    return candor::state::sql_session_records::open(candor::sqlite::open_sql_database(":memory:").value()).value();
}

TEST(SqlSessionRecords, FindsWhatWasPutUntilItExpires) { candor::test::finds_until_expiry(*memory_records()); }

TEST(SqlSessionRecords, TouchIsThrottledAndNeverRevivesAnExpiredRecord) {
    candor::test::throttles_touch(*memory_records());
}

TEST(SqlSessionRecords, RemoveAndPurgeTakeRecordsAway) { candor::test::removes_and_purges(*memory_records()); }

TEST(SqlSessionRecords, OpeningTwiceOnOneFileSharesTheRecords) {
    const auto path =
        std::filesystem::temp_directory_path() / ("candor_session_records_" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path);
    {
        auto a =
            candor::state::sql_session_records::open(candor::sqlite::open_sql_database(path.string()).value()).value();
        auto b =
            candor::state::sql_session_records::open(candor::sqlite::open_sql_database(path.string()).value()).value();
        const auto now = candor::test::now_ms();
        ASSERT_TRUE(a->put(candor::test::record("s1", "alice", now)));
        auto found = b->find("s1", now).value();
        ASSERT_TRUE(found);
        EXPECT_EQ(found->owner, "alice");
    }
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
