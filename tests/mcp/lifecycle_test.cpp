// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/server.hpp>

#include "fixture.hpp"

using namespace candor::test;

namespace {
class Lifecycle : public server_fixture {};
}  // namespace

TEST_F(Lifecycle, InitializeAnswersTheClientsVersionWhenSupported) {
    for (std::string_view v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
        boost::asio::io_context io;
        mcp::memory_client c(srv, io);
        auto r = c.initialize(v);
        EXPECT_EQ(at(r, "result", "protocolVersion"), boost::json::value(v));
    }
}

TEST_F(Lifecycle, InitializeAnswersTheLatestForAnUnsupportedVersion) {
    auto r = client->initialize("1999-01-01");
    EXPECT_EQ(at(r, "result", "protocolVersion"), "2025-11-25");
}

TEST_F(Lifecycle, InitializeReportsCapabilitiesServerInfoAndInstructions) {
    auto r = at(client->initialize(), "result");
    EXPECT_EQ(at(r, "capabilities"), boost::json::parse(R"({"tools":{"listChanged":true},"logging":{}})"));
    EXPECT_EQ(at(r, "serverInfo"),
              boost::json::parse(R"({"name":"candor-test","version":"1.2.3","title":"Candor test server"})"));
    EXPECT_EQ(at(r, "instructions"), "Use echo to test.");
}

TEST_F(Lifecycle, ServerTitleIsOmittedBefore20250618) {
    auto r = at(client->initialize("2025-03-26"), "result");
    EXPECT_EQ(at(r, "serverInfo", "title"), "<missing>");
}

TEST_F(Lifecycle, InitializeTwiceIsInvalidRequest) {
    client->initialize();
    auto r = client->request("initialize", {{"protocolVersion", "2025-11-25"}});
    EXPECT_EQ(at(r, "error", "code"), -32600);
}

TEST_F(Lifecycle, InitializeWithoutProtocolVersionIsInvalidParams) {
    auto r = client->request("initialize", {{"capabilities", boost::json::object{}}});
    EXPECT_EQ(at(r, "error", "code"), -32602);
    auto again = client->request("initialize", {{"protocolVersion", 20250618}});
    EXPECT_EQ(at(again, "error", "code"), -32602);
}

TEST_F(Lifecycle, PingWorksBeforeAndAfterInitialize) {
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
    client->initialize();
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
}

TEST_F(Lifecycle, ToolRequestsBeforeInitializeAreRefused) {
    EXPECT_EQ(at(client->request("tools/list"), "error", "code"), -32600);
    EXPECT_EQ(at(call("echo"), "error", "code"), -32600);
}

TEST_F(Lifecycle, UnknownMethodIsMethodNotFound) {
    client->initialize();
    EXPECT_EQ(at(client->request("resources/frobnicate"), "error", "code"), -32601);
}

TEST_F(Lifecycle, NotificationsAreNeverAnswered) {
    client->initialize();
    const auto before = client->received().size();
    client->notify("notifications/unknown_thing", {{"x", 1}});
    client->notify("notifications/initialized");
    EXPECT_EQ(client->received().size(), before);
}

TEST_F(Lifecycle, ResponsesFromTheClientAreNotAnswered) {
    client->initialize();
    const auto before = client->received().size();
    client->send(R"({"jsonrpc":"2.0","id":99,"result":{}})");
    client->send(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"could not parse"}})");
    client->run_ready();
    EXPECT_EQ(client->received().size(), before);
}

TEST_F(Lifecycle, InvalidJsonIsParseErrorWithNullId) {
    auto r = client->exchange(R"({"jsonrpc":"2.0","id":1,"method":"ping")", nullptr);
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "error", "data", "code"), "INVALID_JSON");
    EXPECT_EQ(at(r, "id"), nullptr);
}

TEST_F(Lifecycle, BatchIsInvalidRequest) {
    auto r = client->exchange(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", nullptr);
    EXPECT_EQ(at(r, "error", "code"), -32600);
}

TEST_F(Lifecycle, NullIdIsInvalidRequest) {
    auto r = client->exchange(R"({"jsonrpc":"2.0","id":null,"method":"ping"})", nullptr);
    EXPECT_EQ(at(r, "error", "code"), -32600);
}

TEST_F(Lifecycle, DuplicateMethodIsRefusedWithTheId) {
    auto r = client->exchange(R"({"jsonrpc":"2.0","id":"x","method":"ping","method":"tools/list"})", "x");
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "error", "data", "code"), "DUPLICATE_KEY");
    EXPECT_EQ(at(r, "error", "data", "path"), "/method");
}

TEST_F(Lifecycle, DuplicateIdIsRefusedWithNullId) {
    auto r = client->exchange(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})", nullptr);
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "id"), nullptr);
}

TEST_F(Lifecycle, ViolationInParamsOfAnotherMethodIsParseError) {
    client->initialize();
    auto r =
        client->exchange(R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"a","cursor":"b"}})", 5);
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "error", "data", "path"), "/params/cursor");
}

TEST_F(Lifecycle, MessageOverTheServerLimitIsRefusedAndTheConnectionStaysUsable) {
    boost::asio::io_context io;
    auto opts = test_options(log);
    opts.message_limits.max_bytes = 200;
    mcp::server small(opts);
    mcp::memory_client c(small, io);
    auto r = c.exchange(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(300, 'x') + "\"}}",
                        nullptr);
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "error", "data", "code"), "INPUT_TOO_LARGE");
    EXPECT_EQ(at(c.request("ping"), "result"), boost::json::object{});
}

TEST_F(Lifecycle, SetLevelRejectsUnknownLevels) {
    client->initialize();
    EXPECT_EQ(at(client->request("logging/setLevel", {{"level", "verbose"}}), "error", "code"), -32602);
    EXPECT_EQ(at(client->request("logging/setLevel", {{"level", "error"}}), "result"), boost::json::object{});
}
