// SPDX-License-Identifier: BSL-1.0
// GCC 12 at -O1 with the sanitizers reports "may be used uninitialized" inside libstdc++'s
// <regex>.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <candor/ops/admin.hpp>

#include "ops/ops_fixture.hpp"

#include "transport/http_client.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <stdexcept>

namespace {

namespace http = boost::beast::http;
using namespace candor;

constexpr std::string_view token = "ops-secret-123";

using reply = test::http_reply;

reply fetch(std::uint16_t port, http::verb verb, const std::string& target,
            std::map<std::string, std::string> headers = {}, const std::string& body = {}) {
    return test::http_fetch(port, verb, target, headers, body);
}

reply get(std::uint16_t port, const std::string& target, std::map<std::string, std::string> headers = {}) {
    return fetch(port, http::verb::get, target, std::move(headers));
}

class AdminHttp : public ::testing::Test {
protected:
    void start(bool metrics, bool console) {
        srv_ = std::make_unique<mcp::server>(test::quiet_options());
        test::add_marker_tools(*srv_);
        ops::admin_options admin;
        if (metrics) {
            admin.metrics = std::make_shared<ops::call_metrics>();
            srv_->add_observer(admin.metrics);
        }
        if (console) {
            admin.console = std::make_shared<ops::console>();
            admin.console_token = std::string(token);
            srv_->add_observer(admin.console);
        }
        transport::http_options opts;
        opts.threads = 2;
        if (metrics || console) opts.admin = ops::make_admin_handler(admin);
        http_ = std::make_unique<transport::http_server>(*srv_, opts);
        ASSERT_TRUE(http_->start());
        port_ = http_->port();
    }
    void TearDown() override {
        if (http_) http_->stop();
    }

    // initialize + one partial call of `search` over the real endpoint.
    void make_a_call() {
        const std::map<std::string, std::string> json{{"Content-Type", "application/json"},
                                                      {"Accept", "application/json, text/event-stream"}};
        auto init = fetch(
            port_, http::verb::post, "/mcp", json,
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ops-test","version":"9"}}})");
        ASSERT_EQ(init.status, 200u);
        auto h = json;
        h["Mcp-Session-Id"] = init.headers["Mcp-Session-Id"];
        fetch(port_, http::verb::post, "/mcp", h, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        auto call = fetch(
            port_, http::verb::post, "/mcp", h,
            R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"q","limit":2}}})");
        ASSERT_EQ(call.status, 200u) << call.body;
    }

    std::unique_ptr<mcp::server> srv_;
    std::unique_ptr<transport::http_server> http_;
    std::uint16_t port_ = 0;
};

TEST_F(AdminHttp, MetricsAreServedInTheTextFormat) {
    start(true, false);
    make_a_call();
    auto r = get(port_, "/metrics");
    EXPECT_EQ(r.status, 200u);
    EXPECT_EQ(r.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_NE(r.body.find(R"(candor_tool_calls_total{tool="search",status="partial",client="ops-test"} 1)"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("candor_sessions 1"), std::string::npos);
}

TEST_F(AdminHttp, ConsoleIsNotFoundWithoutAToken) {
    start(true, false);
    EXPECT_EQ(get(port_, "/ops").status, 404u);
    EXPECT_EQ(get(port_, "/ops?token=" + std::string(token)).status, 404u);
    EXPECT_EQ(get(port_, "/ops/feed").status, 404u);
}

TEST_F(AdminHttp, MetricsAreNotFoundWhenTurnedOff) {
    start(false, true);
    EXPECT_EQ(get(port_, "/metrics").status, 404u);
}

TEST_F(AdminHttp, ConsoleWantsItsOwnToken) {
    start(true, true);
    EXPECT_EQ(get(port_, "/ops").status, 401u);
    EXPECT_EQ(get(port_, "/ops?token=wrong-token-1").status, 401u);
    EXPECT_EQ(get(port_, "/ops/feed", {{"Authorization", "Bearer wrong-token-1"}}).status, 401u);
    // The token in a query opens the page only (it sets the cookie); the feed wants the cookie
    // or the header.
    EXPECT_EQ(get(port_, "/ops/feed?token=" + std::string(token)).status, 401u);
    EXPECT_EQ(get(port_, "/ops/feed", {{"Authorization", "Bearer " + std::string(token)}}).status, 200u);
}

TEST_F(AdminHttp, FirstLoadWithTheTokenSetsAnHttpOnlyCookieThatOpensTheFeed) {
    start(true, true);
    make_a_call();
    auto page = get(port_, "/ops?token=" + std::string(token));
    ASSERT_EQ(page.status, 200u);
    EXPECT_EQ(page.headers["Content-Type"], "text/html; charset=utf-8");
    const auto cookie = page.headers["Set-Cookie"];
    EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
    EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
    EXPECT_NE(cookie.find("Path=/ops"), std::string::npos);
    auto feed = get(port_, "/ops/feed?after=0", {{"Cookie", cookie.substr(0, cookie.find(';'))}});
    ASSERT_EQ(feed.status, 200u);
    auto f = boost::json::parse(feed.body).as_object();
    ASSERT_FALSE(f.at("calls").as_array().empty());
    const auto& call = f.at("calls").as_array().back().as_object();
    EXPECT_EQ(call.at("tool"), "search");
    EXPECT_EQ(call.at("status"), "partial");
    // Who called, in which session: the console is for operators (and behind its own token).
    EXPECT_EQ(call.at("session").as_string().size(), 32u);
    EXPECT_EQ(call.at("principal"), "");
    EXPECT_EQ(call.at("outcome"), "incomplete");
    const auto& meta = call.at("metadata").as_object();
    EXPECT_FALSE(meta.contains("data"));
    EXPECT_EQ(meta.at("incomplete_reasons").as_array().at(0).at("code"), "RESULT_LIMIT_REACHED");
    EXPECT_FALSE(meta.at("incomplete_reasons").as_array().at(0).as_object().contains("message"));
    // Later polls only get what is new.
    auto later = get(port_, "/ops/feed?after=" + std::to_string(f.at("seq").to_number<std::uint64_t>()),
                     {{"Authorization", "Bearer " + std::string(token)}});
    EXPECT_TRUE(boost::json::parse(later.body).at("calls").as_array().empty());
}

TEST_F(AdminHttp, PageLoadsNothingFromElsewhere) {
    start(false, true);
    auto page = get(port_, "/ops", {{"Authorization", "Bearer " + std::string(token)}});
    ASSERT_EQ(page.status, 200u);
    EXPECT_FALSE(std::regex_search(page.body, std::regex(R"((src|href)\s*=)"))) << "external asset reference";
    EXPECT_FALSE(std::regex_search(page.body, std::regex(R"(https?://(?!www\.w3\.org/2000/svg))")));
    EXPECT_NE(page.headers["Content-Security-Policy"].find("default-src 'none'"), std::string::npos);
}

TEST_F(AdminHttp, AdminPathsGetTheHostCheck) {
    start(true, true);
    EXPECT_EQ(get(port_, "/metrics", {{"Host", "evil.example:80"}}).status, 404u);
}

TEST(Console, KeepsABoundedRingOfRecentCalls) {
    ops::console con({.recent_calls = 5, .max_keys = 4});
    for (int i = 0; i < 20; ++i) {
        mcp::call_record r;
        r.tool = "tool" + std::to_string(i);
        r.status = "complete";
        r.complete = true;
        con.on_record(r);
    }
    const auto feed = con.feed();
    EXPECT_EQ(feed.at("calls").as_array().size(), 5u);
    EXPECT_EQ(feed.at("seq").to_number<std::uint64_t>(), 20u);
    const auto& tools = feed.at("tools").as_array();
    EXPECT_LE(tools.size(), 4u);
    EXPECT_TRUE(std::any_of(tools.begin(), tools.end(), [](const auto& t) { return t.at("tool") == "other"; }));
}

mcp::call_record console_record(std::string tool, std::string status, std::vector<std::string> reasons = {},
                                std::vector<mcp::issue_record> issues = {}) {
    mcp::call_record r;
    r.tool = std::move(tool);
    r.status = std::move(status);
    r.principal = "alice";
    r.session = "s-1";
    r.reason_codes = std::move(reasons);
    r.issues = std::move(issues);
    return r;
}

const boost::json::object& tool_row(const boost::json::object& feed, std::string_view tool) {
    for (const auto& t : feed.at("tools").as_array())
        if (t.at("tool").as_string() == tool) return t.as_object();
    throw std::runtime_error("no row for " + std::string(tool));
}

TEST(Console, APagedWalkIsCountedApartFromRealGaps) {
    ops::console con;
    con.on_record(console_record("walk", "complete"));
    for (int page = 0; page < 4; ++page) con.on_record(console_record("walk", "partial", {"MORE_PAGES_AVAILABLE"}));
    con.on_record(console_record("walk", "complete"));
    con.on_record(console_record("list", "partial", {"MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"}));
    const auto feed = con.feed();
    const auto& walk = tool_row(feed, "walk");
    EXPECT_EQ(walk.at("complete").to_number<int>(), 2);
    EXPECT_EQ(walk.at("paged").to_number<int>(), 4);
    EXPECT_EQ(walk.at("incomplete").to_number<int>(), 0);
    EXPECT_EQ(tool_row(feed, "list").at("incomplete").to_number<int>(), 1);
    // The reasons table lists real gaps only; paging has its own.
    const auto& reasons = feed.at("reasons").as_array();
    ASSERT_EQ(reasons.size(), 1u);
    EXPECT_EQ(reasons[0].at("code"), "VISIBILITY_RESTRICTED");
    const auto& paging = feed.at("paging").as_array();
    ASSERT_EQ(paging.size(), 2u);
    EXPECT_EQ(paging[0].at("tool"), "walk");
    EXPECT_EQ(paging[0].at("count").to_number<int>(), 4);
    const auto& minute = feed.at("timeline").as_array().back().as_object();
    EXPECT_EQ(minute.at("calls").to_number<int>(), 7);
    EXPECT_EQ(minute.at("paged").to_number<int>(), 4);
    EXPECT_EQ(minute.at("incomplete").to_number<int>(), 1);
    // Who called is on every recent call.
    const auto& last = feed.at("calls").as_array().back().as_object();
    EXPECT_EQ(last.at("principal"), "alice");
    EXPECT_EQ(last.at("session"), "s-1");
    EXPECT_EQ(last.at("outcome"), "incomplete");
}

TEST(Console, ResultsCutToTheirByteBudgetHaveATableOfTheirOwn) {
    ops::console con;
    con.on_record(console_record("search", "partial", {"RESULT_SIZE_LIMIT"}));
    con.on_record(console_record("search", "partial", {"RESULT_SIZE_LIMIT"}));
    auto article = console_record("read_article", "partial", {"RESULT_SIZE_LIMIT"});
    article.warning_codes = {"FIELD_TRUNCATED"};
    con.on_record(article);
    con.on_record(console_record("search", "partial", {"MORE_PAGES_AVAILABLE"}));
    const auto feed = con.feed();
    const auto& cuts = feed.at("size_cuts").as_array();
    ASSERT_EQ(cuts.size(), 3u);
    EXPECT_EQ(cuts[0].at("tool"), "search");
    EXPECT_EQ(cuts[0].at("code"), "RESULT_SIZE_LIMIT");
    EXPECT_EQ(cuts[0].at("count").to_number<int>(), 2);
    const bool truncated = std::any_of(cuts.begin(), cuts.end(), [](const auto& c) {
        return c.at("tool") == "read_article" && c.at("code") == "FIELD_TRUNCATED";
    });
    EXPECT_TRUE(truncated);
    // Paging stays apart: a page with more to follow is not a cut.
    EXPECT_EQ(feed.at("paging").as_array().size(), 1u);
}

TEST(Console, GatesAndServerFailuresAreNotArgumentIssues) {
    ops::console con;
    con.on_record(console_record("archive", "error", {}, {{"PLAN_TOKEN_REQUIRED", "", layer::external, true}}));
    con.on_record(console_record("archive", "error", {}, {{"EVIDENCE_MISSING", "", layer::external, false}}));
    con.on_record(console_record("search", "error", {}, {{"INTERNAL_ERROR", "", layer::business, false}}));
    con.on_record(console_record("search", "error", {}, {{"OUT_OF_RANGE", "/page_size", layer::contract, true}}));
    const auto feed = con.feed();
    const auto& issues = feed.at("issues").as_array();
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].at("code"), "OUT_OF_RANGE");
    std::map<std::string, std::string> other;
    for (const auto& i : feed.at("other_issues").as_array())
        other[std::string(i.at("code").as_string())] = i.at("group").as_string();
    EXPECT_EQ(other, (std::map<std::string, std::string>{{"EVIDENCE_MISSING", "evidence"},
                                                         {"INTERNAL_ERROR", "server"},
                                                         {"PLAN_TOKEN_REQUIRED", "approval"}}));
}

TEST(Console, PageEmbedsTheFeedWithoutClosingItsScript) {
    boost::json::object feed{{"seq", 1}, {"x", "</script><script>alert(1)</script>"}};
    const auto page = ops::console::page(feed);
    EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
    EXPECT_NE(page.find("\\u003c/script>"), std::string::npos);
}

}  // namespace
