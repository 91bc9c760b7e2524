// SPDX-License-Identifier: BSL-1.0
#include "commands/validate.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

class ValidateCli : public ::testing::Test {
protected:
    fs::path dir_;

    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               (std::string("candor_validate_") + info->name() + "_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string file(const std::string& name, std::string_view content) {
        fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << content;
        return p.string();
    }

    struct outcome {
        int code;
        std::string out;
        std::string err;
    };

    outcome run(const std::vector<std::string>& args) {
        std::vector<std::string> all(args.size() + 1);
        all[0] = "validate";
        std::copy(args.begin(), args.end(), all.begin() + 1);
        std::vector<char*> argv;
        for (auto& a : all) argv.push_back(a.data());
        std::ostringstream out, err;
        auto* old_out = std::cout.rdbuf(out.rdbuf());
        auto* old_err = std::cerr.rdbuf(err.rdbuf());
        int code = candor::cli::run_validate(static_cast<int>(argv.size()), argv.data());
        std::cout.rdbuf(old_out);
        std::cerr.rdbuf(old_err);
        return {code, out.str(), err.str()};
    }
};

constexpr std::string_view limit_schema =
    R"({"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":10}},"additionalProperties":false})";

TEST_F(ValidateCli, ValidInstanceExitsZero) {
    auto r = run({"--schema", file("s.json", limit_schema), file("i.json", R"({"limit":3})")});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "{\"valid\":true}\n");
}

TEST_F(ValidateCli, InvalidInstanceListsIssuesAndExitsOne) {
    auto r = run({"--schema", file("s.json", limit_schema), file("i.json", R"({"limit":true})")});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(
        r.out,
        R"({"valid":false,"issues":[{"code":"TYPE_MISMATCH","path":"/limit","keyword":"/properties/limit/type","message":"'limit' must be an integer from 1 to 10; got true"}]})"
        "\n");
}

TEST_F(ValidateCli, InstanceRefusedByTheIntakeCarriesTheIntakeCode) {
    auto r = run({"--schema", file("s.json", limit_schema), file("i.json", R"({"limit":1,"limit":9})")});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find(R"({"valid":false,"issues":[{"code":"DUPLICATE_KEY")"), std::string::npos) << r.out;
}

TEST_F(ValidateCli, InvalidSchemaExitsTwoWithTheReason) {
    auto r = run({"--schema", file("s.json", R"({"type":"strnig"})"), file("i.json", "1")});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out.rfind(R"({"error":"INVALID_SCHEMA","message":")", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("'/type'"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("type must name"), std::string::npos) << r.err;
}

TEST_F(ValidateCli, SchemaThatIsNotJsonExitsTwo) {
    auto r = run({"--schema", file("s.json", R"({"a":1,"a":2})"), file("i.json", "1")});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out.rfind(R"({"error":"DUPLICATE_KEY")", 0), 0u) << r.out;
}

TEST_F(ValidateCli, UsageErrorsExitTwo) {
    EXPECT_EQ(run({file("i.json", "1")}).code, 2);
    EXPECT_EQ(run({"--schema"}).code, 2);
    EXPECT_EQ(run({"--schema", file("s.json", "true"), "--bogus"}).code, 2);
    EXPECT_EQ(run({"--schema", file("s.json", "true"), "--remote", "nodir"}).code, 2);
    auto r = run({"--schema", (dir_ / "missing.json").string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out.rfind(R"({"error":"USAGE")", 0), 0u) << r.out;
}

TEST_F(ValidateCli, JsonlGivesOneVerdictPerLineInOrder) {
    auto r = run({"--jsonl", "--schema", file("s.json", limit_schema),
                  file("i.jsonl", "{\"limit\":3}\n{\"limit\":11}\n{\"limit\":1,\"limit\":2}\n{}\n")});
    EXPECT_EQ(r.code, 1);
    std::istringstream lines(r.out);
    std::vector<std::string> v;
    for (std::string l; std::getline(lines, l);) v.push_back(l);
    ASSERT_EQ(v.size(), 4u) << r.out;
    EXPECT_EQ(v[0], R"({"valid":true})");
    EXPECT_NE(v[1].find("OUT_OF_RANGE"), std::string::npos);
    EXPECT_NE(v[2].find("DUPLICATE_KEY"), std::string::npos);
    EXPECT_EQ(v[3], R"({"valid":true})");
}

TEST_F(ValidateCli, JsonlAllValidExitsZero) {
    auto r =
        run({"--jsonl", "--schema", file("s.json", limit_schema), file("i.jsonl", "{\"limit\":3}\n{\"limit\":4}")});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "{\"valid\":true}\n{\"valid\":true}\n");
}

TEST_F(ValidateCli, RemoteReferencesAreServedFromADirectory) {
    file("remote/int.json", R"({"type":"integer"})");
    std::string s = file("s.json", R"({"$ref":"http://localhost:1234/int.json"})");
    auto missing = run({"--schema", s, file("i.json", "1")});
    EXPECT_EQ(missing.code, 2) << "no network fetch: without --remote the reference cannot resolve";
    std::string remote = "http://localhost:1234/=" + (dir_ / "remote").string();
    EXPECT_EQ(run({"--remote", remote, "--schema", s, file("i.json", "1")}).code, 0);
    EXPECT_EQ(run({"--remote", remote, "--schema", s, file("j.json", "\"x\"")}).code, 1);
}

TEST_F(ValidateCli, RemoteMappingDoesNotEscapeItsDirectory) {
    file("secret.json", "true");
    std::string s = file("s.json", R"({"$ref":"http://localhost:1234/../secret.json"})");
    std::string remote = "http://localhost:1234/=" + (dir_ / "remote").string();
    fs::create_directories(dir_ / "remote");
    // The URI resolver normalises the dot segment away, so the lookup is remote/secret.json.
    EXPECT_EQ(run({"--remote", remote, "--schema", s, file("i.json", "1")}).code, 2);
}

TEST_F(ValidateCli, FormatAssertionIsOptIn) {
    std::string s = file("s.json", R"({"format":"date"})");
    std::string i = file("i.json", "\"2023-02-30\"");
    EXPECT_EQ(run({"--schema", s, i}).code, 0);
    auto r = run({"--format-assertion", "--schema", s, i});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("FORMAT_MISMATCH"), std::string::npos);
}

}  // namespace
