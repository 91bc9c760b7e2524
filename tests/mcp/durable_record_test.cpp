// SPDX-License-Identifier: BSL-1.0
// The record of an irreversible action reaches every observer's storage before its reply
// leaves; the connection keeps serving meanwhile.
//
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/mcp/observer.hpp>

#include <candor/mcp/connection.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace mcp = candor::mcp;

// Keeps the `stored` acknowledgements until the test releases them.
struct holding_observer final : mcp::call_observer {
    std::vector<std::string> recorded;  // tools of plain records
    std::vector<std::pair<std::string, std::function<void()>>> held;
    void on_record(const mcp::call_record& r) override { recorded.push_back(r.tool); }
    void on_durable_record(const mcp::call_record& r, std::function<void()> stored) override {
        held.emplace_back(r.tool, std::move(stored));
    }
};

struct durable_fixture {
    std::shared_ptr<holding_observer> first = std::make_shared<holding_observer>();
    std::shared_ptr<holding_observer> second = std::make_shared<holding_observer>();
    mcp::server srv{options()};
    boost::asio::io_context io;
    std::unique_ptr<mcp::memory_client> client;

    mcp::server_options options() {
        mcp::server_options o;
        o.log = [](mcp::log_level, std::string_view) {};
        o.observers = {first, second};
        return o;
    }

    durable_fixture() {
        const boost::json::object schema{
            {"type", "object"}, {"properties", {{"id", {{"type", "string"}}}}}, {"additionalProperties", false}};
        auto done = [](const boost::json::object&,
                       mcp::call_context&) -> boost::asio::awaitable<candor::envelope::envelope> {
            co_return candor::envelope::complete(boost::json::object{{"done", true}});
        };
        srv.add_tool(mcp::make_tool(mcp::tool_info("wipe", "wipes for good")
                                        .with_input_schema(schema)
                                        .with_action(mcp::action_class::irreversible_write),
                                    done))
            .value();
        srv
            .add_tool(mcp::make_tool(
                mcp::tool_info("look", "reads").with_input_schema(schema).with_action(mcp::action_class::read_only),
                done))
            .value();
        client = std::make_unique<mcp::memory_client>(srv, io);
        client->initialize();
    }

    /// Send a call without waiting for its answer. @return its id
    std::int64_t send_call(std::string_view tool, std::string_view arguments = "{}") {
        const auto id = client->next_id() + 1000;
        client->send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" +
                     std::string(tool) + R"(","arguments":)" + std::string(arguments) + "}}");
        return id;
    }
    bool answered(std::int64_t id) const { return !client->response_to(id).is_null(); }
};

}  // namespace

TEST(DurableRecord, TheReplyOfAnIrreversibleActionWaitsUntilEveryObserverStoredItsRecord) {
    durable_fixture f;
    const auto id = f.send_call("wipe");
    ASSERT_TRUE(f.client->run_until([&] { return f.first->held.size() == 1 && f.second->held.size() == 1; }));
    EXPECT_EQ(f.first->held[0].first, "wipe");
    f.client->run_ready();
    EXPECT_FALSE(f.answered(id));

    // The connection is not held: other calls are answered meanwhile.
    auto r = f.client->request("tools/call", {{"name", "look"}, {"arguments", boost::json::object{}}});
    EXPECT_EQ(r.at_pointer("/result/structuredContent/status"), "complete");
    EXPECT_FALSE(f.answered(id));

    // Acknowledged from the observers' own threads; the reply waits for the last one.
    std::thread([&] { f.first->held[0].second(); }).join();
    f.client->run_ready();
    EXPECT_FALSE(f.answered(id));
    std::thread([&] { f.second->held[0].second(); }).join();
    ASSERT_TRUE(f.client->run_until([&] { return f.answered(id); }));
    EXPECT_EQ(f.client->response_to(id).at_pointer("/result/structuredContent/status"), "complete");
    EXPECT_EQ(f.first->recorded, std::vector<std::string>{"look"});
}

TEST(DurableRecord, ACallRefusedBeforeItsHandlerRanIsAnsweredAtOnce) {
    durable_fixture f;
    const auto id = f.send_call("wipe", R"({"nope": 1})");
    ASSERT_TRUE(f.client->run_until([&] { return f.answered(id); }));
    EXPECT_TRUE(f.first->held.empty());
    EXPECT_EQ(f.first->recorded, std::vector<std::string>{"wipe"});
}

TEST(DurableRecord, ClosingTheConnectionDropsAHeldReplyAndReleasesTheExecutor) {
    durable_fixture f;
    const auto id = f.send_call("wipe");
    ASSERT_TRUE(f.client->run_until([&] { return f.second->held.size() == 1; }));
    f.client->connection()->close();
    f.first->held[0].second();
    f.second->held[0].second();
    // Nothing keeps the io_context running any more: it runs out of work (in the failure
    // case it would wait out the limit instead).
    f.io.restart();
    f.io.run_for(std::chrono::seconds(10));
    EXPECT_TRUE(f.io.stopped());
    f.client->run_ready();
    EXPECT_FALSE(f.answered(id));
}
