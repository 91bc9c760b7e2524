// SPDX-License-Identifier: BSL-1.0
// candor walk, call and tools against the helpdesk started over stdio: a whole walk says
// COMPLETE and exits 0; a walk its budget ended says why, where to go on, and exits 1.
#include "cli/cli.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace candor::test {
namespace {

class RemoteCli : public ::testing::Test {
protected:
    std::string db =
        (std::filesystem::temp_directory_path() / ("candor-remote-cli-" + std::to_string(::getpid()) + ".db")).string();
    void SetUp() override { remove(); }
    void TearDown() override { remove(); }
    void remove() const {
        std::error_code ec;
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix, ec);
    }
    std::string server() const {
        return "-- " + std::string(CANDOR_BINARY_DIR) + "/examples/helpdesk/helpdesk --db " + db + " --stdio";
    }
    run_result candor(const std::string& args) const {
        return run(candor_cli() + " " + args + " --quiet-server " + server());
    }
};

TEST_F(RemoteCli, AWholeWalkSaysCompleteAndExitsZero) {
    auto r = candor("walk --max-calls 1000 list_service_accounts '{}'");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("COMPLETE: every page read"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("reasons: MORE_PAGES_AVAILABLE"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("snapshot token: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("next: proceed"), std::string::npos) << r.out;
}

TEST_F(RemoteCli, AWalkItsBudgetEndedSaysWhyAndWhereToGoOn) {
    auto r = candor("walk --json --max-calls 2 list_service_accounts '{}'");
    EXPECT_EQ(r.status, 1) << r.out;
    auto summary = boost::json::parse(r.out).as_object();
    EXPECT_EQ(summary.at("complete"), false);
    EXPECT_EQ(summary.at("calls"), 2);
    EXPECT_EQ(summary.at("reasons").as_array().back().at("code"), "CLIENT_PAGE_LIMIT");
    EXPECT_TRUE(summary.at("resume_cursor").is_string());
    EXPECT_TRUE(summary.at("snapshot_token").is_null());
    EXPECT_EQ(summary.at("next"), "continue_search");
}

TEST_F(RemoteCli, ItemsGoToStdoutOnePerLine) {
    auto r = candor("walk --items --max-calls 1000 list_service_accounts '{}'");
    EXPECT_EQ(r.status, 0);
    std::size_t lines = 0;
    for (char c : r.out) lines += c == '\n';
    EXPECT_GT(lines, 50u);
    EXPECT_EQ(r.out.find("COMPLETE"), std::string::npos);  // the summary went to stderr
}

TEST_F(RemoteCli, CallPrintsTheResultAndExitsOneOnAToolError) {
    auto ok = candor("call search_tickets '{\"page_size\": 2}'");
    EXPECT_EQ(ok.status, 0) << ok.out;
    EXPECT_TRUE(boost::json::parse(ok.out).as_object().contains("structuredContent"));
    auto bad = candor("call read_article '{\"id\": \"no such article\"}'");
    EXPECT_EQ(bad.status, 1) << bad.out;
    auto tools = candor("tools");
    EXPECT_EQ(tools.status, 0);
    EXPECT_NE(tools.out.find("protocol 2026-07-28"), std::string::npos) << tools.out;
    EXPECT_NE(tools.out.find("search_tickets\t"), std::string::npos);
}

TEST(RemoteCliUsage, MistakesAreUsageErrorsAndNoServerIsThree) {
    const auto cli = candor_cli();
    EXPECT_EQ(run(cli + " walk").status, 2);
    EXPECT_EQ(run(cli + " walk tool").status, 2);  // no server
    EXPECT_EQ(run(cli + " walk tool '[1]' -- /bin/true").status, 2);
    EXPECT_EQ(run(cli + " walk --max-calls 0 tool -- /bin/true").status, 2);
    EXPECT_EQ(run(cli + " call --url http://127.0.0.1:1/mcp -- /bin/true").status, 2);  // two servers
    EXPECT_EQ(run(cli + " walk --help").status, 0);
    EXPECT_EQ(run(cli + " call tool --quiet-server -- /nonexistent/server").status, 3);
    EXPECT_EQ(run(cli + " tools --url http://127.0.0.1:1/mcp").status, 3);
}

}  // namespace
}  // namespace candor::test
