// SPDX-License-Identifier: BSL-1.0
// Strict intake (DOM built, every check on) against plain boost::json::parse, in the same run.
// Run: scripts/bench --benchmark_filter=Intake
#include <candor/json/intake.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <benchmark/benchmark.h>

#include <string>

namespace {

// A typical tool-arguments object (~300 bytes).
const std::string tool_arguments =
    R"({"query":"printer on floor 3 not responding","filter":{"and":[{"status":{"in":["open","pending"]}},{"priority":{"gte":2}},{"or":[{"department":"dept-3"},{"department":"dept-5"}]}]},"page_size":20,"sort":"created_at","include_closed":false,"deadline_ms":1500,"tags":["hardware","network"]})";

std::string megabyte_of_small_objects() {
    std::string s = "[";
    for (int i = 0; s.size() < (1u << 20); ++i) {
        s += R"({"id":"T-)" + std::to_string(100000 + i) + R"(","status":"open","priority":)" +
             std::to_string(i % 5 + 1) + R"(,"score":)" + std::to_string(i % 97) + ".25},";
    }
    s.back() = ']';
    return s;
}

const std::string& big() {
    static const std::string s = megabyte_of_small_objects();
    return s;
}

candor::json::limits roomy() {
    candor::json::limits l;
    l.max_bytes = 8u << 20;
    l.max_nodes = 10'000'000;
    return l;
}

void run_candor(benchmark::State& state, const std::string& text) {
    const auto lim = roomy();
    for (auto _ : state) {
        auto doc = candor::json::parse(text, lim);
        if (!doc) state.SkipWithError("rejected");
        benchmark::DoNotOptimize(doc);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void run_boost(benchmark::State& state, const std::string& text) {
    for (auto _ : state) {
        boost::json::monotonic_resource mr;
        auto v = boost::json::parse(text, &mr);
        benchmark::DoNotOptimize(v);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void run_boost_default(benchmark::State& state, const std::string& text) {
    for (auto _ : state) {
        auto v = boost::json::parse(text);
        benchmark::DoNotOptimize(v);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

}  // namespace

static void BM_Intake_ToolArguments_Candor(benchmark::State& s) { run_candor(s, tool_arguments); }
static void BM_Intake_ToolArguments_BoostParse(benchmark::State& s) { run_boost_default(s, tool_arguments); }
static void BM_Intake_ToolArguments_BoostParseMonotonic(benchmark::State& s) { run_boost(s, tool_arguments); }
static void BM_Intake_Megabyte_Candor(benchmark::State& s) { run_candor(s, big()); }
static void BM_Intake_Megabyte_BoostParse(benchmark::State& s) { run_boost_default(s, big()); }
static void BM_Intake_Megabyte_BoostParseMonotonic(benchmark::State& s) { run_boost(s, big()); }

BENCHMARK(BM_Intake_ToolArguments_Candor);
BENCHMARK(BM_Intake_ToolArguments_BoostParse);
BENCHMARK(BM_Intake_ToolArguments_BoostParseMonotonic);
BENCHMARK(BM_Intake_Megabyte_Candor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Intake_Megabyte_BoostParse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Intake_Megabyte_BoostParseMonotonic)->Unit(benchmark::kMillisecond);
