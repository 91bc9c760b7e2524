// SPDX-License-Identifier: BSL-1.0
#include <candor/evidence/store.hpp>

#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_evidence_store.hpp>
#include <candor/state/sqlite_evidence_store.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <unistd.h>

namespace ev = candor::evidence;

namespace {

using factory = std::function<std::shared_ptr<ev::evidence_store>()>;

struct named_factory {
    const char* name;
    factory make;
};

class Store : public ::testing::TestWithParam<named_factory> {
protected:
    std::shared_ptr<ev::evidence_store> s = GetParam().make();
    candor::seal::wall_time t0 = candor::seal::wall_time(std::chrono::hours(500'000));
};

std::vector<std::string> v(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

}  // namespace

TEST_P(Store, ClosedWalkCoversExactlyTheRecordedIds) {
    s->record("w1", v({"a", "b"}), t0 + std::chrono::hours(1));
    s->record("w1", v({"c", "a"}), t0 + std::chrono::hours(1));
    s->close("w1", t0 + std::chrono::minutes(5));
    EXPECT_EQ(s->uncovered("w1", v({"a", "b", "c"}), t0).value(), std::vector<std::string>{});
    EXPECT_EQ(s->uncovered("w1", v({"a", "x", "c", "y"}), t0).value(), v({"x", "y"}));
}

TEST_P(Store, OpenUnknownOrExpiredWalksCoverNothing) {
    s->record("open", v({"a"}), t0 + std::chrono::hours(1));
    EXPECT_FALSE(s->uncovered("open", v({"a"}), t0));
    EXPECT_FALSE(s->uncovered("unknown", v({"a"}), t0));
    s->record("w", v({"a"}), t0 + std::chrono::hours(1));
    s->close("w", t0 + std::chrono::minutes(5));
    EXPECT_TRUE(s->uncovered("w", v({"a"}), t0 + std::chrono::minutes(4)));
    EXPECT_FALSE(s->uncovered("w", v({"a"}), t0 + std::chrono::minutes(5)));
}

TEST_P(Store, AClosedSetNeverGrows) {
    s->record("w", v({"a"}), t0 + std::chrono::hours(1));
    s->close("w", t0 + std::chrono::minutes(5));
    s->record("w", v({"b"}), t0 + std::chrono::hours(1));
    EXPECT_EQ(s->uncovered("w", v({"a", "b"}), t0).value(), v({"b"}));
}

TEST_P(Store, WalksAreSeparate) {
    s->record("w1", v({"a"}), t0 + std::chrono::hours(1));
    s->record("w2", v({"b"}), t0 + std::chrono::hours(1));
    s->close("w1", t0 + std::chrono::minutes(5));
    s->close("w2", t0 + std::chrono::minutes(5));
    EXPECT_EQ(s->uncovered("w1", v({"b"}), t0).value(), v({"b"}));
}

TEST_P(Store, AbandonedOpenWalksArePurgedOnceTheyCanNoLongerContinue) {
    s->record("abandoned", v({"a"}), t0 + std::chrono::minutes(15));
    s->record("going", v({"a"}), t0 + std::chrono::minutes(15));
    s->record("going", v({"b"}), t0 + std::chrono::minutes(30));  // a later page extends it
    s->purge(t0 + std::chrono::minutes(20));
    s->close("going", t0 + std::chrono::hours(1));
    s->close("abandoned", t0 + std::chrono::hours(1));
    // The abandoned walk's ids are gone: closing it now covers nothing it delivered before.
    EXPECT_EQ(s->uncovered("abandoned", v({"a"}), t0).value(), v({"a"}));
    EXPECT_EQ(s->uncovered("going", v({"a", "b"}), t0).value(), std::vector<std::string>{});
}

TEST_P(Store, PurgeDropsExpiredWalksOnly) {
    s->record("old", v({"a"}), t0 + std::chrono::hours(1));
    s->close("old", t0);
    s->record("new", v({"a"}), t0 + std::chrono::hours(1));
    s->close("new", t0 + std::chrono::hours(1));
    s->purge(t0 + std::chrono::minutes(1));
    EXPECT_FALSE(s->uncovered("old", v({"a"}), t0 - std::chrono::hours(1)));
    EXPECT_TRUE(s->uncovered("new", v({"a"}), t0));
}

TEST_P(Store, APageRecordsItsIdsAndTheLastPageClosesTheWalk) {
    s->record_page("w", v({"a", "b"}), t0 + std::chrono::hours(1), std::nullopt);
    EXPECT_FALSE(s->uncovered("w", v({"a"}), t0));  // still open
    s->record_page("w", v({"c"}), t0 + std::chrono::hours(1), t0 + std::chrono::minutes(5));
    EXPECT_EQ(s->uncovered("w", v({"a", "b", "c", "x"}), t0).value(), v({"x"}));
    // The last page again (the same cursor twice): its ids only, and the walk's time renewed.
    s->record_page("w", v({"d"}), t0 + std::chrono::hours(1), t0 + std::chrono::minutes(10));
    EXPECT_EQ(s->uncovered("w", v({"c", "d"}), t0 + std::chrono::minutes(7)).value(), v({"d"}));
    // A walk of one page, and one of one empty page.
    s->record_page("one", v({"a"}), t0 + std::chrono::hours(1), t0 + std::chrono::minutes(5));
    EXPECT_EQ(s->uncovered("one", v({"a", "b"}), t0).value(), v({"b"}));
    s->record_page("none", {}, t0 + std::chrono::hours(1), t0 + std::chrono::minutes(5));
    EXPECT_EQ(s->uncovered("none", v({"a"}), t0).value(), v({"a"}));
    // A later page pushes an open walk's time out; an earlier time never shortens it.
    s->record_page("long", v({"a"}), t0 + std::chrono::minutes(30), std::nullopt);
    s->record_page("long", v({"b"}), t0 + std::chrono::minutes(15), std::nullopt);
    s->purge(t0 + std::chrono::minutes(20));
    s->record_page("long", {}, t0 + std::chrono::hours(1), t0 + std::chrono::hours(1));
    EXPECT_EQ(s->uncovered("long", v({"a", "b"}), t0).value(), std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Implementations, Store,
    ::testing::Values(named_factory{"memory", [] { return ev::make_memory_store(); }},
                      named_factory{"sqlite", [] { return candor::state::open_sqlite_store(":memory:").value(); }},
                      named_factory{"sql_on_sqlite",
                                    [] {
                                        return candor::state::open_sql_store(
                                                   candor::sqlite::open_sql_database(":memory:").value(),
                                                   std::make_shared<candor::offload::worker>())
                                            .value();
                                    }}),
    [](const ::testing::TestParamInfo<named_factory>& p) { return std::string(p.param.name); });

TEST(SqliteStore, EvidenceSurvivesReopeningTheDatabaseFile) {
    const std::string path = ::testing::TempDir() + "candor_evidence_" + std::to_string(::getpid()) + ".db";
    std::remove(path.c_str());
    const auto t0 = candor::seal::wall_time(std::chrono::hours(500'000));
    {
        auto s = candor::state::open_sqlite_store(path).value();
        s->record("w", v({"a", "b"}), t0 + std::chrono::hours(1));
        s->close("w", t0 + std::chrono::minutes(5));
    }
    auto s = candor::state::open_sqlite_store(path).value();
    EXPECT_EQ(s->uncovered("w", v({"a", "b", "c"}), t0).value(), v({"c"}));
    std::remove(path.c_str());
}

TEST(SqliteStore, UnopenablePathIsAnError) {
    auto r = candor::state::open_sqlite_store("/nonexistent-dir/for/sure/evidence.db");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), candor::state::store_error::open_failed);
}
