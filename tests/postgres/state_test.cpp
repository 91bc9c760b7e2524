// SPDX-License-Identifier: BSL-1.0
// The framework's shared state on PostgreSQL, as replicas use it: each "replica" here is one
// `state::open_url` of the same database (its own pool, its own I/O thread).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/offload/worker.hpp>
#include <candor/state/open_url.hpp>

#include "postgres/test_support.hpp"

#include <candor/state/sql_evidence_store.hpp>
#include <candor/state/sql_plan_ledger.hpp>
#include <candor/state/sql_repair_counts.hpp>

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace {

namespace asio = boost::asio;
namespace ev = candor::evidence;
namespace st = candor::store;
namespace cv = candor::validation;
using namespace std::chrono_literals;

candor::state::opened_database replica() {
    auto o = candor_test::pool_options();
    o.connect_timeout = 2000ms;
    o.statement_timeout = 2000ms;
    auto r = candor::state::open_url(candor_test::server().url(), o);
    if (!r) throw std::runtime_error("open_url: " + r.error().message);
    return std::move(*r);
}

// Run a coroutine on a fresh io_context of the test's thread (the stores' work runs on their
// workers, never here).
template <class T>
T run(asio::awaitable<T> a) {
    asio::io_context io;
    return candor_test::run(io, std::move(a));
}

std::vector<std::string> v(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

}  // namespace

TEST(PostgresState, ReplicasStartingTogetherMigrateOnce) {
    std::vector<std::future<candor::state::opened_database>> starting;
    for (int i = 0; i < 4; ++i) starting.push_back(std::async(std::launch::async, replica));
    std::vector<candor::state::opened_database> replicas;
    for (auto& f : starting) ASSERT_NO_THROW(replicas.push_back(f.get()));
    int steps = -1;
    ASSERT_TRUE(replicas[0].db->query("SELECT count(*) FROM candor_schema_migrations WHERE component = 'candor_state'",
                                      {}, [&](const st::sql_row& row) {
                                          steps = static_cast<int>(std::get<std::int64_t>(row.at(0)));
                                          return false;
                                      }));
    EXPECT_EQ(steps, 1);
}

TEST(PostgresState, AWalkRecordedOnTwoReplicasIsEvidenceOnAThird) {
    auto a = replica(), b = replica(), c = replica();
    auto worker = std::make_shared<candor::offload::worker>();
    auto on_a = candor::state::open_sql_store(a.db, worker).value();
    auto on_b = candor::state::open_sql_store(b.db, worker).value();
    auto on_c = candor::state::open_sql_store(c.db, worker).value();
    const auto t0 = candor::seal::wall_time(std::chrono::hours(500'000));
    on_a->record("walk-1", v({"t1", "t2"}), t0 + 1h);
    on_b->record("walk-1", v({"t3"}), t0 + 1h);
    on_b->close("walk-1", t0 + 5min);
    EXPECT_EQ(on_c->uncovered("walk-1", v({"t1", "t2", "t3"}), t0).value(), std::vector<std::string>{});
    EXPECT_EQ(on_c->uncovered("walk-1", v({"t1", "t4"}), t0).value(), v({"t4"}));
    on_a->record("walk-1", v({"t4"}), t0 + 1h);  // a closed walk's set never grows
    EXPECT_EQ(on_c->uncovered("walk-1", v({"t4"}), t0).value(), v({"t4"}));
    on_c->purge(t0 + 6min);
    EXPECT_FALSE(on_a->uncovered("walk-1", v({"t1"}), t0));
}

// A page's evidence is one statement on PostgreSQL: the same meaning as record, then close.
TEST(PostgresState, APageOfEvidenceIsRecordThenCloseInOneStatement) {
    auto a = replica(), b = replica();
    auto worker = std::make_shared<candor::offload::worker>();
    auto on_a = candor::state::open_sql_store(a.db, worker).value();
    auto on_b = candor::state::open_sql_store(b.db, worker).value();
    const auto t0 = candor::seal::wall_time(std::chrono::hours(500'000));
    on_a->record_page("walk-2", v({"t1", "t2"}), t0 + 1h, std::nullopt);
    EXPECT_FALSE(on_b->uncovered("walk-2", v({"t1"}), t0));  // still open
    on_b->record_page("walk-2", v({"t3"}), t0 + 1h, t0 + 5min);
    EXPECT_EQ(on_a->uncovered("walk-2", v({"t1", "t2", "t3", "t9"}), t0).value(), v({"t9"}));
    on_a->record_page("walk-2", v({"t4"}), t0 + 1h, t0 + 10min);  // the last page again
    EXPECT_EQ(on_b->uncovered("walk-2", v({"t3", "t4"}), t0 + 7min).value(), v({"t4"}));
    on_a->record_page("walk-3", {}, t0 + 1h, t0 + 5min);  // one empty page
    EXPECT_EQ(on_b->uncovered("walk-3", v({"t1"}), t0).value(), v({"t1"}));
    on_a->record_page("walk-4", v({"t1"}), t0 + 30min, std::nullopt);
    on_b->record_page("walk-4", v({"t2"}), t0 + 15min, std::nullopt);  // never shortens the walk's time
    on_a->purge(t0 + 20min);
    on_b->record_page("walk-4", {}, t0 + 1h, t0 + 1h);
    EXPECT_EQ(on_a->uncovered("walk-4", v({"t1", "t2"}), t0).value(), std::vector<std::string>{});
}

TEST(PostgresState, APlanTokenRunsOnceAcrossReplicas) {
    auto a = replica(), b = replica();
    auto worker = std::make_shared<candor::offload::worker>();
    auto on_a = candor::state::sql_plan_ledger::open(a.db, worker).value();
    auto on_b = candor::state::sql_plan_ledger::open(b.db, worker).value();
    const auto now = std::chrono::system_clock::now();
    const cv::plan_use use{"nonce-across-replicas", now + 10min};
    EXPECT_EQ(run(on_a->consume(use, now)).value(), cv::plan_verdict::fresh);
    EXPECT_EQ(run(on_b->consume(use, now)).value(), cv::plan_verdict::used);
    EXPECT_EQ(run(on_a->consume(use, now)).value(), cv::plan_verdict::used);
}

TEST(PostgresState, OnlyOneOfManyConcurrentUsesOfAPlanIsFresh) {
    auto a = replica(), b = replica();
    auto worker_a = std::make_shared<candor::offload::worker>(4);
    auto worker_b = std::make_shared<candor::offload::worker>(4);
    auto ledgers = std::vector{candor::state::sql_plan_ledger::open(a.db, worker_a).value(),
                               candor::state::sql_plan_ledger::open(b.db, worker_b).value()};
    const auto now = std::chrono::system_clock::now();
    const cv::plan_use use{"nonce-raced", now + 10min};
    std::vector<std::future<cv::plan_verdict>> racing;
    for (int i = 0; i < 8; ++i) {
        auto ledger = ledgers[static_cast<std::size_t>(i % 2)];
        racing.push_back(
            std::async(std::launch::async, [ledger, use, now] { return run(ledger->consume(use, now)).value(); }));
    }
    int fresh = 0;
    for (auto& f : racing) fresh += f.get() == cv::plan_verdict::fresh ? 1 : 0;
    EXPECT_EQ(fresh, 1);
}

TEST(PostgresState, RepairCountsAddUpAcrossReplicasWithinTheWindow) {
    auto a = replica(), b = replica();
    auto worker = std::make_shared<candor::offload::worker>();
    auto on_a = candor::state::sql_repair_counts::open(a.db, worker).value();
    auto on_b = candor::state::sql_repair_counts::open(b.db, worker).value();
    const auto t0 = std::chrono::system_clock::now();
    const std::string key = "create_order\np:alice-" + std::to_string(t0.time_since_epoch().count());
    EXPECT_EQ(run(on_a->add_failure(key, t0, 600s)).value(), 1u);
    EXPECT_EQ(run(on_b->add_failure(key, t0 + 1s, 600s)).value(), 2u);
    EXPECT_EQ(run(on_a->failures(key, t0 + 2s, 600s)).value(), 2u);
    // Past the window the count starts again.
    EXPECT_EQ(run(on_b->failures(key, t0 + 700s, 600s)).value(), 0u);
    EXPECT_EQ(run(on_b->add_failure(key, t0 + 700s, 600s)).value(), 1u);
    // A call that passes clears it on every replica, and says what it had.
    EXPECT_EQ(run(on_a->clear(key, t0 + 701s, 600s)).value(), 1u);
    EXPECT_EQ(run(on_b->failures(key, t0 + 702s, 600s)).value(), 0u);
}

TEST(PostgresState, AStoppedDatabaseIsAFailureNeverAHang) {
    auto a = replica();
    auto worker = std::make_shared<candor::offload::worker>();
    auto store = candor::state::open_sql_store(a.db, worker).value();
    auto counts = candor::state::sql_repair_counts::open(a.db, worker).value();
    candor_test::server().stop();
    const auto started = std::chrono::steady_clock::now();
    auto lookup = [store] { return store->uncovered("w", v({"a"}), candor::seal::wall_time{}); };
    EXPECT_FALSE(run(ev::call_store(*store, std::move(lookup))));
    EXPECT_FALSE(run(counts->add_failure("k", std::chrono::system_clock::now(), 600s)));
    candor_test::server().start();
    // Bounded by the pool's connect and statement timeouts (2 s each here), not a hang.
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
    // Back: the same stores work again, with nothing lost.
    const auto t0 = candor::seal::wall_time(std::chrono::hours(500'000));
    store->record("after-restart", v({"x"}), t0 + 1h);
    store->close("after-restart", t0 + 5min);
    EXPECT_EQ(store->uncovered("after-restart", v({"x"}), t0).value(), std::vector<std::string>{});
}

TEST(PostgresState, RedactedUrlHidesThePassword) {
    EXPECT_EQ(candor::state::redacted_url("postgres://candor:s3cret@db.internal:5432/state"),
              "postgres://candor:***@db.internal:5432/state");
    EXPECT_EQ(candor::state::redacted_url("postgresql://candor@/state?host=/run/postgresql"),
              "postgresql://candor@/state?host=/run/postgresql");
    EXPECT_TRUE(candor::state::is_postgres_url("postgresql://x"));
    EXPECT_FALSE(candor::state::is_postgres_url("/var/lib/candor/state.db"));
}
