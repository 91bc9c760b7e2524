// SPDX-License-Identifier: BSL-1.0
// keys::command_line: the sealing keys from --sealing-keys FILE or the environment, a usage error
// when they are given and wrong, a random key (said in the log) when none are given.
#include <candor/keys/command_line.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace app = candor::app;

const std::string good_keys = "k2:" + std::string(64, 'a') + ",k1:" + std::string(64, 'b');

// The environment's sealing-key variables, unset for the test and restored after it.
struct clean_environment {
    std::vector<std::pair<std::string, std::string>> saved;
    clean_environment() {
        for (const char* name : {"CANDOR_SEALING_KEYS", "CANDOR_SEALING_KEYS_FILE", "CREDENTIALS_DIRECTORY"}) {
            if (const char* v = std::getenv(name)) saved.emplace_back(name, v);
            ::unsetenv(name);
        }
    }
    ~clean_environment() {
        for (const char* name : {"CANDOR_SEALING_KEYS", "CANDOR_SEALING_KEYS_FILE", "CREDENTIALS_DIRECTORY"})
            ::unsetenv(name);
        for (const auto& [name, value] : saved) ::setenv(name.c_str(), value.c_str(), 1);
    }
};

std::string file_with(const std::string& name, const std::string& text) {
    const auto path = (std::filesystem::temp_directory_path() / ("candor-keys-" + name)).string();
    std::ofstream(path) << text << "\n";
    return path;
}

struct outcome {
    int status = -1;
    std::shared_ptr<const candor::seal::key_ring> ring;  // as prepare saw it
    std::vector<std::string> log;
};

outcome run_tools(std::vector<std::string> args) {
    outcome out;
    candor::mcp::server_options so;
    so.log = [&](candor::mcp::log_level, std::string_view line) { out.log.emplace_back(line); };
    candor::mcp::server srv(so);
    auto keys = std::make_shared<candor::keys::command_line>();
    app::app_options opts;
    opts.extensions = {keys};
    opts.prepare = [&] {
        out.ring = keys->ring();
        return true;
    };
    args.insert(args.begin(), "tools");
    std::vector<char*> argv;
    static std::string self = "server";
    argv.push_back(self.data());
    for (auto& a : args) argv.push_back(a.data());
    out.status = app::run(srv, static_cast<int>(argv.size()), argv.data(), opts);
    return out;
}

}  // namespace

TEST(SealingKeys, FromTheFileTheFlagNames) {
    clean_environment env;
    auto o = run_tools({"--sealing-keys", file_with("good", good_keys)});
    EXPECT_EQ(o.status, 0);
    ASSERT_TRUE(o.ring);
    EXPECT_FALSE(o.ring->is_ephemeral());
    EXPECT_EQ(o.ring->current_key_id(), "k2");
}

TEST(SealingKeys, FromTheEnvironment) {
    clean_environment env;
    ::setenv("CANDOR_SEALING_KEYS", good_keys.c_str(), 1);
    auto o = run_tools({});
    EXPECT_EQ(o.status, 0);
    ASSERT_TRUE(o.ring);
    EXPECT_EQ(o.ring->current_key_id(), "k2");
}

// What the log says is said when serving starts, in the log's final format: `start`.
TEST(SealingKeys, TheLogSaysWhereTheKeysCameFromWhenServingStarts) {
    clean_environment env;
    ::setenv("CANDOR_SEALING_KEYS", good_keys.c_str(), 1);
    std::vector<std::string> lines;
    candor::mcp::server_options so;
    so.log = [&](candor::mcp::log_level, std::string_view line) { lines.emplace_back(line); };
    candor::mcp::server srv(so);
    candor::keys::command_line keys;
    EXPECT_EQ(keys.check(true), "");
    ASSERT_TRUE(keys.configure(srv));
    EXPECT_TRUE(lines.empty());
    ASSERT_TRUE(keys.start(srv));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "sealing keys from $CANDOR_SEALING_KEYS");

    ::unsetenv("CANDOR_SEALING_KEYS");
    candor::keys::command_line none;
    EXPECT_EQ(none.check(true), "");
    ASSERT_TRUE(none.start(srv));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[1].find("EPHEMERAL"), std::string::npos);
}

TEST(SealingKeys, KeysGivenAndWrongAreAUsageErrorNeverARandomKey) {
    clean_environment env;
    EXPECT_EQ(run_tools({"--sealing-keys", file_with("short", "k1:abcd")}).status, 2);
    EXPECT_EQ(run_tools({"--sealing-keys", file_with("malformed", "no colon here")}).status, 2);
    EXPECT_EQ(run_tools({"--sealing-keys", "/nonexistent/candor/keys"}).status, 2);
    EXPECT_EQ(run_tools({"--sealing-keys", file_with("empty", "")}).status, 2);
    EXPECT_EQ(run_tools({"--sealing-keys", ""}).status, 2);
    ::setenv("CANDOR_SEALING_KEYS", "k1:zz", 1);
    auto o = run_tools({});
    EXPECT_EQ(o.status, 2);
    EXPECT_FALSE(o.ring);
    // Two places at once: which one is meant is not guessed.
    ::setenv("CANDOR_SEALING_KEYS", good_keys.c_str(), 1);
    ::setenv("CANDOR_SEALING_KEYS_FILE", file_with("also", good_keys).c_str(), 1);
    EXPECT_EQ(run_tools({}).status, 2);
}

TEST(SealingKeys, NoneGivenIsARandomKey) {
    clean_environment env;
    auto o = run_tools({});
    EXPECT_EQ(o.status, 0);
    ASSERT_TRUE(o.ring);
    EXPECT_TRUE(o.ring->is_ephemeral());
}
