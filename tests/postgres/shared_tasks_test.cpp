// SPDX-License-Identifier: BSL-1.0
// Tasks across replicas on PostgreSQL: the same rules as on SQLite (tests/store), each replica
// with a pool of its own, and a table that replicas starting at once create without a fault.
#include <candor/offload/worker.hpp>
#include <candor/state/sql_task_table.hpp>

#include "postgres/test_support.hpp"
#include "store/shared_tasks_rules.hpp"

#include <gtest/gtest.h>

#include <future>
#include <vector>

namespace {

std::shared_ptr<candor::mcp::shared_task_table> table(candor_test::io_thread& t) {
    return candor::state::sql_task_table::open(candor_test::open_database(t),
                                               std::make_shared<candor::offload::worker>(4))
        .value();
}

TEST(PostgresSharedTasks, ReplicasStartingAtOnceCreateTheTableOnce) {
    candor_test::io_thread t;
    std::vector<std::future<bool>> opened;
    for (int i = 0; i < 4; ++i)
        opened.push_back(std::async(std::launch::async, [&t] {
            return bool(candor::state::sql_task_table::open(candor_test::open_database(t),
                                                            std::make_shared<candor::offload::worker>()));
        }));
    for (auto& f : opened) EXPECT_TRUE(f.get());
}

TEST(PostgresSharedTasks, ATaskStartedOnOneReplicaIsPolledOnTheOtherToItsResult) {
    candor_test::io_thread t;
    candor::test::polled_elsewhere_to_its_result(table(t), table(t));
}

TEST(PostgresSharedTasks, ACancellationOnTheOtherReplicaStopsTheTool) {
    candor_test::io_thread t;
    candor::test::cancelled_elsewhere_stops_the_tool(table(t), table(t));
}

TEST(PostgresSharedTasks, ACancellationElsewhereWinsOverAnEndThatCameLater) {
    candor_test::io_thread t;
    candor::test::a_cancellation_elsewhere_wins_over_a_later_end(table(t), table(t));
}

TEST(PostgresSharedTasks, ARequestToTheClientIsAnsweredOnTheOtherReplica) {
    candor_test::io_thread t;
    candor::test::answered_elsewhere(table(t), table(t));
}

TEST(PostgresSharedTasks, AReplicaThatStopsRenewingItsLeaseLosesItsTasks) {
    candor_test::io_thread t;
    candor::test::a_replica_that_stops_renewing_loses_its_tasks(table(t), table(t));
}

}  // namespace

namespace {

TEST(PostgresSharedTasks, TheLimitsOnTasksHoldAcrossReplicas) {
    candor_test::io_thread t;
    candor::test::the_limits_on_tasks_hold_across_replicas(table(t), table(t));
}

}  // namespace
