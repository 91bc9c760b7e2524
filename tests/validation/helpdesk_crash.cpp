// SPDX-License-Identifier: BSL-1.0
// An approval runs once, across crashes: the helpdesk's archive (built with its fault-injection
// hook, helpdesk_fault_injection) is killed with SIGKILL in the middle of an approved batch, or
// right after its commit; a restarted server then finds either every account archived and the
// plan token used, or none archived and the token unused — never a part.
#include "helpdesk_process.hpp"

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace json = boost::json;
using helpdesk_test::helpdesk_process;

std::vector<std::string> ids_of(const json::value& inventory) {
    std::vector<std::string> ids;
    for (const auto& item : inventory.at("data").as_array()) ids.emplace_back(item.at("id").as_string());
    return ids;
}

std::string error_code(const json::value& env) {
    const auto* errors = env.as_object().if_contains("errors");
    if (errors == nullptr || errors->as_array().empty()) return {};
    return std::string(errors->as_array().front().at("code").as_string());
}

struct run_counts {
    int applied = 0;
    int none = 0;
    int replays_refused = 0;
};

// One crash run: plan, kill at `kill_after`, restart, look, replay.
void crash_run(const std::string& kill_after, run_counts& counts) {
    SCOPED_TRACE("HELPDESK_KILL_AFTER=" + kill_after);
    const auto db = (std::filesystem::temp_directory_path() /
                     ("candor-crash-" + std::to_string(::getpid()) + "-" + kill_after + ".db"))
                        .string();
    auto remove_db = [&] {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix, ec);
    };
    remove_db();  // a leftover of an earlier run at the same point
    struct at_end {
        std::function<void()> f;
        ~at_end() { f(); }
    } cleanup{remove_db};

    json::array ids;
    std::string snapshot_token;
    std::string plan_token;
    std::size_t unowned_before = 0;
    {
        helpdesk_process p(db, kill_after.c_str());
        p.initialize();
        auto inventory = p.call("find_unowned_accounts", {});
        ASSERT_TRUE(inventory.is_object());
        ASSERT_EQ(inventory.at("complete"), true) << json::serialize(inventory);
        const auto all = ids_of(inventory);
        unowned_before = all.size();
        ASSERT_EQ(unowned_before, 71u);  // the kill points below are counted in these
        for (const auto& id : all) ids.emplace_back(id);
        snapshot_token = std::string(inventory.at("snapshot_token").as_string());
        auto plan = p.call("archive_service_accounts", {{"ids", ids}, {"snapshot_token", snapshot_token}});
        ASSERT_EQ(error_code(plan), "PLAN_TOKEN_REQUIRED") << json::serialize(plan);
        plan_token = std::string(plan.at("errors").at(0).at("plan_token").as_string());
        auto killed = p.call("archive_service_accounts",
                             {{"ids", ids}, {"snapshot_token", snapshot_token}, {"plan_token", plan_token}});
        EXPECT_TRUE(killed.is_null()) << "answered before it was killed: " << json::serialize(killed);
        ASSERT_EQ(p.wait_end(), SIGKILL);
    }

    helpdesk_process p(db, nullptr);
    p.initialize();
    auto after = p.call("find_unowned_accounts", {});
    ASSERT_TRUE(after.is_object());
    ASSERT_EQ(after.at("complete"), true) << json::serialize(after);
    const auto left = ids_of(after).size();
    const json::object replay_args{{"ids", ids}, {"snapshot_token", snapshot_token}, {"plan_token", plan_token}};
    if (left == 0) {
        // Everything was applied: the token is used.
        ++counts.applied;
        auto replay = p.call("archive_service_accounts", replay_args);
        ASSERT_EQ(error_code(replay), "PLAN_TOKEN_USED") << json::serialize(replay);
        ++counts.replays_refused;
    } else {
        // Nothing was applied: the token is unused and runs its action now, once.
        ASSERT_EQ(left, unowned_before) << "a part of the batch was archived";
        ++counts.none;
        auto replay = p.call("archive_service_accounts", replay_args);
        ASSERT_EQ(replay.at("status"), "complete") << json::serialize(replay);
        EXPECT_EQ(replay.at("data").at("archived").as_array().size(), unowned_before);
        auto again = p.call("archive_service_accounts", replay_args);
        ASSERT_EQ(error_code(again), "PLAN_TOKEN_USED") << json::serialize(again);
        ++counts.replays_refused;
    }
}

TEST(HelpdeskCrash, AnApprovedBatchIsAppliedWholeWithItsTokenOrNotAtAll) {
    // Kill points: before the first account, after the first, half-way, after the last (still
    // before the commit), after the commit; then random points in the batch.
    std::vector<std::string> points{"0", "1", "35", "71", "commit"};
    std::mt19937 random(std::random_device{}());
    for (int i = 0; i < 10; ++i) points.push_back(std::to_string(std::uniform_int_distribution<int>(0, 71)(random)));
    run_counts counts;
    for (const auto& point : points) crash_run(point, counts);
    // Every kill before the commit left nothing; the one after it left everything.
    EXPECT_EQ(counts.applied, 1);
    EXPECT_EQ(counts.none, static_cast<int>(points.size()) - 1);
    EXPECT_EQ(counts.replays_refused, static_cast<int>(points.size()));
    std::printf("[ crash runs ] %zu: %d applied whole, %d not at all, %d replays refused\n", points.size(),
                counts.applied, counts.none, counts.replays_refused);
}

}  // namespace
