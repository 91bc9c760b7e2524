// SPDX-License-Identifier: BSL-1.0
// Fuzzes the schema compiler and validator with hostile schemas: the input is a schema and an
// instance, two JSON texts separated by the first NUL byte (no NUL: the instance is null). Both
// go through the strict intake first, as a tool's schema and arguments would. Checked on every
// input: no crash, no hang (cycles, deep nesting and combinator blow-ups end in a compile error
// or within the evaluation budget, set low here), and on a compiled schema `is_valid` and
// `validate` agree, an invalid instance has at least one issue, and no more than `max_issues`.
#include <candor/json/intake.hpp>
#include <candor/schema/validator.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {
void check(bool ok) {
    if (!ok) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const auto cut = input.find('\0');
    candor::json::limits lim;
    lim.max_depth = 64;
    lim.max_nodes = 4096;
    lim.max_bytes = 1 << 16;
    auto schema = candor::json::parse(input.substr(0, cut), lim);
    if (!schema) return 0;
    boost::json::value instance;
    if (cut != std::string_view::npos) {
        auto parsed = candor::json::parse(input.substr(cut + 1), lim);
        if (!parsed) return 0;
        instance = parsed->root();
    }
    candor::schema::options opts;
    opts.max_evaluation_steps = 20'000;
    opts.max_evaluation_depth = 256;
    opts.max_issues = 8;
    opts.format_assertion = size % 2 == 1;
    auto compiled = candor::schema::validator::compile(schema->root(), opts);
    if (!compiled) return 0;
    const bool valid = compiled->is_valid(instance);
    candor::issue_list issues;
    const bool validated = compiled->validate(instance, issues);
    check(valid == validated);
    check(valid == issues.empty());
    check(issues.size() <= opts.max_issues);
    return 0;
}
