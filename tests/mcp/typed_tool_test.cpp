// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/typed_tool.hpp>

#include "fixture.hpp"

#include <boost/describe/class.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace notes {

struct search_args {
    std::string query;
    int limit = 5;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))

inline void describe_contract(candor::contract::spec<search_args>& s) {
    s.field(&search_args::query).description("Words to look for").length(1, 200);
    s.field(&search_args::limit).description("How many notes at most").range(1, 10).optional();
}

// The README-sized typed tool: ten lines from struct to registration.
struct search_notes : candor::mcp::tool<search_args> {
    search_notes()
        : tool(candor::mcp::tool_info("search_notes", "Find notes containing words")
                   .with_action(candor::mcp::action_class::read_only)) {}
    boost::asio::awaitable<candor::envelope::envelope> call(search_args a, candor::mcp::call_context&) override {
        boost::json::array hits;
        for (int i = 0; i < 8; ++i) hits.emplace_back(a.query + " #" + std::to_string(i));
        if (static_cast<int>(hits.size()) <= a.limit) co_return candor::envelope::complete(std::move(hits));
        hits.resize(static_cast<std::size_t>(a.limit));
        co_return candor::envelope::partial(std::move(hits),
                                            {"RESULT_LIMIT_REACHED", "more notes matched", {{"limit", a.limit}}});
    }
};

}  // namespace notes

using namespace candor::test;

namespace {

class TypedTool : public ::testing::Test {
protected:
    std::shared_ptr<server_log> log = std::make_shared<server_log>();
    boost::asio::io_context ioc;
    mcp::server srv{test_options(log)};
    std::unique_ptr<mcp::memory_client> client;
    void SetUp() override {
        srv.add_tool(std::make_shared<notes::search_notes>()).value();
        client = std::make_unique<mcp::memory_client>(srv, ioc);
        client->initialize();
    }
    boost::json::value call(boost::json::object args) {
        return client->request("tools/call", {{"name", "search_notes"}, {"arguments", std::move(args)}});
    }
};

}  // namespace

TEST_F(TypedTool, InputSchemaIsGeneratedFromTheStruct) {
    auto d = srv.describe_tool("search_notes");
    auto props = at(d, "inputSchema", "properties");
    EXPECT_EQ(at(props, "query", "type"), "string");
    EXPECT_EQ(at(props, "query", "maxLength"), 200);
    EXPECT_EQ(at(props, "limit", "maximum"), 10);
    EXPECT_EQ(at(d, "inputSchema", "required"), boost::json::array{"query"});
}

TEST_F(TypedTool, ValidArgumentsReachTheHandlerTyped) {
    auto env = envelope_of(call({{"query", "tea"}, {"limit", 10}}));
    EXPECT_EQ(at(env, "complete"), true);
    EXPECT_EQ(at(env, "data").as_array().size(), 8u);
    auto partial = envelope_of(call({{"query", "tea"}}));  // limit defaults to 5
    EXPECT_EQ(at(partial, "complete"), false);
    EXPECT_EQ(at(partial, "data").as_array().size(), 5u);
    EXPECT_EQ(at(item(at(partial, "incomplete_reasons"), 0), "limit"), 5);
}

TEST_F(TypedTool, ContractIssuesAreToolErrorsWithPaths) {
    auto r = call({{"query", ""}, {"limit", 11}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    auto errors = at(envelope_of(r), "errors");
    ASSERT_TRUE(errors.is_array());
    EXPECT_EQ(errors.as_array().size(), 2u);  // every issue of the layer in one round trip
    for (const auto& e : errors.as_array()) {
        EXPECT_EQ(at(e, "layer"), "contract");
        EXPECT_TRUE(at(e, "path") == "/query" || at(e, "path") == "/limit") << e;
    }
}

TEST_F(TypedTool, MissingRequiredFieldIsAToolError) {
    auto r = call({{"limit", 3}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "layer"), "contract");
}

TEST_F(TypedTool, FunctionFormRegistersInOneLine) {
    srv.add_tool(mcp::make_typed_tool<notes::search_args>(
                     mcp::tool_info("count_notes", "Counts").with_action(mcp::action_class::read_only),
                     [](notes::search_args a, mcp::call_context&) -> awaitable<ce::envelope> {
                         co_return ce::complete(static_cast<std::int64_t>(a.query.size()));
                     }))
        .value();
    auto r = client->request("tools/call", {{"name", "count_notes"}, {"arguments", {{"query", "abc"}}}});
    EXPECT_EQ(at(envelope_of(r), "data"), 3);
}

TEST_F(TypedTool, ArgumentsCanBeCheckedOfflineWithoutRunningTheTool) {
    EXPECT_FALSE(srv.check_arguments("nope", "{}"));
    auto ok = srv.check_arguments("search_notes", R"({"query":"tea","limit":3})");
    ASSERT_TRUE(ok);
    EXPECT_TRUE(ok->empty());
    auto dup = srv.check_arguments("search_notes", R"({"query":"tea","query":"x"})");
    ASSERT_TRUE(dup && !dup->empty());
    EXPECT_EQ(dup->front().code, "DUPLICATE_KEY");
    EXPECT_EQ(dup->front().path, "/query");
    auto bad = srv.check_arguments("search_notes", R"({"limit":30})");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->size(), 2u);  // query missing, limit out of range
    auto not_object = srv.check_arguments("search_notes", "[1]");
    ASSERT_TRUE(not_object && !not_object->empty());
    EXPECT_EQ(not_object->front().code, "TYPE_MISMATCH");
    EXPECT_EQ(srv.describe_tools().size(), 1u);
}

TEST(TypedToolSchema, AContractSchemaThatIsNotAnObjectFailsLoudly) {
    EXPECT_THROW(mcp::detail::input_schema_from(boost::json::value(true)), std::logic_error);
    EXPECT_THROW(mcp::detail::input_schema_from(boost::json::array{}), std::logic_error);
    EXPECT_EQ(mcp::detail::input_schema_from(boost::json::object{{"type", "object"}}),
              (boost::json::object{{"type", "object"}}));
}

namespace {

ce::envelope count_words(const notes::search_args& a) {
    return ce::complete(static_cast<std::int64_t>(std::count(a.query.begin(), a.query.end(), ' ') + 1));
}

}  // namespace

TEST_F(TypedTool, AddToolDeducesTheArgumentsOfAPlainLambda) {
    mcp::add_tool(srv, mcp::tool_info("length", "Length of the query").with_action(mcp::action_class::read_only),
                  [](const notes::search_args& a) { return ce::complete(static_cast<std::int64_t>(a.query.size())); })
        .value();
    EXPECT_EQ(at(srv.describe_tool("length"), "inputSchema"), at(srv.describe_tool("search_notes"), "inputSchema"));
    EXPECT_EQ(at(envelope_of(client->request("tools/call", {{"name", "length"}, {"arguments", {{"query", "abcd"}}}})),
                 "data"),
              4);
    // The contract runs before the callable: an empty query never reaches it.
    auto r = client->request("tools/call", {{"name", "length"}, {"arguments", {{"query", ""}}}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
    EXPECT_EQ(at(first_error(r), "path"), "/query");
}

TEST_F(TypedTool, AddToolAwaitsACoroutineTakingItsArgumentsByReference) {
    mcp::add_tool(
        srv, mcp::tool_info("echo", "Echoes the query after a pause").with_action(mcp::action_class::read_only),
        [](const notes::search_args& a, mcp::call_context&) -> awaitable<ce::envelope> {
            // Suspend, so that the arguments must outlive the call that started it.
            boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, std::chrono::milliseconds(1));
            co_await t.async_wait(boost::asio::use_awaitable);
            co_return ce::complete(boost::json::string(a.query));
        })
        .value();
    auto r = client->request("tools/call", {{"name", "echo"}, {"arguments", {{"query", "still here"}}}});
    EXPECT_EQ(at(envelope_of(r), "data"), "still here");
}

TEST_F(TypedTool, AddToolTakesAFunctionAndPassesTheCallContext) {
    mcp::add_tool(srv, mcp::tool_info("words", "Counts words").with_action(mcp::action_class::read_only), &count_words)
        .value();
    mcp::add_tool(
        srv, mcp::tool_info("whoami", "The tool's own name").with_action(mcp::action_class::read_only),
        [](notes::search_args, mcp::call_context& ctx) { return ce::complete(boost::json::string(ctx.tool())); })
        .value();
    EXPECT_EQ(at(envelope_of(client->request("tools/call", {{"name", "words"}, {"arguments", {{"query", "a b c"}}}})),
                 "data"),
              3);
    EXPECT_EQ(
        at(envelope_of(client->request("tools/call", {{"name", "whoami"}, {"arguments", {{"query", "x"}}}})), "data"),
        "whoami");
}

TEST_F(TypedTool, AddToolWithAnObjectIsTheLowLevelPathCheckedByTheHandWrittenSchema) {
    mcp::add_tool(srv,
                  mcp::tool_info("raw", "Low-level")
                      .with_input_schema(
                          {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", {"n"}}})
                      .with_action(mcp::action_class::read_only),
                  [](const boost::json::object& a) { return ce::complete(a.at("n")); })
        .value();
    EXPECT_EQ(at(envelope_of(client->request("tools/call", {{"name", "raw"}, {"arguments", {{"n", 7}}}})), "data"), 7);
    auto r = client->request("tools/call", {{"name", "raw"}, {"arguments", boost::json::object{}}});
    EXPECT_EQ(at(at(r, "result"), "isError"), true);
}

TEST_F(TypedTool, AddToolReportsARefusedRegistration) {
    auto again = mcp::add_tool(
        srv, mcp::tool_info("search_notes", "Duplicate").with_action(mcp::action_class::read_only), &count_words);
    EXPECT_FALSE(again);
}
