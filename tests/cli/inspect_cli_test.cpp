// SPDX-License-Identifier: BSL-1.0
#include "cli/cli.hpp"

#include <candor/json/write.hpp>
#include <candor/ops/journal.hpp>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

using candor::test::candor_cli;
using candor::test::run;

namespace {

candor::mcp::call_record record(std::string tool, std::string status, std::string client, int minute) {
    candor::mcp::call_record r;
    r.time = std::chrono::system_clock::time_point(std::chrono::minutes(29'000'000 + minute));
    r.tool = std::move(tool);
    r.method = "tools/call";
    r.status = std::move(status);
    r.client_name = std::move(client);
    r.action_class = "read_only";
    r.duration = std::chrono::milliseconds(2);
    return r;
}

std::string line(const candor::mcp::call_record& r) {
    return candor::json::to_string(candor::ops::to_json(r)).value() + "\n";
}

// A small journal with every kind of line.
std::string sample_journal() {
    std::string j;
    auto partial = record("search", "partial", "agent-a", 0);
    partial.complete = false;
    partial.reason_codes = {"RESULT_LIMIT_REACHED"};
    j += line(partial);
    auto refused = record("search", "error", "agent-a", 1);
    refused.issues = {{"OUT_OF_RANGE", "/limit", candor::layer::contract, true}};
    j += line(refused);
    auto repaired = record("search", "complete", "agent-a", 2);
    repaired.complete = true;
    repaired.repair_attempt = 1;
    j += line(repaired);
    auto action = record("delete_note", "error", "agent-b", 3);
    action.action_class = "irreversible_write";
    action.issues = {{"EVIDENCE_MISSING", "/id", candor::layer::external, false}};
    action.evidence_verdict = "EVIDENCE_MISSING";
    j += line(action);
    auto proto = record("", "refused", "agent-b", 4);
    proto.what = candor::mcp::call_record::kind::protocol_refusal;
    proto.method = "other";
    proto.rpc_error = -32601;
    j += line(proto);
    j += "not json at all\n";
    return j;
}

// A walk of four pages (three paged, one complete), a listing with a real gap beside its next
// page, and an approval step: paging lowers no rate, and approvals are no argument issue.
std::string paged_journal() {
    std::string j;
    for (int page = 0; page < 3; ++page) {
        auto r = record("walk", "partial", "agent-a", page);
        r.complete = false;
        r.reason_codes = {"MORE_PAGES_AVAILABLE"};
        j += line(r);
    }
    auto last = record("walk", "complete", "agent-a", 3);
    last.complete = true;
    j += line(last);
    auto list = record("list", "partial", "agent-a", 4);
    list.complete = false;
    list.reason_codes = {"MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"};
    j += line(list);
    auto plan = record("archive", "error", "agent-a", 5);
    plan.action_class = "irreversible_write";
    plan.issues = {{"PLAN_TOKEN_REQUIRED", "", candor::layer::external, true}};
    j += line(plan);
    return j;
}

TEST(InspectCli, SummarizesCallsReasonsIssuesRepairsAndRefusals) {
    auto r = run(candor_cli() + " inspect - --json", sample_journal());
    ASSERT_EQ(r.status, 0) << r.out;
    auto s = boost::json::parse(r.out).as_object();
    EXPECT_EQ(s.at("records").to_number<std::uint64_t>(), 5u);
    EXPECT_EQ(s.at("skipped").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(s.at("tool_calls").to_number<std::uint64_t>(), 4u);
    EXPECT_EQ(s.at("protocol_refusals").to_number<std::uint64_t>(), 1u);
    const auto& tools = s.at("tools").as_array();
    ASSERT_EQ(tools.size(), 2u);
    EXPECT_EQ(tools[1].at("tool"), "search");
    EXPECT_EQ(tools[1].at("complete").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(tools[1].at("partial").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(tools[1].at("error").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(s.at("reasons").as_array().at(0).at("code"), "RESULT_LIMIT_REACHED");
    EXPECT_EQ(s.at("issues_by_client").as_array().at(0).at("client"), "agent-a");
    const auto& repair = s.at("repair").as_object();
    EXPECT_EQ(repair.at("repairable_refusals").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(repair.at("attempts").to_number<std::uint64_t>(), 1u);
    EXPECT_DOUBLE_EQ(repair.at("success_rate").as_double(), 1.0);
    EXPECT_EQ(s.at("refused_actions").as_array().at(0).at("code"), "EVIDENCE_MISSING");
    EXPECT_EQ(s.at("protocol").as_array().at(0).at("refusal"), "other -32601");
}

TEST(InspectCli, PagingIsNoGapAndGatesAreNoArgumentIssues) {
    auto r = run(candor_cli() + " inspect - --json", paged_journal());
    ASSERT_EQ(r.status, 0) << r.out;
    auto s = boost::json::parse(r.out).as_object();
    std::map<std::string, boost::json::object> tools;
    for (const auto& t : s.at("tools").as_array()) tools[std::string(t.at("tool").as_string())] = t.as_object();
    EXPECT_EQ(tools["walk"].at("paged").to_number<int>(), 3);
    EXPECT_EQ(tools["walk"].at("incomplete").to_number<int>(), 0);
    EXPECT_DOUBLE_EQ(tools["walk"].at("complete_rate").as_double(), 1.0);
    EXPECT_EQ(tools["list"].at("incomplete").to_number<int>(), 1);
    EXPECT_DOUBLE_EQ(tools["list"].at("complete_rate").as_double(), 0.0);
    const auto& reasons = s.at("reasons").as_array();
    ASSERT_EQ(reasons.size(), 1u);
    EXPECT_EQ(reasons[0].at("code"), "VISIBILITY_RESTRICTED");
    EXPECT_TRUE(s.at("issues_by_client").as_array().empty());
    const auto& other = s.at("other_issues").as_array();
    ASSERT_EQ(other.size(), 1u);
    EXPECT_EQ(other[0].at("group"), "approval");
    EXPECT_EQ(other[0].at("code"), "PLAN_TOKEN_REQUIRED");
}

TEST(InspectCli, TablesNameEverySection) {
    auto r = run(candor_cli() + " inspect -", sample_journal());
    ASSERT_EQ(r.status, 0);
    for (const char* title : {"Calls per tool", "Top reason codes of real gaps", "Top argument issue codes by client",
                              "External checks, gates and server failures", "Repairs", "Refused actions and why",
                              "Refused protocol messages"})
        EXPECT_NE(r.out.find(title), std::string::npos) << title;
    EXPECT_NE(r.out.find("EVIDENCE_MISSING"), std::string::npos);
}

TEST(InspectCli, FiltersByToolAndTime) {
    const auto j = sample_journal();
    auto by_tool = boost::json::parse(run(candor_cli() + " inspect - --json --tool delete_note", j).out).as_object();
    EXPECT_EQ(by_tool.at("tool_calls").to_number<std::uint64_t>(), 1u);
    // The third line's minute onwards.
    const auto third =
        candor::ops::format_time(std::chrono::system_clock::time_point(std::chrono::minutes(29'000'002)));
    auto since = boost::json::parse(run(candor_cli() + " inspect - --json --since " + third, j).out).as_object();
    EXPECT_EQ(since.at("records").to_number<std::uint64_t>(), 3u);
}

TEST(InspectCli, AggregatesStayBoundedOnAJournalWithEndlessDistinctNames) {
    std::string j;
    for (int i = 0; i < 20'000; ++i) {
        auto r = record("tool" + std::to_string(i), "error", "client" + std::to_string(i), i % 60);
        r.issues = {{"CODE_" + std::to_string(i), "", candor::layer::contract, true}};
        j += line(r);
    }
    j += std::string(2u << 20, 'x') + "\n";  // an over-long line is skipped, not buffered whole
    auto r = run(candor_cli() + " inspect - --json", j);
    ASSERT_EQ(r.status, 0);
    auto s = boost::json::parse(r.out).as_object();
    EXPECT_EQ(s.at("records").to_number<std::uint64_t>(), 20'000u);
    EXPECT_EQ(s.at("skipped").to_number<std::uint64_t>(), 1u);
    const auto& tools = s.at("tools").as_array();
    EXPECT_LE(tools.size(), 1000u);
    bool other = false;
    for (const auto& t : tools) other = other || t.at("tool") == "(other)";
    EXPECT_TRUE(other);
    EXPECT_LE(s.at("issues_by_client").as_array().size(), 15u);
}

TEST(InspectCli, UsageErrors) {
    EXPECT_EQ(run(candor_cli() + " inspect").status, 2);
    EXPECT_EQ(run(candor_cli() + " inspect - --bogus").status, 2);
    EXPECT_EQ(run(candor_cli() + " inspect /nonexistent/journal").status, 1);
}

}  // namespace
