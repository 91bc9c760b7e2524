// SPDX-License-Identifier: BSL-1.0
#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_task_table.hpp>

#include "store/shared_tasks_rules.hpp"

#include <gtest/gtest.h>

namespace {

std::shared_ptr<candor::mcp::shared_task_table> memory_table() {
    return candor::state::sql_task_table::open(candor::sqlite::open_sql_database(":memory:").value(),
                                               std::make_shared<candor::offload::worker>())
        .value();
}

TEST(SqliteSharedTasks, ATaskStartedOnOneReplicaIsPolledOnTheOtherToItsResult) {
    candor::test::polled_elsewhere_to_its_result(memory_table());
}

TEST(SqliteSharedTasks, ACancellationOnTheOtherReplicaStopsTheTool) {
    candor::test::cancelled_elsewhere_stops_the_tool(memory_table());
}

TEST(SqliteSharedTasks, ACancellationElsewhereWinsOverAnEndThatCameLater) {
    candor::test::a_cancellation_elsewhere_wins_over_a_later_end(memory_table());
}

TEST(SqliteSharedTasks, ARequestToTheClientIsAnsweredOnTheOtherReplica) {
    candor::test::answered_elsewhere(memory_table());
}

TEST(SqliteSharedTasks, AReplicaThatStopsRenewingItsLeaseLosesItsTasks) {
    candor::test::a_replica_that_stops_renewing_loses_its_tasks(memory_table());
}

}  // namespace

namespace {

TEST(SqliteSharedTasks, TheLimitsOnTasksHoldAcrossReplicas) {
    candor::test::the_limits_on_tasks_hold_across_replicas(memory_table());
}

}  // namespace
