// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
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

#include <atomic>
#include <chrono>
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

namespace {

// An executor that counts the copies of itself that still refer to its io_context (a moved-from
// copy does not), and that makes a thread other than the io_context's linger a little after it
// has handed a function over: the window in which that thread still holds the executor.
std::atomic<int> holders{0};
std::thread::id io_thread;

template <class Inner>
struct counted_executor {
    Inner inner;
    bool holds = true;

    explicit counted_executor(Inner i) noexcept : inner(std::move(i)) { ++holders; }
    counted_executor(const counted_executor& o) noexcept : inner(o.inner), holds(o.holds) {
        if (holds) ++holders;
    }
    counted_executor(counted_executor&& o) noexcept : inner(std::move(o.inner)), holds(o.holds) { o.holds = false; }
    counted_executor& operator=(const counted_executor&) = delete;
    ~counted_executor() {
        if (holds) --holders;
    }

    template <class Fn>
    void execute(Fn f) const {
        inner.execute(std::move(f));
        if (std::this_thread::get_id() != io_thread) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    template <class P>
    auto query(const P& p) const noexcept -> decltype(boost::asio::query(inner, p)) {
        return boost::asio::query(inner, p);
    }
    template <class P>
    auto require(const P& p) const -> counted_executor<std::decay_t<decltype(boost::asio::require(inner, p))>> {
        return counted_executor<std::decay_t<decltype(boost::asio::require(inner, p))>>(boost::asio::require(inner, p));
    }
    template <class P>
    auto prefer(const P& p) const -> counted_executor<std::decay_t<decltype(boost::asio::prefer(inner, p))>> {
        return counted_executor<std::decay_t<decltype(boost::asio::prefer(inner, p))>>(boost::asio::prefer(inner, p));
    }
    friend bool operator==(const counted_executor& a, const counted_executor& b) noexcept { return a.inner == b.inner; }
};

// Once the caller has resumed with the result, the worker's thread holds nothing of the caller's
// executor: the caller may end its io_context at once (a tool's connection does, when it closes).
template <class Await>
void expect_nothing_held_once_resumed(Await await) {
    candor::offload::worker w;
    boost::asio::io_context io;
    io_thread = std::this_thread::get_id();
    const boost::asio::any_io_executor ex{counted_executor<boost::asio::io_context::executor_type>(io.get_executor())};
    auto done = boost::asio::co_spawn(ex, await(w), boost::asio::use_future);
    io.run();
    EXPECT_EQ(done.get(), 42);
    EXPECT_EQ(holders.load(), 1);  // `ex` itself
}

}  // namespace

TEST(StoreWorker, NoWorkerThreadStillHoldsTheCallersExecutorWhenTheCallerResumes) {
    expect_nothing_held_once_resumed(
        [](candor::offload::worker& w) -> boost::asio::awaitable<int> { co_return co_await w.run([] { return 42; }); });
    expect_nothing_held_once_resumed([](candor::offload::worker& w) -> boost::asio::awaitable<int> {
        auto work = [] { return 42; };
        co_return co_await w.run_cancellable(std::move(work));
    });
}
