// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/server.hpp>

#include "fixture.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace candor::test;

namespace {

// Collects what one connection sends; the server calls it from pool threads.
struct inbox {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<boost::json::value> messages;
    void push(std::string text) {
        std::lock_guard lock(mu);
        messages.push_back(boost::json::parse(text));
        cv.notify_all();
    }
};

}  // namespace

TEST(ServerOnAThreadPool, ManyConnectionsCallConcurrentlyWhileToolsChange) {
    auto log = std::make_shared<server_log>();
    auto opts = test_options(log);
    opts.max_calls_in_flight = 1000;
    opts.log = nullptr;  // the shared test log is not thread-safe
    mcp::server srv(opts);
    add_fixture_tools(srv, std::make_shared<shared_flags>());
    boost::asio::thread_pool pool(4);

    constexpr int connections = 4;
    constexpr int calls = 50;
    std::vector<std::shared_ptr<inbox>> boxes;
    std::vector<std::shared_ptr<mcp::connection>> conns;
    for (int c = 0; c < connections; ++c) {
        auto box = std::make_shared<inbox>();
        boxes.push_back(box);
        conns.push_back(srv.connect(pool.get_executor(), [box](std::string t) { box->push(std::move(t)); }));
        conns.back()->receive(
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
        conns.back()->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        for (int i = 1; i <= calls; ++i)
            conns.back()->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                                  R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"c)" +
                                  std::to_string(c) + "-" + std::to_string(i) + R"("}}})");
    }
    // Registry changes race with the calls; they must neither block them nor corrupt the list.
    for (int i = 0; i < 20; ++i) {
        auto name = "extra_" + std::to_string(i);
        srv.add_tool(mcp::make_tool(mcp::tool_info(name, "x").with_action(mcp::action_class::read_only),
                                    [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                        co_return ce::complete(1);
                                    }))
            .value();
        EXPECT_TRUE(srv.remove_tool(name));
    }
    for (int c = 0; c < connections; ++c) {
        auto& box = *boxes[c];
        std::unique_lock lock(box.mu);
        auto responses = [&] {
            return std::count_if(box.messages.begin(), box.messages.end(),
                                 [](const auto& m) { return at(m, "id") != "<missing>"; });
        };
        // A generous bound only so that a broken server fails instead of hanging.
        ASSERT_TRUE(box.cv.wait_for(lock, std::chrono::seconds(60), [&] { return responses() == calls + 1; }));
        for (const auto& m : box.messages) {
            auto id = at(m, "id");
            if (id == "<missing>" || id == 0) continue;
            const auto expected = "c" + std::to_string(c) + "-" + std::to_string(id.as_int64());
            EXPECT_EQ(at(envelope_of(m), "data", "text"), boost::json::value(expected));
        }
    }
    for (auto& c : conns) c->close();
    pool.join();
}

// A connection's work runs on one strand whatever executor it was given: on an io_context run
// by several threads (as given, or work-tracked) the connection makes a strand of the
// io_context's own executor, on anything else a strand of the type-erased one. Two calls of
// one connection never run at the same time, though they interleave at their suspensions.
TEST(ServerOnManyThreads, EachConnectionsCallsRunOneAtATimeOnEveryKindOfExecutor) {
    auto opts = test_options(std::make_shared<server_log>());
    opts.max_calls_in_flight = 1000;
    opts.log = nullptr;  // the shared test log is not thread-safe
    mcp::server srv(opts);
    std::atomic<int> active{0};
    std::atomic<int> overlaps{0};
    auto exclusive_stretch = [&] {
        if (active.fetch_add(1) != 0) overlaps.fetch_add(1);
        // Long enough that another thread running this connection's work would be caught.
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
        while (std::chrono::steady_clock::now() < until) {
        }
        active.fetch_sub(1);
    };
    srv.add_tool(mcp::make_tool(mcp::tool_info("stretch", "x").with_action(mcp::action_class::read_only),
                                [&](const boost::json::object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                                    exclusive_stretch();
                                    co_await boost::asio::post(ctx.executor(), boost::asio::use_awaitable);
                                    exclusive_stretch();
                                    co_return ce::complete(1);
                                }))
        .value();

    boost::asio::io_context ioc;
    boost::asio::thread_pool pool(2);
    const std::vector<boost::asio::any_io_executor> executors{
        ioc.get_executor(), boost::asio::require(ioc.get_executor(), boost::asio::execution::outstanding_work.tracked),
        pool.get_executor()};
    for (const auto& ex : executors) {
        constexpr int calls = 40;
        auto box = std::make_shared<inbox>();
        auto conn = srv.connect(ex, [box](std::string t) { box->push(std::move(t)); });
        conn->receive(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
        conn->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        for (int i = 1; i <= calls; ++i)
            conn->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                          R"(,"method":"tools/call","params":{"name":"stretch","arguments":{}}})");
        auto guard = boost::asio::make_work_guard(ioc);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) threads.emplace_back([&] { ioc.run(); });
        {
            std::unique_lock lock(box->mu);
            // A generous bound only so that a broken server fails instead of hanging.
            EXPECT_TRUE(
                box->cv.wait_for(lock, std::chrono::seconds(60), [&] { return box->messages.size() == calls + 1u; }));
        }
        conn->close();
        guard.reset();
        ioc.stop();
        for (auto& t : threads) t.join();
        ioc.restart();
        EXPECT_EQ(overlaps.load(), 0);
    }
    pool.join();
}
