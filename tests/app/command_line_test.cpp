// SPDX-License-Identifier: BSL-1.0
#include <candor/app/command_line.hpp>

#include <candor/http/command_line.hpp>
#include <candor/ops/command_line.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
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

// The options of a server with --http; an extension records one run's flags, so a fresh one.
app::app_options with_http() {
    app::app_options o;
    o.extensions = {std::make_shared<app::http_command_line>()};
    return o;
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

namespace {

// An extension that records what the command line asked of it.
struct recording_extension : app::command_line_extension {
    bool serve_flag_seen = false;
    std::string value;
    std::string refuse_with;
    bool start_ok = true;
    std::vector<std::string> calls;

    std::vector<app::extra_option> flags() override {
        return {{"--serve-here", "", "", [this](std::string_view) { return serve_flag_seen = true; }},
                {"--value", "V", "", [this](std::string_view v) {
                     value = std::string(v);
                     return v != "bad" || app::refuse("--value refuses 'bad'");
                 }}};
    }
    std::string help() const override { return "  --serve-here           serve here\n"; }
    std::string synopsis() const override { return "--serve-here"; }
    bool serving() const override { return serve_flag_seen; }
    std::string check(bool serving) override {
        calls.push_back(serving ? "check serving" : "check offline");
        return refuse_with;
    }
    bool start(candor::mcp::server&) override {
        calls.push_back("start");
        return start_ok;
    }
    int serve(candor::mcp::server&) override {
        calls.push_back("serve");
        return 7;
    }
};

}  // namespace

TEST(CommandLine, AnExtensionServesItsOwnCommandAfterPrepareAndStart) {
    candor::mcp::server srv(quiet());
    auto ext = std::make_shared<recording_extension>();
    app::app_options o;
    o.extensions = {ext};
    o.prepare = [&] {
        ext->calls.push_back("prepare");
        return true;
    };
    EXPECT_EQ(run_with(srv, {"--serve-here", "--value", "x"}, o), 7);
    EXPECT_EQ(ext->value, "x");
    EXPECT_EQ(ext->calls, (std::vector<std::string>{"check serving", "prepare", "start", "serve"}));
}

TEST(CommandLine, AnExtensionsRefusalIsAUsageErrorBeforePrepare) {
    candor::mcp::server srv(quiet());
    auto ext = std::make_shared<recording_extension>();
    int prepared = 0;
    app::app_options o;
    o.extensions = {ext};
    o.prepare = [&] { return ++prepared > 0; };
    EXPECT_EQ(run_with(srv, {"--value", "bad", "tools"}, o), 2);  // its flag refuses the value
    ext->refuse_with = "--value needs --serve-here";
    EXPECT_EQ(run_with(srv, {"--value", "x", "tools"}, o), 2);  // its check refuses the line
    EXPECT_EQ(run_with(srv, {"--value"}, o), 2);                // the value is missing
    EXPECT_EQ(prepared, 0);
    EXPECT_EQ(std::count(ext->calls.begin(), ext->calls.end(), "start"), 0);
}

TEST(CommandLine, OneServingCommandAtMostAndNoCommandBesideIt) {
    candor::mcp::server srv(quiet());
    auto ext = std::make_shared<recording_extension>();
    app::app_options o;
    o.extensions = {ext};
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_with(srv, {"--stdio", "--serve-here"}, o), 2);
    EXPECT_EQ(run_with(srv, {"--serve-here", "tools"}, o), 2);
    const auto errors = testing::internal::GetCapturedStderr();
    EXPECT_NE(errors.find("choose one of --stdio and --serve-here"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--serve-here takes no command"), std::string::npos) << errors;
    EXPECT_EQ(std::count(ext->calls.begin(), ext->calls.end(), "serve"), 0);
}

TEST(CommandLine, AnExtensionThatCannotStartExitsOne) {
    candor::mcp::server srv(quiet());
    auto ext = std::make_shared<recording_extension>();
    ext->start_ok = false;
    app::app_options o;
    o.extensions = {ext};
    EXPECT_EQ(run_with(srv, {"--serve-here"}, o), 1);
    EXPECT_EQ(std::count(ext->calls.begin(), ext->calls.end(), "serve"), 0);
}

TEST(CommandLine, HelpListsWhatExtensionsAdd) {
    candor::mcp::server srv(quiet());
    app::app_options o;
    o.extensions = {std::make_shared<recording_extension>()};
    testing::internal::CaptureStdout();
    EXPECT_EQ(run_with(srv, {"--help"}, o), 0);
    const auto help = testing::internal::GetCapturedStdout();
    EXPECT_NE(help.find("(--stdio | --serve-here | tools | check TOOL [FILE|-])"), std::string::npos) << help;
    EXPECT_NE(help.find("  --serve-here           serve here\n"), std::string::npos) << help;
}

TEST(HttpCommandLine, ItsFlagsNeedHttpAndValidValues) {
    candor::mcp::server srv(quiet());
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_with(srv, {"--stateless", "tools"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--oauth-scopes", "a", "tools"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--threads", "4x"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "host:99999"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--max-queue-delay", "-5"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--max-requests-in-flight", "1e3"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--max-queued-requests", "10", "tools"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--queue-delay-target", "600001"}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--queue-delay-interval", ""}, with_http()), 2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--max-queued-requests-per-principal", "all"}, with_http()), 2);
    const auto errors = testing::internal::GetCapturedStderr();
    EXPECT_NE(errors.find("--queue-delay-target expects 0..600000 milliseconds"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--queue-delay-interval expects 0..600000 milliseconds"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--max-queued-requests-per-principal expects 0..1000000"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--max-queue-delay expects 0..600000 milliseconds"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--max-requests-in-flight expects 0..1000000"), std::string::npos) << errors;
    EXPECT_NE(errors.find("need --http"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--threads expects 1..1024"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--http expects [HOST:]PORT, got 'host:99999'"), std::string::npos) << errors;
}

TEST(OpsCommandLine, WithoutHttpItHasOnlyTheJournal) {
    candor::mcp::server srv(quiet());
    const auto ops = [] {
        app::app_options o;
        o.extensions = {std::make_shared<candor::ops::command_line>()};
        return o;
    };
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_with(srv, {"--ops-token", "abcdefgh12345", "tools"}, ops()), 2);
    EXPECT_EQ(run_with(srv, {"--journal-max-bytes", "12k", "tools"}, ops()), 2);
    const auto errors = testing::internal::GetCapturedStderr();
    EXPECT_NE(errors.find("unknown option '--ops-token'"), std::string::npos) << errors;
    EXPECT_NE(errors.find("--journal-max-bytes expects a number of bytes"), std::string::npos) << errors;
}

TEST(HttpCommandLine, OAuthSettingsAreCheckedBeforeServing) {
    candor::mcp::server srv(quiet());
    // Without --http, with --tokens, without a resource, with an insecure issuer: no server starts.
    EXPECT_EQ(run_with(srv, {"--stdio", "--oauth-issuer", "https://idp.example.com"}, with_http()), 2);
    const std::string tokens = testing::TempDir() + "oauth-tokens.txt";
    std::ofstream(tokens) << "secret alice\n";
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com", "--tokens", tokens},
                       with_http()),
              2);
    EXPECT_EQ(run_with(srv, {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com"}, with_http()), 1);
    EXPECT_EQ(run_with(srv,
                       {"--http", "127.0.0.1:0", "--oauth-issuer", "http://idp.example.com", "--oauth-resource",
                        "https://mcp.example.com/mcp"},
                       with_http()),
              1);
    EXPECT_EQ(run_with(srv,
                       {"--http", "127.0.0.1:0", "--oauth-issuer", "https://idp.example.com", "--oauth-resource",
                        "https://mcp.example.com/mcp", "--oauth-jwks", "/nonexistent/jwks.json"},
                       with_http()),
              1);
}
