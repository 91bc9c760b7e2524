// SPDX-License-Identifier: BSL-1.0
// The plan ledger: single use, bounded, forgotten at expiry; the SQL ledger across connections
// and restarts, and in one transaction with the action it approves.
//
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/validation/plan_ledger.hpp>

#include <candor/state/sql_plan_ledger.hpp>
#include <candor/validation/approval_gate.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

namespace cv = candor::validation;
namespace st = candor::store;
using clock_type = std::chrono::system_clock;
using cv::plan_verdict;

const auto t0 = clock_type::time_point(std::chrono::seconds(1'000'000));
constexpr std::chrono::seconds s10{10};

// Run one awaitable to its end on a private io_context.
template <class T>
T await(boost::asio::awaitable<T> a) {
    boost::asio::io_context io;
    auto f = boost::asio::co_spawn(io, std::move(a), boost::asio::use_future);
    io.run();
    return f.get();
}

struct temp_db {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("candor-ledger-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ".db");
    ~temp_db() {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix, ec);
    }
    std::shared_ptr<st::sql_database> open() const { return candor::sqlite::open_sql_database(path.string()).value(); }
};

std::shared_ptr<candor::state::sql_plan_ledger> sql_ledger(std::shared_ptr<st::sql_database> db,
                                                           std::size_t max = 100'000) {
    return candor::state::sql_plan_ledger::open(std::move(db), std::make_shared<candor::offload::worker>(),
                                                {.max_entries = max})
        .value();
}

plan_verdict consume(cv::plan_ledger& l, std::string nonce, clock_type::time_point expiry, clock_type::time_point now) {
    return await(l.consume(cv::plan_use{std::move(nonce), expiry}, now)).value();
}

// The same behaviour from every ledger: single use, bounded, forgotten at expiry.
void check_single_use(cv::plan_ledger& l) {
    EXPECT_EQ(consume(l, "a", t0 + s10, t0), plan_verdict::fresh);
    EXPECT_EQ(consume(l, "a", t0 + s10, t0), plan_verdict::used);
    EXPECT_EQ(consume(l, "b", t0 + 2 * s10, t0), plan_verdict::fresh);
    EXPECT_EQ(consume(l, "c", t0 + 2 * s10, t0), plan_verdict::full);
    EXPECT_EQ(consume(l, "b", t0 + 2 * s10, t0), plan_verdict::used);         // used, even when full
    EXPECT_EQ(consume(l, "c", t0 + 2 * s10, t0 + s10), plan_verdict::fresh);  // "a" expired and made room
    EXPECT_EQ(await(l.size()).value(), 2u);
}

TEST(PlanLedger, MemoryRemembersUntilExpiryAndStaysBounded) {
    cv::memory_plan_ledger l(2);
    check_single_use(l);
    EXPECT_EQ(l.database(), nullptr);
    EXPECT_FALSE(await(l.consume_with({"d", t0 + s10}, t0,
                                      [](st::sql_database&) { return boost::system::result<void, st::db_error>{}; })));
}

TEST(PlanLedger, SqlRemembersUntilExpiryAndStaysBounded) {
    temp_db f;
    auto l = sql_ledger(f.open(), 2);
    check_single_use(*l);
}

TEST(PlanLedger, SqlRemembersAcrossConnectionsAndRestarts) {
    temp_db f;
    EXPECT_EQ(consume(*sql_ledger(f.open()), "n1", t0 + s10, t0), plan_verdict::fresh);
    // Another process (another connection) on the same file, after the first is gone.
    EXPECT_EQ(consume(*sql_ledger(f.open()), "n1", t0 + s10, t0), plan_verdict::used);
}

TEST(PlanLedger, SqlUseIsSingleAmongConcurrentConnections) {
    temp_db f;
    (void)sql_ledger(f.open());
    constexpr int n = 8;
    std::atomic<int> fresh{0};
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&] {
            auto v = await(sql_ledger(f.open())->consume({"same", t0 + s10}, t0));
            if (!v) ++failed;
            else if (*v == plan_verdict::fresh) ++fresh;
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(fresh.load(), 1);
}

boost::system::result<void, st::db_error> add_row(st::sql_database& tx, std::int64_t v) {
    const st::sql_value p[] = {v};
    auto r = tx.execute("INSERT INTO acted (v) VALUES (?)", p);
    if (!r) return r.error();
    return {};
}

std::int64_t rows(st::sql_database& db) {
    std::int64_t n = -1;
    (void)db.query("SELECT count(*) FROM acted", {}, [&](const st::sql_row& r) {
        n = std::get<std::int64_t>(r.at(0));
        return false;
    });
    return n;
}

TEST(PlanLedger, SqlUseAndTheActionCommitTogetherOrNotAtAll) {
    temp_db f;
    auto db = f.open();
    ASSERT_TRUE(db->execute("CREATE TABLE acted (v INTEGER)", {}));
    auto l = sql_ledger(db);
    EXPECT_EQ(l->database(), db);

    // The action fails half-way: neither its first write nor the use stays.
    auto failed = await(l->consume_with({"n", t0 + s10}, t0, [](st::sql_database& tx) {
        if (auto r = add_row(tx, 1); !r) return r;
        return boost::system::result<void, st::db_error>(st::db_error{"disk on fire"});
    }));
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().message, "disk on fire");
    EXPECT_EQ(rows(*db), 0);
    EXPECT_EQ(await(l->size()).value(), 0u);

    // It succeeds: both are there.
    EXPECT_EQ(await(l->consume_with({"n", t0 + s10}, t0, [](st::sql_database& tx) { return add_row(tx, 2); })).value(),
              plan_verdict::fresh);
    EXPECT_EQ(rows(*db), 1);

    // A replay never runs the action.
    bool ran = false;
    EXPECT_EQ(await(l->consume_with({"n", t0 + s10}, t0,
                                    [&](st::sql_database& tx) {
                                        ran = true;
                                        return add_row(tx, 3);
                                    }))
                  .value(),
              plan_verdict::used);
    EXPECT_FALSE(ran);
    EXPECT_EQ(rows(*db), 1);
}

TEST(PlanLedger, TheGateRecordsTheUseWithTheActionOrBeforeIt) {
    temp_db f;
    auto db = f.open();
    ASSERT_TRUE(db->execute("CREATE TABLE acted (v INTEGER)", {}));
    candor::offload::worker w;
    auto failing = [](st::sql_database& tx) {
        if (auto r = add_row(tx, 1); !r) return r;
        return boost::system::result<void, st::db_error>(st::db_error{"no"});
    };
    cv::approval_outcome approved;
    approved.use = cv::plan_use{"n", clock_type::now() + std::chrono::hours(1)};

    // Ledger on the action's database: a failed action leaves the token unused.
    {
        cv::approval_gate gate("t", {.plan_ledger = sql_ledger(db)});
        auto r = await(gate.run_approved(approved, db, w, failing));
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().at(0).code, "SOURCE_UNAVAILABLE");
        EXPECT_TRUE(await(gate.run_approved(approved, db, w, [](st::sql_database& tx) { return add_row(tx, 2); })));
        auto replay = await(gate.run_approved(approved, db, w, [](st::sql_database& tx) { return add_row(tx, 3); }));
        ASSERT_FALSE(replay);
        EXPECT_EQ(replay.error().at(0).code, "PLAN_TOKEN_USED");
        EXPECT_EQ(rows(*db), 1);
    }
    // Ledger elsewhere (memory): the use is recorded first, so a failed action used it up.
    {
        cv::approval_gate gate("t");
        auto r = await(gate.run_approved(approved, db, w, failing));
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().at(0).code, "SOURCE_UNAVAILABLE");
        auto replay = await(gate.run_approved(approved, db, w, [](st::sql_database& tx) { return add_row(tx, 4); }));
        ASSERT_FALSE(replay);
        EXPECT_EQ(replay.error().at(0).code, "PLAN_TOKEN_USED");
        EXPECT_EQ(rows(*db), 1);
    }
    // An outcome that carries no use (built by hand): the transaction alone.
    cv::approval_gate gate("t");
    EXPECT_TRUE(
        await(gate.run_approved(cv::approval_outcome{}, db, w, [](st::sql_database& tx) { return add_row(tx, 5); })));
    EXPECT_EQ(rows(*db), 2);
}

}  // namespace
