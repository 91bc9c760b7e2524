// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/validated_tool.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/sqlite/sql_database.hpp>
#include <candor/store/database.hpp>

#include <candor/offload/worker.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

namespace {

namespace st = candor::store;
using void_result = boost::system::result<void, st::db_error>;

std::shared_ptr<st::sql_database> memory_db() {
    auto db = candor::sqlite::open_sql_database(":memory:").value();
    EXPECT_TRUE(db->execute("CREATE TABLE t(k TEXT PRIMARY KEY)", {}));
    return db;
}

std::string keys(st::sql_database& db) {
    std::string out;
    EXPECT_TRUE(db.query("SELECT k FROM t ORDER BY k", {}, [&](const st::sql_row& row) {
        out += std::get<std::string>(row[0]);
        return true;
    }));
    return out;
}

void_result insert(st::sql_database& db, std::string k) {
    const st::sql_value p[] = {std::move(k)};
    auto r = db.execute("INSERT INTO t(k) VALUES(?)", p);
    if (!r) return r.error();
    return {};
}

}  // namespace

TEST(SqlDatabase, ANestedTransactionThatFailsIsUndoneAloneAndTheOuterCommits) {
    auto db = memory_db();
    auto r = db->transaction([](st::sql_database& tx) -> void_result {
        EXPECT_TRUE(insert(tx, "a"));
        auto inner = tx.transaction([](st::sql_database& tx2) -> void_result {
            EXPECT_TRUE(insert(tx2, "b"));
            return st::db_error{"no"};
        });
        EXPECT_FALSE(inner);
        EXPECT_TRUE(tx.transaction([](st::sql_database& tx2) { return insert(tx2, "c"); }));
        return {};
    });
    ASSERT_TRUE(r);
    EXPECT_EQ(keys(*db), "ac");
}

TEST(SqlDatabase, AnOuterRollbackUndoesTheNestedWorkToo) {
    auto db = memory_db();
    auto r = db->transaction([](st::sql_database& tx) -> void_result {
        EXPECT_TRUE(tx.transaction([](st::sql_database& tx2) { return insert(tx2, "a"); }));
        return st::db_error{"no"};
    });
    EXPECT_FALSE(r);
    EXPECT_EQ(keys(*db), "");
    // The connection is usable again after both kinds of rollback.
    EXPECT_TRUE(db->transaction([](st::sql_database& tx) { return insert(tx, "z"); }));
    EXPECT_EQ(keys(*db), "z");
}

TEST(SqlDatabase, AnExceptionInsideANestedTransactionRollsEverythingBack) {
    auto db = memory_db();
    EXPECT_THROW((void)db->transaction([](st::sql_database& tx) -> void_result {
        EXPECT_TRUE(insert(tx, "a"));
        return tx.transaction([](st::sql_database& tx2) -> void_result {
            EXPECT_TRUE(insert(tx2, "b"));
            throw std::runtime_error("bug");
        });
    }),
                 std::runtime_error);
    EXPECT_EQ(keys(*db), "");
    EXPECT_TRUE(db->transaction([](st::sql_database& tx) { return insert(tx, "z"); }));
    EXPECT_EQ(keys(*db), "z");
}

TEST(StoreWorker, RunsTheWorkOnItsOwnThreadAndResumesTheCallerOnItsExecutor) {
    candor::offload::worker w;
    boost::asio::io_context io;
    const auto caller = std::this_thread::get_id();
    std::thread::id worked_on;
    std::thread::id resumed_on;
    auto done = boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<int> {
            const int v = co_await w.run([&] {
                worked_on = std::this_thread::get_id();
                return 42;
            });
            resumed_on = std::this_thread::get_id();
            co_return v;
        },
        boost::asio::use_future);
    io.run();
    EXPECT_EQ(done.get(), 42);
    EXPECT_NE(worked_on, caller);
    EXPECT_EQ(resumed_on, caller);
}

TEST(StoreWorker, AnExceptionOfTheWorkReachesTheCaller) {
    candor::offload::worker w;
    boost::asio::io_context io;
    auto done = boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            co_await w.run([]() -> int { throw std::runtime_error("disk on fire"); });
        },
        boost::asio::use_future);
    io.run();
    EXPECT_THROW(done.get(), std::runtime_error);
}
