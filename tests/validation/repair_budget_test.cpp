// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/repair_budget.hpp>

#include <candor/validation/metrics.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

namespace cv = candor::validation;

struct budget_fixture : ::testing::Test {
    std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
    cv::repair_budget make(std::size_t max_entries = 100, std::size_t max_repairs = 1) {
        cv::repair_budget_options o;
        o.max_entries = max_entries;
        o.max_repairs = max_repairs;
        o.window = std::chrono::seconds(60);
        o.clock = [this] { return now; };
        return cv::repair_budget(o);
    }
};

TEST_F(budget_fixture, CountsFailuresUntilASuccess) {
    auto b = make();
    EXPECT_EQ(b.failures("k"), 0u);
    EXPECT_EQ(b.record_failure("k"), 1u);
    EXPECT_FALSE(b.exceeded(1));
    EXPECT_EQ(b.remaining_after(1), 1u);
    EXPECT_EQ(b.record_failure("k"), 2u);
    EXPECT_TRUE(b.exceeded(2));
    EXPECT_EQ(b.remaining_after(2), 0u);
    b.record_success("k");
    EXPECT_EQ(b.failures("k"), 0u);
    EXPECT_EQ(b.size(), 0u);
}

TEST_F(budget_fixture, FailuresExpireAfterTheWindow) {
    auto b = make();
    b.record_failure("k");
    now += std::chrono::seconds(59);
    EXPECT_EQ(b.failures("k"), 1u);
    EXPECT_EQ(b.record_failure("k"), 2u);  // the window slides with the last failure
    now += std::chrono::seconds(60);
    EXPECT_EQ(b.failures("k"), 0u);
    EXPECT_EQ(b.record_failure("k"), 1u);
}

TEST_F(budget_fixture, MemoryIsBounded) {
    auto b = make(3);
    for (int i = 0; i < 10; ++i) b.record_failure("k" + std::to_string(i));
    EXPECT_EQ(b.size(), 3u);
    // The least recently failed keys went first.
    EXPECT_EQ(b.failures("k0"), 0u);
    EXPECT_EQ(b.failures("k9"), 1u);
    EXPECT_EQ(b.failures("k7"), 1u);
}

TEST_F(budget_fixture, ExpiredKeysAreDroppedBeforeLiveOnes) {
    auto b = make(3);
    b.record_failure("old");
    now += std::chrono::seconds(30);
    b.record_failure("a");
    b.record_failure("b");
    now += std::chrono::seconds(31);  // "old" expired, "a" and "b" live
    b.record_failure("c");
    EXPECT_EQ(b.size(), 3u);
    EXPECT_EQ(b.failures("a"), 1u);
    EXPECT_EQ(b.failures("b"), 1u);
}

TEST_F(budget_fixture, HigherBudgets) {
    auto b = make(100, 3);
    EXPECT_EQ(b.remaining_after(1), 3u);
    EXPECT_EQ(b.remaining_after(3), 1u);
    EXPECT_EQ(b.remaining_after(4), 0u);
    EXPECT_FALSE(b.exceeded(3));
    EXPECT_TRUE(b.exceeded(4));
    auto zero = make(100, 0);
    EXPECT_TRUE(zero.exceeded(1));
    EXPECT_EQ(zero.remaining_after(1), 0u);
}

TEST(RepairBudget, KeysPreferTheSession) {
    EXPECT_EQ(cv::repair_budget::key("t", "s1", "alice"), cv::repair_budget::key("t", "s1", "bob"));
    EXPECT_NE(cv::repair_budget::key("t", "s1", "alice"), cv::repair_budget::key("t", "s2", "alice"));
    EXPECT_NE(cv::repair_budget::key("t", "", "alice"), cv::repair_budget::key("t", "", "bob"));
    EXPECT_NE(cv::repair_budget::key("t", "", "alice"), cv::repair_budget::key("u", "", "alice"));
    EXPECT_NE(cv::repair_budget::key("t", "x", ""), cv::repair_budget::key("t", "", "x"));
}

TEST(ValidationMetrics, ClientCardinalityIsBounded) {
    cv::metrics m(2);
    cv::call_observation o;
    o.valid = true;
    m.record("t", "a", o);
    m.record("t", "b", o);
    m.record("t", "c", o);
    m.record("t", "d", o);
    m.record("t", std::string(200, 'x'), o);
    auto s = m.snapshot();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(m.of("t", "(other)").calls, 3u);
    EXPECT_EQ(m.of("t", "a").first_pass_valid, 1u);
}

TEST(ValidationMetrics, RatesAreZeroWithoutCalls) {
    cv::counters c;
    EXPECT_EQ(c.first_pass_validity_rate(), 0.0);
    EXPECT_EQ(c.repair_success_rate(), 0.0);
    EXPECT_EQ(c.backend_fix_share(), 0.0);
    c.fixed_by_backend = 1;
    c.issues_by_code["X"] = 3;
    EXPECT_DOUBLE_EQ(c.backend_fix_share(), 0.25);
}

// A database that is down: every call fails.
struct failing_counts : cv::shared_repair_counts {
    using count = boost::system::result<std::size_t, candor::store::db_error>;
    int calls = 0;
    boost::asio::awaitable<count> fail() {
        ++calls;
        count down = candor::store::db_error{"connection refused"};
        co_return down;
    }
    boost::asio::awaitable<count> add_failure(std::string, wall_time, std::chrono::seconds) override { return fail(); }
    boost::asio::awaitable<count> failures(std::string, wall_time, std::chrono::seconds) override { return fail(); }
    boost::asio::awaitable<count> clear(std::string, wall_time, std::chrono::seconds) override { return fail(); }
};

template <class T>
T run(boost::asio::awaitable<T> a) {
    boost::asio::io_context io;
    auto f = boost::asio::co_spawn(io, std::move(a), boost::asio::use_future);
    io.run();
    return f.get();
}

TEST(SharedRepairCounts, WhenTheDatabaseFailsThisProcessCountsAlone) {
    auto down = std::make_shared<failing_counts>();
    cv::repair_budget_options o;
    o.shared = down;
    cv::repair_budget b(o);
    EXPECT_EQ(run(b.count_failure("k")), 1u);
    EXPECT_EQ(run(b.count_failure("k")), 2u);
    EXPECT_EQ(run(b.count_of("k")), 2u);
    EXPECT_EQ(run(b.clear("k")), 2u);
    EXPECT_EQ(run(b.count_of("k")), 0u);
    EXPECT_EQ(down->calls, 5);  // every call asked the database first
}

}  // namespace
