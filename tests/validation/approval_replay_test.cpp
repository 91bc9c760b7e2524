// SPDX-License-Identifier: BSL-1.0
// An approval runs its action once, however it was given: the answer to the approval question
// on the 2026-07-28 wire (a retry with requestState and inputResponses) replayed in sequence,
// sixteen replays at once, an answer sent before the question was asked, and a live answer on
// the 2025-11-25 wire. The action's executions are counted in the same SQLite database as the
// plan ledger, in the same transaction as the approval's use.
//
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/envelope/envelope.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/offload/worker.hpp>
#include <candor/sqlite/sql_database.hpp>
#include <candor/state/sql_plan_ledger.hpp>
#include <candor/validation/approval_gate.hpp>

#include "mcp/stateless_support.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

namespace {

namespace ce = candor::envelope;
namespace cv = candor::validation;
namespace mcp = candor::mcp;
namespace st = candor::store;
using boost::json::object;

class ApprovalReplay : public ::testing::Test {
protected:
    void SetUp() override {
        db_ = candor::sqlite::open_sql_database(path_.string()).value();
        ASSERT_TRUE(db_->execute("CREATE TABLE executions (n INTEGER)", {}));
        worker_ = std::make_shared<candor::offload::worker>(1);
        auto ledger = candor::state::sql_plan_ledger::open(db_, worker_).value();
        gate_ = std::make_shared<cv::approval_gate>("archive", cv::approval_options{.plan_ledger = ledger});
        srv_.set_request_state_sealer(candor::test::test_sealer());
        srv_
            .add_tool(mcp::make_tool(
                mcp::tool_info("archive", "Archives a-1 once the user approves.")
                    .with_input_schema(cv::approval_gate::token_only_schema())
                    .with_action(mcp::action_class::irreversible_write),
                [this](const object& args, mcp::call_context& ctx) -> boost::asio::awaitable<ce::envelope> {
                    cv::action_plan plan;
                    plan.summary = "Archive a-1.";
                    plan.targets = {"a-1"};
                    auto approval = co_await gate_->approve(ctx, plan, args, 8, cv::plan_use_timing::with_action);
                    if (!approval.approved()) co_return ce::failure(std::move(approval.refusal));
                    auto done = co_await gate_->run_approved(approval, db_, *worker_, [](st::sql_database& tx) {
                        return tx.execute("INSERT INTO executions VALUES (1)", {}).has_value()
                                   ? boost::system::result<void, st::db_error>()
                                   : st::db_error{"insert failed"};
                    });
                    if (!done) co_return ce::failure(std::move(done.error()));
                    co_return ce::complete(object{{"archived", true}});
                }))
            .value();
    }
    void TearDown() override {
        worker_.reset();
        gate_.reset();
        db_.reset();
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ec);
    }

    std::int64_t executions() const {
        std::int64_t n = -1;
        EXPECT_TRUE(db_->query("SELECT count(*) FROM executions", {}, [&](const st::sql_row& r) {
            n = std::get<std::int64_t>(r.at(0));
            return false;
        }));
        return n;
    }

    // A 2026-07-28 tools/call of `archive` from a client that can elicit, with `extra` params.
    static object archive_call(object extra = {}) {
        extra["name"] = "archive";
        extra["arguments"] = object{};
        extra["_meta"] = candor::test::modern_meta(object{{"elicitation", object{}}}, "replayer");
        return extra;
    }
    static object proceed() {
        return object{{"elicitation_1", object{{"action", "accept"}, {"content", object{{"decision", "proceed"}}}}}};
    }
    // The error code of a tool result's envelope, or "" for a complete one.
    static std::string code_of(const boost::json::value& response) {
        const auto& env = response.at("result").at("structuredContent").as_object();
        if (env.at("status") == "complete") return "";
        return std::string(env.at("errors").at(0).at("code").as_string());
    }
    // The first round: the question, and the state its answer must come back with.
    std::string ask(mcp::memory_client& c) {
        auto r = c.request("tools/call", archive_call());
        EXPECT_EQ(r.at("result").at("resultType"), "input_required") << boost::json::serialize(r);
        return std::string(r.at("result").at("requestState").as_string());
    }

    std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                  ("candor-approval-replay-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ".db");
    std::shared_ptr<st::sql_database> db_;
    std::shared_ptr<candor::offload::worker> worker_;
    std::shared_ptr<cv::approval_gate> gate_;
    mcp::server srv_{mcp::server_options{.log = {}}};
    boost::asio::io_context ioc_;
};

TEST_F(ApprovalReplay, TheSameRetrySentAgainRunsNothing) {
    mcp::memory_client c(srv_, ioc_, mcp::connection_options{{"alice"}, ""});
    const auto state = ask(c);
    auto first = c.request("tools/call", archive_call(object{{"requestState", state}, {"inputResponses", proceed()}}));
    EXPECT_EQ(code_of(first), "") << boost::json::serialize(first);
    for (int replay = 0; replay < 3; ++replay) {
        auto again =
            c.request("tools/call", archive_call(object{{"requestState", state}, {"inputResponses", proceed()}}));
        EXPECT_EQ(code_of(again), "APPROVAL_USED") << boost::json::serialize(again);
        EXPECT_EQ(again.at("result").at("isError"), true);
    }
    EXPECT_EQ(executions(), 1);
    // A new question is a new approval: asked and answered again, the action runs again.
    const auto fresh = ask(c);
    EXPECT_NE(fresh, state);
    auto second = c.request("tools/call", archive_call(object{{"requestState", fresh}, {"inputResponses", proceed()}}));
    EXPECT_EQ(code_of(second), "") << boost::json::serialize(second);
    EXPECT_EQ(executions(), 2);
}

TEST_F(ApprovalReplay, SixteenReplaysAtOnceRunTheActionOnce) {
    mcp::memory_client c(srv_, ioc_, mcp::connection_options{{"alice"}, ""});
    const auto state = ask(c);
    // All sent before any is answered: they are in flight together, on the strand and the
    // ledger's worker.
    constexpr int replays = 16;
    for (int i = 0; i < replays; ++i) {
        object message{{"jsonrpc", "2.0"},
                       {"id", 1000 + i},
                       {"method", "tools/call"},
                       {"params", archive_call(object{{"requestState", state}, {"inputResponses", proceed()}})}};
        c.send(boost::json::serialize(message));
    }
    ASSERT_TRUE(c.run_until([&] {
        for (int i = 0; i < replays; ++i)
            if (c.response_to(1000 + i).is_null()) return false;
        return true;
    }));
    int complete = 0;
    int used = 0;
    for (int i = 0; i < replays; ++i) {
        const auto code = code_of(c.response_to(1000 + i));
        complete += code.empty();
        used += code == "APPROVAL_USED";
    }
    EXPECT_EQ(complete, 1);
    EXPECT_EQ(used, replays - 1);
    EXPECT_EQ(executions(), 1);
}

TEST_F(ApprovalReplay, AnApprovalSentBeforeItWasAskedRunsNothing) {
    mcp::memory_client c(srv_, ioc_, mcp::connection_options{{"alice"}, ""});
    // No user saw a plan, and nothing tells such an answer from its replay.
    auto r = c.request("tools/call", archive_call(object{{"inputResponses", proceed()}}));
    EXPECT_EQ(code_of(r), "ACTION_NOT_APPROVED") << boost::json::serialize(r);
    const auto message =
        std::string(r.at("result").at("structuredContent").at("errors").at(0).at("message").as_string());
    EXPECT_NE(message.find("before it was asked"), std::string::npos) << message;
    EXPECT_EQ(executions(), 0);
}

TEST_F(ApprovalReplay, AnotherCallerCannotReplayTheApproval) {
    mcp::memory_client alice(srv_, ioc_, mcp::connection_options{{"alice"}, ""});
    const auto state = ask(alice);
    mcp::memory_client mallory(srv_, ioc_, mcp::connection_options{{"mallory"}, ""});
    auto stolen =
        mallory.request("tools/call", archive_call(object{{"requestState", state}, {"inputResponses", proceed()}}));
    EXPECT_EQ(stolen.at("error").at("data").at("code"), "REQUEST_STATE_FOREIGN");
    EXPECT_EQ(executions(), 0);
}

}  // namespace
