// SPDX-License-Identifier: BSL-1.0
#include <candor/app/command_line.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace app = candor::app;

namespace {

int run_with(candor::mcp::server& srv, std::vector<std::string> args, const app::app_options& opts) {
    std::vector<char*> argv;
    static std::string self = "server";
    argv.push_back(self.data());
    for (auto& a : args) argv.push_back(a.data());
    return app::run(srv, static_cast<int>(argv.size()), argv.data(), opts);
}

candor::mcp::server_options quiet() {
    candor::mcp::server_options so;
    so.log = {};
    return so;
}

}  // namespace

TEST(CommandLine, PrepareRunsAfterEveryOptionIsApplied) {
    candor::mcp::server srv(quiet());
    std::string db;
    std::string seen_by_prepare;
    app::app_options o;
    o.options = {{"--db", "PATH", "database", [&](std::string_view v) {
                      db = std::string(v);
                      return true;
                  }}};
    o.prepare = [&] {
        seen_by_prepare = db;
        return true;
    };
    // `check` of an unknown tool is a usage error (2), but only after prepare ran.
    EXPECT_EQ(run_with(srv, {"check", "no_such_tool", "-", "--db", "/tmp/x.db"}, o), 2);
    EXPECT_EQ(seen_by_prepare, "/tmp/x.db");
}

TEST(CommandLine, FailedPrepareExitsOneWithoutRunningTheCommand) {
    candor::mcp::server srv(quiet());
    int prepared = 0;
    app::app_options o;
    o.prepare = [&] {
        ++prepared;
        return false;
    };
    EXPECT_EQ(run_with(srv, {"tools"}, o), 1);
    EXPECT_EQ(prepared, 1);
}

TEST(CommandLine, HelpAndUsageErrorsDoNotPrepare) {
    candor::mcp::server srv(quiet());
    int prepared = 0;
    app::app_options o;
    o.prepare = [&] {
        ++prepared;
        return true;
    };
    testing::internal::CaptureStdout();
    EXPECT_EQ(run_with(srv, {"--help"}, o), 0);
    const auto help = testing::internal::GetCapturedStdout();
    EXPECT_NE(help.find("--stdio"), std::string::npos);
    EXPECT_EQ(run_with(srv, {"--bogus"}, o), 2);
    EXPECT_EQ(run_with(srv, {"--stdio", "--http", "1"}, o), 2);
    EXPECT_EQ(prepared, 0);
}

TEST(CommandLine, OAuthSettingsAreCheckedBeforeServing) {
    candor::mcp::server srv(quiet());
    const app::app_options o;
    // Without --http, with --tokens, without a resource, with an insecure issuer: no server starts.
    EXPECT_EQ(run_with(srv, {"--stdio", "--oauth-issuer", "https://idp.example.com"}, o), 2);
    const std::string tokens = testing::TempDir() + "oauth-tokens.txt";
    std::ofstream(tokens) << "secret alice\n";
    EXPECT_EQ(
        run_with(srv, {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com", "--tokens", tokens}, o),
        2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com"}, o), 1);
    EXPECT_EQ(run_with(srv,
                       {"--http", "127.0.0.1:0", "--oauth-issuer", "http://idp.example.com", "--oauth-resource",
                        "https://mcp.example.com/mcp"},
                       o),
              1);
    EXPECT_EQ(run_with(srv,
                       {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com", "--oauth-resource",
                        "https://mcp.example.com/mcp", "--oauth-jwks", "/nonexistent/jwks.json"},
                       o),
              1);
}
