// SPDX-License-Identifier: BSL-1.0
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/postgres/sql_database.hpp>
#include <candor/state/open_url.hpp>

#include "postgres/test_support.hpp"

#include <candor/offload/worker.hpp>

#include <gtest/gtest.h>

namespace {

namespace asio = boost::asio;
namespace pg = candor::postgres;
namespace st = candor::store;
using void_result = boost::system::result<void, st::db_error>;

using candor_test::io_thread;

std::string keys(st::sql_database& db, const std::string& table) {
    std::string out;
    EXPECT_TRUE(db.query("SELECT k FROM " + table + " ORDER BY k", {}, [&](const st::sql_row& row) {
        out += std::get<std::string>(row[0]);
        return true;
    }));
    return out;
}

TEST(PostgresStore, NumbersPlaceholdersOutsideQuotes) {
    EXPECT_EQ(candor::postgres::numbered_placeholders("SELECT '?', \"a?\" FROM t WHERE a = ? AND b = ?"),
              "SELECT '?', \"a?\" FROM t WHERE a = $1 AND b = $2");
    EXPECT_EQ(candor::postgres::numbered_placeholders("SELECT 'it''s ?' WHERE x = ?"), "SELECT 'it''s ?' WHERE x = $1");
}

TEST(PostgresStore, RunsTheStoreInterfaceWithQuestionMarkPlaceholders) {
    io_thread t;
    auto db = candor::postgres::open_sql_database(
        std::make_shared<pg::pool>(t.io.get_executor(), candor_test::pool_options()));
    ASSERT_TRUE(db->execute("CREATE TABLE store_kv(k text PRIMARY KEY, n int8)", {}));
    const st::sql_value a[] = {std::string("a?"), std::int64_t{1}};
    const st::sql_value b[] = {std::string("b"), std::int64_t{2}};
    EXPECT_EQ(db->execute("INSERT INTO store_kv VALUES (?, ?)", a).value(), 1);
    EXPECT_EQ(db->execute("INSERT INTO store_kv VALUES (?, ?)", b).value(), 1);
    EXPECT_EQ(db->execute("UPDATE store_kv SET n = n + 1", {}).value(), 2);
    std::int64_t sum = 0;
    ASSERT_TRUE(db->query("SELECT n FROM store_kv", {}, [&](const st::sql_row& row) {
        sum += std::get<std::int64_t>(row[0]);
        return true;
    }));
    EXPECT_EQ(sum, 5);
    EXPECT_EQ(keys(*db, "store_kv"), "a?b");
}

TEST(PostgresStore, TransactionsCommitRollBackAndNestAsSavepoints) {
    io_thread t;
    auto db = candor::postgres::open_sql_database(
        std::make_shared<pg::pool>(t.io.get_executor(), candor_test::pool_options()));
    ASSERT_TRUE(db->execute("CREATE TABLE store_tx(k text PRIMARY KEY)", {}));
    auto insert = [](st::sql_database& d, std::string k) -> void_result {
        const st::sql_value p[] = {std::move(k)};
        auto r = d.execute("INSERT INTO store_tx VALUES (?)", p);
        if (!r) return r.error();
        return {};
    };
    EXPECT_TRUE(db->transaction([&](st::sql_database& tx) -> void_result {
        if (auto r = insert(tx, "a"); !r) return r;
        // The inner work fails: its row goes, the outer transaction goes on.
        EXPECT_FALSE(tx.transaction([&](st::sql_database& inner) -> void_result {
            if (auto r = insert(inner, "x"); !r) return r;
            return st::db_error{"refused"};
        }));
        return insert(tx, "b");
    }));
    EXPECT_FALSE(db->transaction([&](st::sql_database& tx) -> void_result {
        if (auto r = insert(tx, "c"); !r) return r;
        return insert(tx, "a");  // duplicate key: the whole transaction goes
    }));
    EXPECT_EQ(keys(*db, "store_tx"), "ab");
}

TEST(PostgresStore, RunsFromAWorkerAndRefusesOnThePoolsOwnThread) {
    io_thread t;
    auto pool = std::make_shared<pg::pool>(t.io.get_executor(), candor_test::pool_options());
    auto db = candor::postgres::open_sql_database(pool);
    // From an offload::worker, awaited by a coroutine on the pool's I/O thread: the usual way.
    candor::offload::worker w;
    auto on_worker = asio::co_spawn(
        t.io,
        [&]() -> asio::awaitable<bool> {
            auto r = co_await w.run([&] { return db->execute("SELECT 1", {}); });
            co_return bool(r);
        },
        asio::use_future);
    EXPECT_TRUE(on_worker.get());
    // On the pool's own thread it would wait for itself: refused, never a hang.
    auto on_io = asio::co_spawn(
        t.io, [&]() -> asio::awaitable<bool> { co_return bool(db->execute("SELECT 1", {})); }, asio::use_future);
    EXPECT_FALSE(on_io.get());
}

}  // namespace
