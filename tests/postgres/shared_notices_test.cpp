// SPDX-License-Identifier: BSL-1.0
// Notices across replicas on PostgreSQL: the same rules as on SQLite (tests/store), each replica
// with a pool of its own.
#include <candor/offload/worker.hpp>
#include <candor/state/sql_notice_feed.hpp>

#include "postgres/test_support.hpp"
#include "store/shared_notices_rules.hpp"

#include <gtest/gtest.h>

namespace {

std::shared_ptr<candor::mcp::shared_notices> feed(candor_test::io_thread& t) {
    return candor::state::sql_notice_feed::open(candor_test::open_database(t),
                                                std::make_shared<candor::offload::worker>(4))
        .value();
}

TEST(PostgresSharedNotices, TheFeedReadsTheOthersInOrder) {
    candor_test::io_thread t;
    candor::test::the_feed_reads_the_others_in_order(feed(t));
}

TEST(PostgresSharedNotices, AnUpdateReachesTheSubscriberOnTheOtherReplica) {
    candor_test::io_thread t;
    candor::test::an_update_reaches_the_subscriber_on_the_other_replica(feed(t), feed(t));
}

TEST(PostgresSharedNotices, AListChangeReachesTheOtherReplica) {
    candor_test::io_thread t;
    candor::test::a_list_change_reaches_the_other_replica(feed(t), feed(t));
}

TEST(PostgresSharedNotices, ACancellationReachesTheCallOnTheOtherReplica) {
    candor_test::io_thread t;
    candor::test::a_cancellation_reaches_the_call_on_the_other_replica(feed(t), feed(t));
}

}  // namespace
