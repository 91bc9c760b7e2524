// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/server.hpp>

#include "fixture.hpp"
#include "golden.hpp"

#include <set>

using namespace candor::test;

namespace {

class ToolsList : public server_fixture {
protected:
    // Every page of tools/list, concatenated.
    boost::json::array list_all(std::size_t* pages = nullptr) {
        boost::json::array all;
        std::optional<std::string> cursor;
        std::size_t n = 0;
        do {
            boost::json::object params;
            if (cursor) params["cursor"] = *cursor;
            auto r = at(client->request("tools/list", params), "result");
            const auto tools = at(r, "tools");
            if (const auto* a = tools.if_array())
                for (const auto& t : *a) all.push_back(t);
            auto next = at(r, "nextCursor");
            cursor.reset();
            if (next.is_string() && next != "<missing>") cursor = std::string(next.get_string());
            ++n;
        } while (cursor && n < 100);
        if (pages) *pages = n;
        return all;
    }
};

}  // namespace

TEST_F(ToolsList, PaginatesWithAnOpaqueCursorInNameOrder) {
    client->initialize();
    std::size_t pages = 0;
    auto all = list_all(&pages);
    EXPECT_EQ(pages, 4u);  // 11 tools, 3 per page
    std::vector<std::string> names;
    for (const auto& t : all) names.emplace_back(at(t, "name").as_string());
    EXPECT_EQ(names.size(), 11u);
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST_F(ToolsList, InvalidCursorIsInvalidParams) {
    client->initialize();
    EXPECT_EQ(at(client->request("tools/list", {{"cursor", "not a cursor!"}}), "error", "code"), -32602);
    auto first = at(client->request("tools/list"), "result", "nextCursor");
    ASSERT_TRUE(first.is_string());
    std::string tampered(first.get_string());
    tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
    EXPECT_EQ(at(client->request("tools/list", {{"cursor", tampered}}), "error", "code"), -32602);
    EXPECT_EQ(at(client->request("tools/list", {{"cursor", 3}}), "error", "code"), -32602);
}

TEST_F(ToolsList, CursorSurvivesToolsAddedBetweenPages) {
    client->initialize();
    auto next = at(client->request("tools/list"), "result", "nextCursor");
    srv.add_tool(mcp::make_tool(mcp::tool_info("aaa_first", "x").with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    co_return ce::complete(1);
                                }))
        .value();
    auto r = at(client->request("tools/list", {{"cursor", next}}), "result");
    EXPECT_EQ(at(item(at(r, "tools"), 0), "name"), "image");  // after boom, delete_note, echo
}

TEST_F(ToolsList, ListChangedIsSentToInitializedClients) {
    boost::asio::io_context io;
    mcp::memory_client fresh(srv, io);  // never initialized
    client->initialize();
    srv.add_tool(mcp::make_tool(mcp::tool_info("late", "x").with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    co_return ce::complete(1);
                                }))
        .value();
    client->run_ready();
    fresh.run_ready();
    EXPECT_EQ(client->notifications("notifications/tools/list_changed").size(), 1u);
    EXPECT_TRUE(fresh.notifications().empty());
    EXPECT_TRUE(srv.remove_tool("late"));
    EXPECT_FALSE(srv.remove_tool("late"));
    client->run_ready();
    EXPECT_EQ(client->notifications("notifications/tools/list_changed").size(), 2u);
}

TEST_F(ToolsList, RegistrationValidatesNames) {
    auto fn = [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
        co_return ce::complete(1);
    };
    EXPECT_EQ(srv.add_tool(mcp::make_tool(mcp::tool_info("").with_action(mcp::action_class::read_only), fn)).error(),
              mcp::registration_error::invalid_name);
    EXPECT_EQ(
        srv.add_tool(mcp::make_tool(mcp::tool_info("has space").with_action(mcp::action_class::read_only), fn)).error(),
        mcp::registration_error::invalid_name);
    EXPECT_EQ(
        srv.add_tool(mcp::make_tool(mcp::tool_info("slash/no").with_action(mcp::action_class::read_only), fn)).error(),
        mcp::registration_error::invalid_name);
    EXPECT_EQ(srv.add_tool(mcp::make_tool(
                               mcp::tool_info(std::string(129, 'a')).with_action(mcp::action_class::read_only), fn))
                  .error(),
              mcp::registration_error::invalid_name);
    EXPECT_TRUE(srv.add_tool(
        mcp::make_tool(mcp::tool_info(std::string(128, 'a')).with_action(mcp::action_class::read_only), fn)));
    EXPECT_TRUE(
        srv.add_tool(mcp::make_tool(mcp::tool_info("ns.tool-name_1").with_action(mcp::action_class::read_only), fn)));
    EXPECT_EQ(
        srv.add_tool(mcp::make_tool(mcp::tool_info("echo").with_action(mcp::action_class::read_only), fn)).error(),
        mcp::registration_error::duplicate_name);
    EXPECT_EQ(srv.add_tool(nullptr).error(), mcp::registration_error::null_handler);
}

TEST_F(ToolsList, AnnotationsFollowTheActionClass) {
    auto read = srv.describe_tool("echo");
    EXPECT_EQ(at(read, "annotations"),
              boost::json::parse(R"({"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true})"));
    auto write = srv.describe_tool("delete_note");
    EXPECT_EQ(at(write, "annotations"),
              boost::json::parse(R"({"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false})"));
    EXPECT_EQ(srv.describe_tool("nope"), nullptr);
}

TEST_F(ToolsList, AToolThatDoesNotDeclareWhatItDoesIsTakenAsDestructive) {
    // MCP's reading of a tool without annotations: a write that forgets to say so is never
    // advertised as read-only.
    srv.add_tool(mcp::make_tool(mcp::tool_info("undeclared", "Says nothing about what it does."),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    co_return ce::complete(1);
                                }))
        .value();
    EXPECT_EQ(at(srv.describe_tool("undeclared"), "annotations"),
              boost::json::parse(R"({"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false})"));
    EXPECT_EQ(srv.find_tool("undeclared")->info().action, mcp::action_class::irreversible_write);
}

TEST_F(ToolsList, OutputSchemaIsTheEnvelopeAroundTheDataSchema) {
    auto echo = srv.describe_tool("echo");
    EXPECT_EQ(at(echo, "outputSchema", "properties").as_object().at("data"),
              boost::json::parse(R"({"type":"object"})"));
    EXPECT_EQ(at(srv.describe_tool("image"), "outputSchema"), "<missing>");  // content tools have none
}

TEST_F(ToolsList, Version20250326HasNoTitleOrOutputSchema) {
    client->initialize("2025-03-26");
    auto all = list_all();
    for (const auto& t : all) {
        EXPECT_EQ(at(t, "outputSchema"), "<missing>");
        EXPECT_EQ(at(t, "title"), "<missing>");
    }
    auto echo = std::find_if(all.begin(), all.end(), [](const auto& t) { return at(t, "name") == "echo"; });
    ASSERT_NE(echo, all.end());
    EXPECT_EQ(at(*echo, "annotations", "title"), "Echo");
}

TEST_F(ToolsList, MatchesTheGoldenFile) {
    // Four tools that cover the shapes: titled with a data schema, a write, untitled with an
    // array schema, a content tool.
    for (std::string name : {"boom", "liar", "nan", "progress", "quick_deadline", "slow", "whoami"})
        ASSERT_TRUE(srv.remove_tool(name));
    client->initialize();
    const boost::json::value actual = boost::json::object{{"tools", list_all()}};
    const auto golden = candor::test::read_golden("mcp", "tools_list.json");
    EXPECT_EQ(actual, golden) << "actual tools/list (update tests/data/mcp/tools_list.json deliberately):\n"
                              << boost::json::serialize(actual);
}
