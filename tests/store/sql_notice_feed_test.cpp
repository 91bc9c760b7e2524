// SPDX-License-Identifier: BSL-1.0
#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_notice_feed.hpp>

#include "store/shared_notices_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>

namespace {

std::shared_ptr<candor::mcp::shared_notices> memory_feed() {
    return candor::state::sql_notice_feed::open(candor::sqlite::open_sql_database(":memory:").value(),
                                                std::make_shared<candor::offload::worker>())
        .value();
}

TEST(SqliteSharedNotices, TheFeedReadsTheOthersInOrder) {
    candor::test::the_feed_reads_the_others_in_order(memory_feed());
}

TEST(SqliteSharedNotices, AnUpdateReachesTheSubscriberOnTheOtherReplica) {
    candor::test::an_update_reaches_the_subscriber_on_the_other_replica(memory_feed(), nullptr);
}

TEST(SqliteSharedNotices, AListChangeReachesTheOtherReplica) {
    candor::test::a_list_change_reaches_the_other_replica(memory_feed(), nullptr);
}

TEST(SqliteSharedNotices, ACancellationReachesTheCallOnTheOtherReplica) {
    candor::test::a_cancellation_reaches_the_call_on_the_other_replica(memory_feed(), nullptr);
}

// The feed keeps its newest notices only, and a reader goes on when the table was emptied.
TEST(SqliteSharedNotices, OldNoticesAreDroppedAndAnEmptiedFeedIsReadFromItsEnd) {
    auto db = candor::sqlite::open_sql_database(":memory:").value();
    auto feed = candor::state::sql_notice_feed::open(db, std::make_shared<candor::offload::worker>(),
                                                     {.retention = std::chrono::seconds(60), .max_rows = 3})
                    .value();
    for (int i = 1; i <= 5; ++i)
        feed->publish("r1", {candor::mcp::notice::kind::resource_updated, "n" + std::to_string(i), ""});
    boost::asio::io_context ioc;
    auto read = [&](std::int64_t after) {
        auto f = boost::asio::co_spawn(ioc, feed->read(after, "r2", 10, std::chrono::system_clock::now()),
                                       boost::asio::use_future);
        ioc.restart();
        ioc.run();
        return f.get();
    };
    // Publications are queued: read until the fifth is in (bounded).
    auto all = read(0);
    for (int i = 0; i < 1000 && all && all->last < 5; ++i) all = read(0);
    ASSERT_TRUE(all);
    ASSERT_EQ(all->notices.size(), 3u);
    EXPECT_EQ(all->notices.front().subject, "n3");
    EXPECT_EQ(all->last, 5);
    (void)db->execute("DELETE FROM candor_notices", {});
    auto b = read(5);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->last, 0);  // an emptied feed is read from its end again
}

}  // namespace

namespace {

// Publications wait for the worker in a bounded queue: past `max_pending`, a notice is dropped.
TEST(SqliteSharedNotices, AFullQueueDropsNoticesInsteadOfGrowing) {
    auto worker = std::make_shared<candor::offload::worker>(1);
    auto feed = candor::state::sql_notice_feed::open(candor::sqlite::open_sql_database(":memory:").value(), worker,
                                                     {.max_pending = 2})
                    .value();
    boost::asio::io_context ioc;
    auto read = [&](std::optional<std::int64_t> after) {
        auto f = boost::asio::co_spawn(ioc, feed->read(after, "reader", 100, std::chrono::system_clock::now()),
                                       boost::asio::use_future);
        ioc.restart();
        ioc.run();
        return f.get();
    };
    const auto start = read(std::nullopt).value().last;
    // The worker's one thread is busy until the test lets it go: the publications queue.
    std::promise<void> release;
    auto busy = release.get_future().share();
    boost::asio::post(worker->executor(), [busy] { busy.wait(); });
    for (int i = 1; i <= 5; ++i)
        feed->publish("writer", {candor::mcp::notice::kind::resource_updated, "n" + std::to_string(i), ""});
    release.set_value();
    std::vector<std::string> got;
    auto read_until = [&](std::string_view subject) {
        for (int i = 0; i < 1000; ++i) {
            auto b = read(start);
            ASSERT_TRUE(b);
            got.clear();
            for (auto& n : b->notices) got.push_back(n.subject);
            if (std::find(got.begin(), got.end(), subject) != got.end()) return;
        }
    };
    read_until("n2");
    // One more, now that the queue has room: once it is in, so is everything queued before it.
    feed->publish("writer", {candor::mcp::notice::kind::resource_updated, "last", ""});
    read_until("last");
    EXPECT_EQ(got, (std::vector<std::string>{"n1", "n2", "last"}));
}

}  // namespace
