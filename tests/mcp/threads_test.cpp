#include <candor/mcp/server.hpp>

#include "fixture.hpp"

#include <boost/asio/thread_pool.hpp>

#include <condition_variable>
#include <mutex>

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
        conns.back()->receive(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
        conns.back()->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        for (int i = 1; i <= calls; ++i)
            conns.back()->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                                  R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"c)" +
                                  std::to_string(c) + "-" + std::to_string(i) + R"("}}})");
    }
    // Registry changes race with the calls; they must neither block them nor corrupt the list.
    for (int i = 0; i < 20; ++i) {
        auto name = "extra_" + std::to_string(i);
        srv.add_tool(mcp::make_tool(mcp::tool_info(name, "x"),
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
