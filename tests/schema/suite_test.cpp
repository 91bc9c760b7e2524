// SPDX-License-Identifier: BSL-1.0
// Conformance: every required test of the official JSON-Schema-Test-Suite (draft2020-12; a
// copy is in tests/data/json-schema-test-suite), with remotes/ served for
// http://localhost:1234/ through options::resolve. Missing data fails the tests. Optional tests
// (optional/, format assertions among them) are counted and reported, never failed on.
#include <candor/schema/validator.hpp>

#include <candor/json/intake.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
namespace bj = boost::json;

const fs::path suite_dir{CANDOR_JSON_SCHEMA_TEST_SUITE};
constexpr std::string_view remote_prefix = "http://localhost:1234/";

std::optional<bj::value> read_json(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    candor::json::limits lim;
    lim.max_depth = candor::json::depth_ceiling;
    auto doc = candor::json::parse(ss.str(), lim);
    if (!doc) return std::nullopt;
    return bj::value(doc->root(), bj::storage_ptr());
}

std::optional<bj::value> serve_remote(std::string_view uri) {
    if (uri.substr(0, remote_prefix.size()) != remote_prefix) return std::nullopt;
    return read_json(suite_dir / "remotes" / std::string(uri.substr(remote_prefix.size())));
}

struct tally {
    std::size_t passed = 0;
    std::size_t total = 0;
    std::vector<std::string> failures;
};

void run_file(const fs::path& file, bool format_assertion, tally& t) {
    auto groups = read_json(file);
    ASSERT_TRUE(groups && groups->is_array()) << "cannot read " << file;
    candor::schema::options opts;
    opts.format_assertion = format_assertion;
    opts.resolve = serve_remote;
    for (const auto& g : groups->get_array()) {
        const auto& group = g.get_object();
        std::string where = file.filename().string() + " / " + std::string(group.at("description").get_string());
        auto compiled = candor::schema::validator::compile(group.at("schema"), opts);
        for (const auto& tc : group.at("tests").get_array()) {
            const auto& test = tc.get_object();
            ++t.total;
            std::string name = where + " / " + std::string(test.at("description").get_string());
            if (!compiled) {
                t.failures.push_back(name + ": schema refused at " + compiled.error().keyword_location + ": " +
                                     compiled.error().message);
                continue;
            }
            bool expected = test.at("valid").get_bool();
            bool fast = compiled->is_valid(test.at("data"));
            candor::issue_list issues;
            bool full = compiled->validate(test.at("data"), issues);
            if (fast == expected && full == expected && (full || !issues.empty()) && (!full || issues.empty())) {
                ++t.passed;
            } else {
                t.failures.push_back(name + ": expected " + (expected ? "valid" : "invalid") + ", is_valid says " +
                                     (fast ? "valid" : "invalid") + ", validate says " + (full ? "valid" : "invalid") +
                                     " with " + std::to_string(issues.size()) + " issues");
            }
        }
    }
}

std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST(JsonSchemaTestSuite, PassesEveryRequiredDraft202012Test) {
    const fs::path dir = suite_dir / "tests" / "draft2020-12";
    ASSERT_TRUE(fs::is_directory(dir)) << "JSON-Schema-Test-Suite not found at " << dir
                                       << " (tests/data/json-schema-test-suite, or CANDOR_JSON_SCHEMA_TEST_SUITE)";
    tally t;
    for (const auto& f : json_files(dir)) run_file(f, false, t);
    std::cout << "json-schema-test-suite draft2020-12: " << t.passed << "/" << t.total << " passed" << std::endl;
    for (const auto& f : t.failures) ADD_FAILURE() << f;
    EXPECT_EQ(t.total, 1299u) << "the suite at " << dir << " is not the expected version";
}

TEST(JsonSchemaTestSuite, ReportsOptionalDraft202012Tests) {
    const fs::path dir = suite_dir / "tests" / "draft2020-12" / "optional";
    ASSERT_TRUE(fs::is_directory(dir)) << "JSON-Schema-Test-Suite not found at " << dir
                                       << " (tests/data/json-schema-test-suite, or CANDOR_JSON_SCHEMA_TEST_SUITE)";
    tally t;
    for (const auto& f : json_files(dir)) run_file(f, false, t);
    for (const auto& f : json_files(dir / "format")) run_file(f, true, t);
    std::cout << "json-schema-test-suite draft2020-12 optional: " << t.passed << "/" << t.total << " passed"
              << std::endl;
    if (std::getenv("CANDOR_SCHEMA_SUITE_VERBOSE"))
        for (const auto& f : t.failures) std::cout << "  optional failure: " << f << "\n";
    EXPECT_GT(t.total, 0u);
}
