// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/postgres/pool.hpp>

#include "postgres/test_support.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

namespace {

namespace asio = boost::asio;
namespace pg = candor::postgres;
using namespace std::chrono_literals;
using candor_test::run;
using candor_test::server;
using pg::clock;

pg::pool_options options() { return candor_test::pool_options(); }

TEST(PostgresPool, BindsParametersAndReadsTypedColumns) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    // A hostile-looking string stays a value: it is bound, never spliced into the SQL.
    const std::string hostile = "x'); DROP TABLE bound_values; --";
    auto r = run(io, [&]() -> asio::awaitable<boost::system::result<pg::result_set, pg::error>> {
        auto c =
            co_await db.query("CREATE TABLE bound_values(id int8 PRIMARY KEY, name text, score float8, ok bool)", {});
        if (!c) co_return c.error();
        const std::vector<pg::value> row{std::int64_t{7}, hostile, 2.5, nullptr};
        auto i = co_await db.query("INSERT INTO bound_values VALUES ($1, $2, $3, $4)", row);
        if (!i) co_return i.error();
        EXPECT_EQ(i->affected, 1);
        co_return co_await db.query("SELECT id, name, score, ok, id > 5 AS big FROM bound_values", {});
    }());
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->rows.size(), 1u);
    EXPECT_EQ(r->columns, (std::vector<std::string>{"id", "name", "score", "ok", "big"}));
    const auto& row = r->rows[0];
    EXPECT_EQ(std::get<std::int64_t>(row[0]), 7);
    EXPECT_EQ(std::get<std::string>(row[1]), hostile);
    EXPECT_DOUBLE_EQ(std::get<double>(row[2]), 2.5);
    EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(row[3]));
    EXPECT_EQ(std::get<std::int64_t>(row[4]), 1);
}

TEST(PostgresPool, APreparedStatementCostsOneRoundTrip) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    const std::vector<pg::value> p{std::int64_t{41}};
    auto first = run(io, db.query("SELECT $1::int8 + 1", p));
    ASSERT_TRUE(first) << first.error().message;
    const auto after_first = db.round_trips();
    EXPECT_EQ(after_first, 2u);  // prepare, execute
    auto second = run(io, db.query("SELECT $1::int8 + 1", p));
    ASSERT_TRUE(second);
    EXPECT_EQ(std::get<std::int64_t>(second->rows[0][0]), 42);
    EXPECT_EQ(db.round_trips() - after_first, 1u);
}

TEST(PostgresPool, RejectedStatementIsAValueWithItsSqlstate) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    auto r = run(io, db.query("SELECT * FROM no_such_table", {}));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::rejected);
    EXPECT_EQ(r.error().sqlstate, "42P01");
    // The connection survives a statement's failure.
    auto ok = run(io, db.query("SELECT 1", {}));
    ASSERT_TRUE(ok);
    EXPECT_EQ(db.dropped(), 0u);
    EXPECT_EQ(db.size(), 1u);
}

TEST(PostgresPool, DeadlineCancelsTheQueryOnTheServer) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    const auto start = clock::now();
    auto r = run(io, db.query("SELECT pg_sleep(30) /* candor-cancel-probe */", {}, clock::now() + 300ms));
    const auto took = clock::now() - start;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::timed_out);
    EXPECT_EQ(pg::code_of(r.error()), "SOURCE_UNAVAILABLE");
    // Far below the statement's 30 s (a loaded CI machine needs room for PQcancel's own connection).
    EXPECT_LT(took, 300ms + db.options().cancel_grace + 5s);
    // The server stopped the query (not only the client gave up on it) ...
    auto active = run(io, db.query("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE "
                                   "'%candor-cancel-probe%' AND pid <> pg_backend_pid()",
                                   {}));
    ASSERT_TRUE(active) << active.error().message;
    EXPECT_EQ(std::get<std::int64_t>(active->rows[0][0]), 0);
    // ... and the same connection serves again.
    EXPECT_EQ(db.size(), 1u);
    EXPECT_EQ(db.dropped(), 0u);
}

TEST(PostgresPool, UnreachableServerIsUnavailableAtOnce) {
    asio::io_context io;
    pg::pool_options o;
    o.conninfo = "host=/nonexistent-candor-socket-dir port=5432 user=candor dbname=postgres";
    pg::pool db(io.get_executor(), o);
    auto r = run(io, db.query("SELECT 1", {}, clock::now() + 5s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::unavailable);
    EXPECT_EQ(db.size(), 0u);  // the failed attempt gave its place back
}

TEST(PostgresPool, SilentServerIsUnavailableByTheDeadlineNotAHang) {
    // A listener that accepts and never answers: the connection attempt must end at the deadline.
    asio::io_context io;
    asio::ip::tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});
    asio::ip::tcp::socket held(io);
    silent.async_accept(held, [](boost::system::error_code) {});
    pg::pool_options o;
    o.conninfo = "hostaddr=127.0.0.1 port=" + std::to_string(silent.local_endpoint().port()) +
                 " user=candor dbname=postgres sslmode=disable";
    pg::pool db(io.get_executor(), o);
    const auto start = clock::now();
    auto r = run(io, db.query("SELECT 1", {}, clock::now() + 300ms));
    const auto took = clock::now() - start;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::unavailable);
    EXPECT_GE(took, 250ms);
    EXPECT_LT(took, 4s);  // the call's deadline, not connect_timeout (5 s), ended the attempt
}

// The backend's pid of a pool's only connection.
std::int64_t pooled_backend_pid(asio::io_context& io, pg::pool& db) {
    auto pid = run(io, db.query("SELECT pg_backend_pid()", {}));
    EXPECT_TRUE(pid) << pid.error().message;
    return pid ? std::get<std::int64_t>(pid->rows[0][0]) : 0;
}

// Ends backend `pid` from `other` once the server shows it running the break probe. Polling the
// server's view is waiting on the event itself; the bound only keeps a broken server from
// hanging the test. (A function, not a lambda: a coroutine's parameters live in its frame.)
asio::awaitable<bool> terminate_once_running(pg::pool& other, std::int64_t pid) {
    const std::vector<pg::value> p{pid};
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (const auto give_up = clock::now() + 30s; clock::now() < give_up;) {
        auto running = co_await other.query(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1::int4 AND state = 'active' "
            "AND query LIKE '%candor-break-probe%'",
            p);
        if (!running) co_return false;
        if (std::get<std::int64_t>(running->rows[0][0]) == 1) {
            auto t = co_await other.query("SELECT pg_terminate_backend($1::int4, 10000)", p);
            const bool ended = t && std::get<std::int64_t>(t->rows[0][0]) == 1;
            co_return ended;
        }
        pause.expires_after(5ms);
        co_await pause.async_wait(asio::use_awaitable);
    }
    co_return false;
}

TEST(PostgresPool, ConnectionClosedWhileIdleIsReplacedWithoutAFailedCall) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    const auto pid = pooled_backend_pid(io, db);
    ASSERT_EQ(db.idle(), 1u);
    // Another client ends the idle connection's backend and waits until the process has exited
    // (pg_terminate_backend with a timeout returns true only then), so its socket is closed and
    // what the server last sent is already in our receive buffer: the pool can observe the close.
    pg::pool other(io.get_executor(), options());
    const std::vector<pg::value> p{pid};
    auto ended = run(io, other.query("SELECT pg_terminate_backend($1::int4, 10000)", p));
    ASSERT_TRUE(ended) << ended.error().message;
    ASSERT_EQ(std::get<std::int64_t>(ended->rows[0][0]), 1);
    // The next call succeeds on a new backend: the closed connection was found before use.
    auto fresh = run(io, db.query("SELECT pg_backend_pid()", {}));
    ASSERT_TRUE(fresh) << fresh.error().message;
    EXPECT_NE(std::get<std::int64_t>(fresh->rows[0][0]), pid);
    EXPECT_EQ(db.dropped(), 1u);
    EXPECT_EQ(db.size(), 1u);
}

TEST(PostgresPool, ConnectionBrokenDuringAStatementFailsThatCallAndIsReplaced) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    const auto pid = pooled_backend_pid(io, db);
    pg::pool other(io.get_executor(), options());
    // The statement runs on the pooled connection (the only idle one) ...
    auto sleeping = asio::co_spawn(io, db.query("SELECT pg_sleep(30) /* candor-break-probe */", {}, clock::now() + 60s),
                                   asio::use_future);
    // ... and is ended from another connection once the server shows it running.
    auto killer = asio::co_spawn(io, terminate_once_running(other, pid), asio::use_future);
    io.restart();
    io.run();
    ASSERT_TRUE(killer.get());
    // The call in flight fails as unavailable (never hangs, never reads as the statement's own
    // error) and its connection is dropped ...
    auto broken = sleeping.get();
    ASSERT_FALSE(broken);
    EXPECT_EQ(broken.error().what, pg::error::kind::unavailable);
    EXPECT_EQ(pg::code_of(broken.error()), "SOURCE_UNAVAILABLE");
    EXPECT_EQ(db.dropped(), 1u);
    EXPECT_EQ(db.size(), 0u);
    // ... and the next call gets a new backend.
    auto fresh = run(io, db.query("SELECT pg_backend_pid()", {}));
    ASSERT_TRUE(fresh) << fresh.error().message;
    EXPECT_NE(std::get<std::int64_t>(fresh->rows[0][0]), pid);
}

TEST(PostgresPool, ConnectionsAreBoundedAndCallsWaitForThem) {
    asio::io_context io;
    auto o = options();
    o.max_connections = 2;
    pg::pool db(io.get_executor(), o);
    std::vector<std::future<boost::system::result<pg::result_set, pg::error>>> calls;
    for (int i = 0; i < 5; ++i)
        calls.push_back(
            asio::co_spawn(io, db.query("SELECT pg_sleep(0.05)", {}, clock::now() + 10s), asio::use_future));
    std::size_t most = 0;
    while (io.run_one()) most = std::max(most, db.size());
    for (auto& c : calls) EXPECT_TRUE(c.get());
    EXPECT_EQ(most, 2u);
    EXPECT_EQ(db.idle(), 2u);
}

TEST(PostgresPool, TooManyWaitersAreRefusedAndWaitersTimeOut) {
    asio::io_context io;
    auto o = options();
    o.max_connections = 1;
    o.max_waiters = 1;
    pg::pool db(io.get_executor(), o);
    auto holder = asio::co_spawn(io, db.query("SELECT pg_sleep(0.5)", {}, clock::now() + 10s), asio::use_future);
    auto waiter = asio::co_spawn(io, db.query("SELECT 1", {}, clock::now() + 100ms), asio::use_future);
    auto refused = asio::co_spawn(io, db.query("SELECT 1", {}, clock::now() + 10s), asio::use_future);
    io.run();
    EXPECT_TRUE(holder.get());
    auto w = waiter.get();
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().what, pg::error::kind::busy);
    auto r = refused.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::busy);
}

TEST(PostgresPool, TransactionCommitsOnSuccessAndRollsBackOnFailure) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    ASSERT_TRUE(run(io, db.query("CREATE TABLE tx_rows(k text PRIMARY KEY)", {})));
    auto insert = [](std::string k, bool fail) {
        return [k, fail](pg::lease& tx) -> asio::awaitable<boost::system::result<void, pg::error>> {
            const std::vector<pg::value> p{k};
            auto r = co_await tx.query("INSERT INTO tx_rows VALUES ($1)", p, clock::now() + 5s);
            if (!r) co_return r.error();
            if (fail) co_return pg::error{pg::error::kind::rejected, {}, "the action refused"};
            boost::system::result<void, pg::error> inserted;
            co_return inserted;
        };
    };
    EXPECT_TRUE(run(io, db.transaction(insert("kept", false), clock::now() + 5s)));
    EXPECT_FALSE(run(io, db.transaction(insert("undone", true), clock::now() + 5s)));
    EXPECT_FALSE(run(io, db.transaction(insert("x", false), clock::now() + 5s, "NOT A LEVEL; DROP")));
    auto rows = run(io, db.query("SELECT k FROM tx_rows ORDER BY k", {}));
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(std::get<std::string>(rows->rows[0][0]), "kept");
    EXPECT_EQ(db.dropped(), 0u);
}

TEST(PostgresPool, ServerDownAnswersUnavailableAndRecovers) {
    asio::io_context io;
    pg::pool db(io.get_executor(), options());
    ASSERT_TRUE(run(io, db.query("SELECT 1", {})));
    server().stop();
    const auto start = clock::now();
    auto down = run(io, db.query("SELECT 1", {}, clock::now() + 2s));
    EXPECT_LT(clock::now() - start, 4s);
    server().start();
    ASSERT_FALSE(down);
    EXPECT_EQ(down.error().what, pg::error::kind::unavailable);
    auto back = run(io, db.query("SELECT 1", {}, clock::now() + 5s));
    EXPECT_TRUE(back) << back.error().message;
}

}  // namespace
