// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/server.hpp>

#include "fixture.hpp"
#include "golden.hpp"

using namespace candor::test;

namespace {

class ToolsCall : public server_fixture {
protected:
    void SetUp() override {
        server_fixture::SetUp();
        client->initialize();
    }
};

}  // namespace

TEST_F(ToolsCall, CompleteResultCarriesTheEnvelopeAsStructuredContentAndAsText) {
    auto r = call("echo", {{"text", "hi"}});
    auto result = at(r, "result");
    EXPECT_EQ(at(result, "isError"), false);
    auto env = at(result, "structuredContent");
    EXPECT_EQ(at(env, "status"), "complete");
    EXPECT_EQ(at(env, "complete"), true);
    EXPECT_EQ(at(env, "data"), boost::json::parse(R"({"text":"hi"})"));
    EXPECT_EQ(at(env, "scope", "resource"), "echo");
    auto block = item(at(result, "content"), 0);
    EXPECT_EQ(at(block, "type"), "text");
    EXPECT_EQ(boost::json::parse(at(block, "text").as_string()), env);
}

TEST_F(ToolsCall, PartialResultIsNotAnError) {
    auto result = at(call("search"), "result");
    EXPECT_EQ(at(result, "isError"), false);
    EXPECT_EQ(at(result, "structuredContent", "complete"), false);
    EXPECT_EQ(at(item(at(result, "structuredContent", "incomplete_reasons"), 0), "limit"), 2);
}

TEST_F(ToolsCall, UnknownToolIsInvalidParams) {
    auto r = call("no_such_tool");
    EXPECT_EQ(at(r, "error", "code"), -32602);
}

TEST_F(ToolsCall, MissingNameOrNonObjectArgumentsIsInvalidParams) {
    EXPECT_EQ(at(client->request("tools/call", {{"arguments", boost::json::object{}}}), "error", "code"), -32602);
    EXPECT_EQ(at(client->request("tools/call", {{"name", "echo"}, {"arguments", 5}}), "error", "code"), -32602);
}

TEST_F(ToolsCall, MissingArgumentsAreAnEmptyObject) {
    auto r = client->request("tools/call", {{"name", "echo"}});
    EXPECT_EQ(at(envelope_of(r), "data"), boost::json::object{});
}

TEST_F(ToolsCall, DuplicateKeyInArgumentsIsAToolErrorWithAPathRelativeToTheArguments) {
    // The id and the tool name come after the offending arguments in the text.
    auto r = client->exchange(
        R"({"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"limit":1,"limit":2},"name":"echo"},"id":"late-id"})",
        "late-id");
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    auto err = first_error(r);
    EXPECT_EQ(at(err, "code"), "DUPLICATE_KEY");
    EXPECT_EQ(at(err, "path"), "/limit");
    EXPECT_EQ(at(err, "layer"), "intake");
    EXPECT_EQ(at(err, "repairable"), true);
}

TEST_F(ToolsCall, NonFiniteNumberInArgumentsIsAToolError) {
    auto r = client->exchange(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","limit":1e400}}})",
        3);
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "code"), "NON_FINITE_NUMBER");
    EXPECT_EQ(at(first_error(r), "path"), "/limit");
}

TEST_F(ToolsCall, DuplicateKeyOutsideArgumentsIsAParseError) {
    auto r = client->exchange(
        R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","name":"search","arguments":{}}})", 4);
    EXPECT_EQ(at(r, "error", "code"), -32700);
    EXPECT_EQ(at(r, "error", "data", "path"), "/params/name");
}

TEST_F(ToolsCall, ArgumentsOverTheToolBudgetAreAToolError) {
    auto r = call("echo", {{"a", boost::json::parse(R"({"b":{"c":{}}})")}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    auto err = first_error(r);
    EXPECT_EQ(at(err, "code"), "DEPTH_LIMIT");
    EXPECT_EQ(at(err, "limit"), 3);
    EXPECT_EQ(at(err, "layer"), "intake");
}

// The budget counts the arguments, not the message around them: a message whose `_meta` alone
// is over the tool's node budget (20) still reaches the tool, and arguments over it are refused
// whatever the message holds besides.
TEST_F(ToolsCall, TheToolBudgetCountsTheArgumentsNotTheMessageAroundThem) {
    boost::json::object meta;
    for (int i = 0; i < 30; ++i) meta["k" + std::to_string(i)] = i;
    auto ok = client->request("tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}, {"_meta", meta}});
    EXPECT_EQ(at(ok, "result", "isError"), false);
    boost::json::array many;
    for (int i = 0; i < 30; ++i) many.push_back(i);
    auto over = client->request("tools/call", {{"name", "echo"}, {"arguments", {{"list", many}}}, {"_meta", meta}});
    EXPECT_EQ(at(first_error(over), "code"), "NODE_LIMIT");
    auto alone = call("echo", {{"list", many}});
    EXPECT_EQ(at(first_error(alone), "code"), "NODE_LIMIT");
}

TEST_F(ToolsCall, SchemaViolationIsAToolErrorAndTheHandlerNeverRuns) {
    auto r = call("delete_note", {{"id", 42}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "layer"), "contract");
    EXPECT_EQ(flags->write_side_effects, 0);
    auto ok = call("delete_note", {{"id", "n1"}});
    EXPECT_EQ(at(at(ok, "result"), "isError"), false);
    EXPECT_EQ(flags->write_side_effects, 1);
}

TEST_F(ToolsCall, ExceptionInAHandlerBecomesInternalErrorWithoutInternals) {
    auto r = call("boom");
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "code"), "INTERNAL_ERROR");
    EXPECT_EQ(at(first_error(r), "repairable"), false);
    EXPECT_EQ(boost::json::serialize(r).find("secret"), std::string::npos);
    EXPECT_TRUE(log->contains("secret internals"));
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
}

TEST_F(ToolsCall, EnvelopeBreakingTheInvariantsBecomesInternalErrorAndIsLogged) {
    auto r = call("liar");
    EXPECT_EQ(at(first_error(r), "code"), "INTERNAL_ERROR");
    EXPECT_TRUE(log->contains("COMPLETE_WITH_REASONS"));
}

TEST_F(ToolsCall, UnserializableDataBecomesInternalError) {
    auto r = call("nan");
    EXPECT_EQ(at(first_error(r), "code"), "INTERNAL_ERROR");
    EXPECT_TRUE(log->contains("cannot be serialized"));
}

TEST_F(ToolsCall, CancellationStopsTheHandlerAndNoResponseIsSent) {
    client->send(R"({"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"slow"}})");
    ASSERT_TRUE(client->run_until([&] { return flags->slow_started; }));
    client->notify("notifications/cancelled", {{"requestId", 77}, {"reason", "user pressed stop"}});
    ASSERT_TRUE(client->run_until([&] { return flags->slow_finished; }));
    EXPECT_TRUE(flags->slow_saw_cancellation);
    client->run_ready();
    EXPECT_EQ(client->response_to(77), nullptr);
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
    EXPECT_EQ(client->response_to(77), nullptr);
}

TEST_F(ToolsCall, CancellingAnUnknownRequestIsIgnored) {
    client->notify("notifications/cancelled", {{"requestId", 12345}});
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
}

TEST_F(ToolsCall, DeadlineStopsTheHandlerWithDeadlineExceeded) {
    auto r = call("quick_deadline");
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "code"), "DEADLINE_EXCEEDED");
    EXPECT_EQ(at(first_error(r), "repairable"), false);
    client->run_ready();
    // Exactly one response for the call, even though the handler finished afterwards.
    std::size_t answers = 0;
    for (const auto& m : client->received())
        if (at(m, "id") == at(r, "id")) ++answers;
    EXPECT_EQ(answers, 1u);
}

namespace {

// `name`: waits an hour, under `info`'s deadline (by default the server's).
void add_waiting_tool(mcp::server& s,
                      mcp::tool_info info = mcp::tool_info("wait", "x").with_action(mcp::action_class::read_only)) {
    s.add_tool(mcp::make_tool(std::move(info),
                              [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                  boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
                                  t.expires_after(std::chrono::hours(1));
                                  co_await t.async_wait(boost::asio::use_awaitable);
                                  co_return ce::complete(1);
                              }))
        .value();
}

}  // namespace

TEST_F(ToolsCall, ServerDefaultDeadlineAppliesWhenTheToolSetsNone) {
    boost::asio::io_context io;
    auto opts = test_options(log);
    opts.default_deadline = std::chrono::milliseconds(10);
    mcp::server s(opts);
    add_waiting_tool(s);
    mcp::memory_client c(s, io);
    c.initialize();
    auto r = c.request("tools/call", {{"name", "wait"}});
    EXPECT_EQ(at(first_error(r), "code"), "DEADLINE_EXCEEDED");
}

// The connection keeps one queue of deadlines and one timer armed for the earliest: a call
// whose deadline is earlier than the armed one must move the timer forward…
TEST_F(ToolsCall, AnEarlierDeadlineArrivingLaterStillStopsItsCallInTime) {
    client->send(R"({"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"slow"}})");  // 1 h
    client->run_ready();
    ASSERT_TRUE(flags->slow_started);
    auto r = call("quick_deadline");  // 20 ms
    EXPECT_EQ(at(first_error(r), "code"), "DEADLINE_EXCEEDED");
    client->run_ready();
    for (const auto& m : client->received()) EXPECT_NE(at(m, "id"), "long") << "the 1-hour call was answered";
    EXPECT_FALSE(flags->slow_finished);
}

// …and a timer still armed for a call that has finished since (others being in flight) must
// still reach the calls behind it.
TEST_F(ToolsCall, DeadlinesBehindAFinishedCallStillFire) {
    boost::asio::io_context io;
    auto opts = test_options(log);
    opts.default_deadline = std::chrono::milliseconds(40);
    mcp::server s(opts);
    add_waiting_tool(s);  // under the default 40 ms
    add_waiting_tool(
        s, mcp::tool_info("hold", "x").with_deadline(std::chrono::hours(1)).with_action(mcp::action_class::read_only));
    s.add_tool(mcp::make_tool(mcp::tool_info("now", "x")
                                  .with_deadline(std::chrono::milliseconds(20))
                                  .with_action(mcp::action_class::read_only),
                              [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                  co_return ce::complete(1);
                              }))
        .value();
    mcp::memory_client c(s, io);
    c.initialize();
    c.send(R"({"jsonrpc":"2.0","id":"hold","method":"tools/call","params":{"name":"hold"}})");  // keeps the queue busy
    // Armed for `now`'s deadline (the earliest), which stays armed once `now` has finished.
    EXPECT_EQ(at(at(c.request("tools/call", {{"name", "now"}}), "result"), "isError"), false);
    const auto asked = std::chrono::steady_clock::now();
    auto r = c.request("tools/call", {{"name", "wait"}});  // due after the armed time
    EXPECT_EQ(at(first_error(r), "code"), "DEADLINE_EXCEEDED");
    EXPECT_GE(std::chrono::steady_clock::now() - asked, std::chrono::milliseconds(40));  // not before its own deadline
    for (const auto& m : c.received()) EXPECT_NE(at(m, "id"), "hold") << "the 1-hour call was answered";
}

TEST_F(ToolsCall, CallsInFlightPerConnectionAreBounded) {
    client->send(R"({"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow"}})");
    client->send(R"({"jsonrpc":"2.0","id":"s2","method":"tools/call","params":{"name":"slow"}})");
    auto third = call("echo");
    EXPECT_EQ(at(first_error(third), "code"), "TOO_MANY_CALLS_IN_FLIGHT");
    EXPECT_EQ(at(first_error(third), "limit"), 2);
    // Protocol requests are still served while tools run: no lock is held by a running tool.
    EXPECT_EQ(at(client->request("ping"), "result"), boost::json::object{});
    EXPECT_EQ(at(client->request("tools/list"), "result", "tools").as_array().size(), 3u);
    client->notify("notifications/cancelled", {{"requestId", "s1"}});
    client->run_ready();
    EXPECT_EQ(at(call("echo"), "result", "isError"), false);
    client->notify("notifications/cancelled", {{"requestId", "s2"}});
}

TEST_F(ToolsCall, ARequestIdStillRunningCannotBeReused) {
    client->send(R"({"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"slow"}})");
    auto r = client->exchange(R"({"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"echo"}})", "dup");
    EXPECT_EQ(at(r, "error", "code"), -32600);
    client->notify("notifications/cancelled", {{"requestId", "dup"}});
}

TEST_F(ToolsCall, ProgressIsSentOnlyWithATokenAndOnlyWhenItIncreases) {
    call("progress");
    EXPECT_TRUE(client->notifications("notifications/progress").empty());
    client->request("tools/call", {{"name", "progress"}, {"_meta", boost::json::object{{"progressToken", "tok"}}}});
    auto p = client->notifications("notifications/progress");
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(at(p.at(0), "params"),
              boost::json::parse(R"({"progressToken":"tok","progress":0.5,"total":1.0,"message":"half"})"));
    EXPECT_EQ(at(p.at(1), "params", "progress"), 1.0);
}

TEST_F(ToolsCall, LogMessagesRespectTheClientsLevel) {
    call("progress");
    auto msgs = client->notifications("notifications/message");
    ASSERT_EQ(msgs.size(), 1u);  // info by default: debug dropped, warning sent
    EXPECT_EQ(at(msgs.at(0), "params"),
              boost::json::parse(
                  R"({"level":"warning","logger":"progress","data":{"age_s":30,"message":"index is stale"}})"));
    client->request("logging/setLevel", {{"level", "debug"}});
    call("progress");
    EXPECT_EQ(client->notifications("notifications/message").size(), 3u);
    client->request("logging/setLevel", {{"level", "error"}});
    call("progress");
    EXPECT_EQ(client->notifications("notifications/message").size(), 3u);
}

TEST_F(ToolsCall, ContextCarriesThePrincipalAndTheSession) {
    auto data = at(envelope_of(call("whoami")), "data");
    EXPECT_EQ(
        data,
        boost::json::parse(
            R"({"principal":"alice","client":"memory-client","version":"2025-11-25","remaining_positive":true})"));
}

TEST_F(ToolsCall, ContentToolReturnsBlocksDirectly) {
    auto result = at(call("image"), "result");
    EXPECT_EQ(at(result, "content"),
              boost::json::parse(R"([{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}])"));
    EXPECT_EQ(at(result, "isError"), false);
    EXPECT_EQ(at(result, "structuredContent"), "<missing>");
}

TEST(ToolsCallVersions, Version20250326CarriesTheEnvelopeOnlyAsText) {
    auto log = std::make_shared<server_log>();
    boost::asio::io_context io;
    mcp::server s(test_options(log));
    add_fixture_tools(s, std::make_shared<shared_flags>());
    mcp::memory_client c(s, io);
    c.initialize("2025-03-26");
    auto result = at(c.request("tools/call", {{"name", "search"}}), "result");
    EXPECT_EQ(at(result, "structuredContent"), "<missing>");
    auto env = boost::json::parse(at(item(at(result, "content"), 0), "text").as_string());
    EXPECT_EQ(at(env, "complete"), false);
}

TEST_F(ToolsCall, ErrorEnvelopesMatchTheGoldenFiles) {
    auto dup = client->exchange(
        R"({"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"echo","arguments":{"limit":1,"limit":2}}})",
        1000);
    EXPECT_EQ(at(dup, "result"), candor::test::read_golden("mcp", "error_duplicate_key.json"))
        << "actual:\n"
        << boost::json::serialize(at(dup, "result"));
    auto depth = call("echo", {{"a", boost::json::parse(R"({"b":{"c":{}}})")}});
    EXPECT_EQ(at(depth, "result"), candor::test::read_golden("mcp", "error_depth_limit.json"))
        << "actual:\n"
        << boost::json::serialize(at(depth, "result"));
    auto internal = call("boom");
    EXPECT_EQ(at(internal, "result"), candor::test::read_golden("mcp", "error_internal.json"))
        << "actual:\n"
        << boost::json::serialize(at(internal, "result"));
}

// A call whose tool does not wait is answered before the connection handles the next request:
// a burst of requests does not keep every call's state (arguments, envelope, reply) alive until
// the whole burst has run. Once the calls are done, nothing keeps the io_context running.
TEST(ToolsCallOrder, ACallThatDoesNotWaitIsAnsweredBeforeTheNextRequestIsHandled) {
    auto log = std::make_shared<server_log>();
    mcp::server s(test_options(log));
    auto sent = std::make_shared<std::vector<std::string>>();
    auto answered_before = std::make_shared<std::vector<std::size_t>>();
    s
        .add_tool(mcp::make_tool(
            mcp::tool_info("count", "Counts the answers sent before it ran.").with_action(mcp::action_class::read_only),
            [sent, answered_before](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                answered_before->push_back(sent->size());
                co_return ce::complete(1);
            }))
        .value();
    boost::asio::io_context io;
    auto conn = s.connect(io.get_executor(), [sent](std::string text) { sent->push_back(std::move(text)); }, {});
    conn->receive(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    conn->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    io.run();
    io.restart();
    ASSERT_EQ(sent->size(), 1u);
    sent->clear();
    for (int i = 1; i <= 3; ++i)
        conn->receive(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                      R"(,"method":"tools/call","params":{"name":"count"}})");
    io.run();  // returns: no timer is left armed
    EXPECT_EQ(*answered_before, (std::vector<std::size_t>{0, 1, 2}));
    ASSERT_EQ(sent->size(), 3u);
    for (int i = 0; i < 3; ++i) {
        auto reply = boost::json::parse((*sent)[static_cast<std::size_t>(i)]);
        EXPECT_EQ(at(reply, "id"), i + 1);
        EXPECT_EQ(at(envelope_of(reply), "complete"), true);
    }
    conn->close();
    io.restart();
    io.run();
}
