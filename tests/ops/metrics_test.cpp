// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/metrics.hpp>

#include <candor/mcp/version.hpp>

#include "ops/ops_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

using namespace candor;

std::string exposition_after_marker_calls() {
    auto m = std::make_shared<ops::call_metrics>();
    auto opts = test::quiet_options();
    opts.observers = {m};
    mcp::server srv(opts);
    test::add_marker_tools(srv);
    boost::asio::io_context io;
    {
        mcp::memory_client c(srv, io);
        test::make_marker_calls(c);
    }
    return m->exposition();
}

// The value of the sample line that starts with `series` (name and labels), or -1.
double sample(const std::string& text, const std::string& series) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(series + " ", 0) == 0) return std::strtod(line.c_str() + series.size() + 1, nullptr);
    return -1;
}

TEST(Metrics, CatalogueCountsCallsByToolStatusAndClient) {
    const auto text = exposition_after_marker_calls();
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="search",status="partial",client="memory-client"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="search",status="error",client="memory-client"})"), 3);
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="search",status="complete",client="memory-client"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_partial_results_total{tool="search",reason="RESULT_LIMIT_REACHED"})"), 1);
    EXPECT_EQ(
        sample(
            text,
            R"(candor_argument_issues_total{tool="search",code="ENUM_MISMATCH",layer="contract",client="memory-client"})"),
        1);
    EXPECT_EQ(sample(text, R"(candor_refused_actions_total{tool="delete_note",code="EVIDENCE_MISSING"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_repair_attempts_total{tool="search"})"), 2);
    EXPECT_EQ(sample(text, R"(candor_repair_successes_total{tool="search"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_protocol_refusals_total{method="other",code="-32601"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_tool_call_duration_seconds_count{tool="search"})"), 5);
    EXPECT_EQ(sample(text, R"(candor_tool_call_duration_seconds_bucket{tool="search",le="+Inf"})"), 5);
    // Every answer's size, against the budgets clients cut at: these are small.
    EXPECT_EQ(sample(text, R"(candor_result_bytes_count{tool="search"})"), 5);
    EXPECT_EQ(sample(text, R"(candor_result_bytes_bucket{tool="search",le="24000"})"), 5);
    EXPECT_GT(sample(text, R"(candor_result_bytes_sum{tool="search"})"), 5 * 100);
    EXPECT_EQ(sample(text, "candor_calls_in_flight"), 0);
}

mcp::call_record answered(std::string tool, std::string status, std::vector<std::string> reasons = {},
                          std::vector<mcp::issue_record> issues = {}) {
    mcp::call_record r;
    r.tool = std::move(tool);
    r.method = "tools/call";
    r.client_name = "agent";
    r.action_class = "read_only";
    r.status = std::move(status);
    r.reason_codes = std::move(reasons);
    r.issues = std::move(issues);
    return r;
}

TEST(Metrics, PagingIsCountedApartFromRealGaps) {
    ops::call_metrics m;
    for (int page = 0; page < 4; ++page) m.on_record(answered("walk", "partial", {"MORE_PAGES_AVAILABLE"}));
    m.on_record(answered("walk", "complete"));
    m.on_record(answered("walk", "partial", {"MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"}));
    const auto text = m.exposition();
    EXPECT_EQ(sample(text, R"(candor_tool_call_outcomes_total{tool="walk",outcome="paged"})"), 4);
    EXPECT_EQ(sample(text, R"(candor_tool_call_outcomes_total{tool="walk",outcome="complete"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_tool_call_outcomes_total{tool="walk",outcome="incomplete"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_result_gaps_total{tool="walk",reason="VISIBILITY_RESTRICTED"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_result_gaps_total{tool="walk",reason="MORE_PAGES_AVAILABLE"})"), -1);
    // The envelope's own status and every reason stay available as they were.
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="walk",status="partial",client="agent"})"), 5);
    EXPECT_EQ(sample(text, R"(candor_partial_results_total{tool="walk",reason="MORE_PAGES_AVAILABLE"})"), 5);
}

// A call that becomes a task is recorded when the task is made and again at its end (the records
// tests/mcp/tasks_test.cpp checks): one call, with its final status; its bytes once.
TEST(Metrics, ACallThatBecameATaskCountsOnceAtItsEnd) {
    ops::call_metrics m;
    auto made = answered("reindex", "task");
    made.task_id = "t-1";
    made.bytes_in = 120;
    made.bytes_out = 300;
    made.limits = {{"DEADLINE", 5}};
    auto ended = made;
    ended.status = "complete";
    ended.duration = std::chrono::seconds(2);
    auto cancelled = answered("reindex", "task");
    cancelled.task_id = "t-2";
    cancelled.bytes_in = 80;
    cancelled.bytes_out = 200;
    auto cancelled_end = cancelled;
    cancelled_end.status = "cancelled";
    for (const auto* r : {&made, &cancelled, &ended, &cancelled_end}) m.on_record(*r);
    m.on_record(answered("reindex", "complete"));  // answered in its request
    const auto text = m.exposition();
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="reindex",status="complete",client="agent"})"), 2);
    EXPECT_EQ(sample(text, R"(candor_tool_calls_total{tool="reindex",status="cancelled",client="agent"})"), 1);
    EXPECT_EQ(text.find(R"(status="task")"), std::string::npos) << text;
    EXPECT_EQ(sample(text, R"(candor_tool_call_duration_seconds_count{tool="reindex"})"), 3);
    EXPECT_GE(sample(text, R"(candor_tool_call_duration_seconds_sum{tool="reindex"})"), 2);
    EXPECT_EQ(sample(text, R"(candor_received_bytes_total{tool="reindex"})"), 200);
    EXPECT_EQ(sample(text, R"(candor_sent_bytes_total{tool="reindex"})"), 500);
    EXPECT_EQ(sample(text, R"(candor_limits_hit_total{code="DEADLINE"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_result_bytes_count{tool="reindex"})"), 1);
}

TEST(Metrics, OnlyArgumentLayersCountAsArgumentIssues) {
    ops::call_metrics m;
    m.on_record(answered("archive", "error", {}, {{"PLAN_TOKEN_REQUIRED", "", layer::external, true}}));
    m.on_record(answered("archive", "error", {}, {{"EVIDENCE_MISSING", "/token", layer::external, false}}));
    m.on_record(answered("order", "error", {}, {{"UNKNOWN_SKU", "/lines/0/sku", layer::external, true}}));
    m.on_record(answered("order", "error", {}, {{"TOTAL_MISMATCH", "/total", layer::business, true}}));
    m.on_record(answered("order", "error", {}, {{"INTERNAL_ERROR", "", layer::business, false}}));
    const auto text = m.exposition();
    EXPECT_EQ(
        sample(text,
               R"(candor_argument_issues_total{tool="order",code="TOTAL_MISMATCH",layer="business",client="agent"})"),
        1);
    EXPECT_EQ(text.find(R"(candor_argument_issues_total{tool="archive")"), std::string::npos) << text;
    EXPECT_EQ(text.find(R"(candor_argument_issues_total{tool="order",code="INTERNAL_ERROR")"), std::string::npos);
    EXPECT_EQ(sample(text, R"(candor_gate_refusals_total{tool="archive",gate="approval",code="PLAN_TOKEN_REQUIRED"})"),
              1);
    EXPECT_EQ(sample(text, R"(candor_gate_refusals_total{tool="archive",gate="evidence",code="EVIDENCE_MISSING"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_external_issues_total{tool="order",code="UNKNOWN_SKU",client="agent"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_server_errors_total{tool="order",code="INTERNAL_ERROR"})"), 1);
}

TEST(Metrics, BuildInfoNamesTheFrameworkAndTheServer) {
    ops::call_metrics m({.server_name = "helpdesk", .server_version = "1.0.0"});
    const auto text = m.exposition();
    EXPECT_EQ(sample(text, R"(candor_build_info{version=")" + std::string(candor::version()) +
                               R"(",server="helpdesk",server_version="1.0.0"})"),
              1);
    EXPECT_FALSE(candor::version().empty());
}

TEST(Metrics, ProcessMetricsUseTheStandardNames) {
    const auto text = ops::call_metrics().exposition();
    // A process that has just started may not have used a clock tick yet: present, 0 or more.
    EXPECT_GE(sample(text, "process_cpu_seconds_total"), 0) << text;
    for (const char* name : {"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
                             "process_max_fds", "process_start_time_seconds"})
        EXPECT_GT(sample(text, name), 0) << name << "\n" << text;
    EXPECT_NE(text.find("# TYPE process_cpu_seconds_total counter\n"), std::string::npos);
    EXPECT_EQ(ops::call_metrics({.process_metrics = false}).exposition().find("process_"), std::string::npos);
}

TEST(Metrics, SessionsNotUsedSinceInitializeAreIdle) {
    // Threshold 0: a session is idle from its initialize until its first request.
    auto m = std::make_shared<ops::call_metrics>(ops::metrics_options{.session_idle_after = std::chrono::seconds(0)});
    auto patient = std::make_shared<ops::call_metrics>();  // the default threshold, 60 s
    auto opts = test::quiet_options();
    opts.observers = {m, patient};
    mcp::server srv(opts);
    test::add_marker_tools(srv);
    boost::asio::io_context io;
    {
        mcp::memory_client used(srv, io), left(srv, io);
        used.initialize();
        left.initialize();
        EXPECT_EQ(sample(m->exposition(), "candor_sessions"), 2);
        EXPECT_EQ(sample(m->exposition(), "candor_sessions_idle"), 2);
        EXPECT_EQ(sample(patient->exposition(), "candor_sessions_idle"), 0);
        used.request("tools/list", {});
        EXPECT_EQ(sample(m->exposition(), "candor_sessions"), 2);
        EXPECT_EQ(sample(m->exposition(), "candor_sessions_idle"), 1);
    }
    EXPECT_EQ(sample(m->exposition(), "candor_sessions"), 0);
    EXPECT_EQ(sample(m->exposition(), "candor_sessions_idle"), 0);
}

struct session_listener final : mcp::call_observer {
    std::vector<mcp::session_event> events;
    void on_record(const mcp::call_record&) override {}
    void on_session_event(const mcp::session_event& e) override { events.push_back(e); }
};

struct old_session_listener final : mcp::call_observer {
    std::vector<bool> sessions;
    void on_record(const mcp::call_record&) override {}
    void on_session(bool opened) override { sessions.push_back(opened); }
};

TEST(SessionEvents, OpenedUsedOnceThenClosedAndTheOlderHookStillHearsOpenAndClose) {
    auto listener = std::make_shared<session_listener>();
    auto old = std::make_shared<old_session_listener>();
    auto opts = test::quiet_options();
    opts.observers = {listener, old};
    mcp::server srv(opts);
    test::add_marker_tools(srv);
    boost::asio::io_context io;
    {
        mcp::memory_client c(srv, io);
        c.request("ping", {});  // before initialize: not a use of a session
        c.initialize();
        c.request("ping", {});
        c.request("tools/list", {});
    }
    using kind = mcp::session_event::kind;
    ASSERT_EQ(listener->events.size(), 3u);
    EXPECT_EQ(listener->events[0].what, kind::opened);
    EXPECT_EQ(listener->events[1].what, kind::used);
    EXPECT_EQ(listener->events[2].what, kind::closed);
    EXPECT_EQ(listener->events[0].key, listener->events[2].key);
    EXPECT_EQ(old->sessions, (std::vector<bool>{true, false}));
}

TEST(Metrics, EveryFamilyHasHelpAndTypeAndCountersEndInTotal) {
    const auto text = exposition_after_marker_calls();
    std::istringstream in(text);
    std::map<std::string, std::string> types;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# TYPE ", 0) == 0) {
            const auto rest = line.substr(7);
            const auto sp = rest.find(' ');
            types[rest.substr(0, sp)] = rest.substr(sp + 1);
        }
    }
    ASSERT_GE(types.size(), 10u);
    for (const auto& [name, type] : types) {
        EXPECT_NE(text.find("# HELP " + name + " "), std::string::npos) << name;
        if (type == "counter") {
            EXPECT_TRUE(name.size() > 6 && name.substr(name.size() - 6) == "_total") << name;
        }
        EXPECT_TRUE(name.rfind("candor_", 0) == 0 || name.rfind("process_", 0) == 0) << name;
    }
}

TEST(Metrics, LabelSetsStayBoundedWhateverClientsSend) {
    ops::registry reg;
    auto& f = reg.counter("candor_test_total", "test", {"client"}, 50);
    for (int i = 0; i < 10'000; ++i) f.add({"client-" + std::to_string(i)});
    EXPECT_LE(f.series(), 50u);
    const auto text = reg.exposition();
    EXPECT_GT(sample(text, R"(candor_test_total{client="other"})"), 9'000);
}

TEST(Metrics, LabelValuesAreSanitizedAndCapped) {
    EXPECT_EQ(ops::label_value("a\"b\\c\nd"), "a_b_c_d");
    EXPECT_EQ(ops::label_value(std::string(100, 'x')).size(), 64u);
    EXPECT_EQ(ops::label_value("claude-code/1.2:x"), "claude-code/1.2:x");
}

// A value that needs sanitizing and the value it becomes count in one series, whichever comes
// first, and so do missing values and empty ones.
TEST(Metrics, ValuesThatAreExposedAlikeCountInOneSeries) {
    ops::registry reg;
    auto& f = reg.counter("candor_test_total", "test", {"tool", "code"});
    f.add({"a b", "C"});
    f.add({"a_b", "C"});
    f.add({std::string(100, 'x'), "C"});
    f.add({std::string(64, 'x'), "C"});
    f.add({"solo"});
    f.add({"solo", ""});
    f.add({"solo", "", "ignored"});
    EXPECT_EQ(f.series(), 3u);
    const auto text = reg.exposition();
    EXPECT_EQ(sample(text, R"(candor_test_total{tool="a_b",code="C"})"), 2);
    EXPECT_EQ(sample(text, R"(candor_test_total{tool=")" + std::string(64, 'x') + R"(",code="C"})"), 2);
    EXPECT_EQ(sample(text, R"(candor_test_total{tool="solo",code=""})"), 3);
}

// Threads that count at once each count in a shard of their own; the scrape sums them exactly,
// and the bound on label sets holds across the shards.
TEST(Metrics, CountsFromManyThreadsAddUpAndStayBounded) {
    ops::registry reg;
    auto& calls = reg.counter("test_calls_total", "Calls.", {"tool"}, 10);
    auto& sizes = reg.histogram("test_sizes", "Sizes.", {"tool"}, {10, 100});
    std::vector<std::thread> threads;
    for (int t = 0; t < 24; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                calls.add({"search"});
                sizes.observe({"search"}, i % 2 ? 5 : 50);
                // Every thread also brings label sets of its own: far more than the bound.
                calls.add({"tool-" + std::to_string(t) + "-" + std::to_string(i % 7)});
            }
        });
    }
    for (auto& th : threads) th.join();
    const auto text = reg.exposition();
    EXPECT_EQ(sample(text, R"(test_calls_total{tool="search"})"), 24 * 2000);
    EXPECT_EQ(sample(text, R"(test_sizes_count{tool="search"})"), 24 * 2000);
    EXPECT_EQ(sample(text, R"(test_sizes_bucket{tool="search",le="10"})"), 24 * 1000);
    EXPECT_EQ(sample(text, R"(test_sizes_sum{tool="search"})"), 24 * 1000 * 55);
    EXPECT_LE(calls.series(), 10u);
    // Every add is counted somewhere: the invented names that did not fit went to "other".
    double total = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("test_calls_total{", 0) == 0) total += std::strtod(line.c_str() + line.rfind(' ') + 1, nullptr);
    EXPECT_EQ(total, 2 * 24 * 2000);
    std::size_t lines = 0;
    std::istringstream again(text);
    for (std::string line; std::getline(again, line);) lines += line.rfind("test_calls_total{", 0) == 0;
    EXPECT_LE(lines, 10u);
}

TEST(Metrics, CallsInFlightAddUpAcrossThreadsWhereverACallEnds) {
    // Each thread counts its calls in its own shard; a call may end on another thread than the
    // one it started on, and the gauge is the sum.
    ops::call_metrics m;
    std::vector<std::thread> threads;
    for (int t = 0; t < 24; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) m.on_call_started();
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(sample(m.exposition(), "candor_calls_in_flight"), 24 * 1000);
    threads.clear();
    for (int t = 0; t < 12; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1500; ++i) m.on_call_finished();
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(sample(m.exposition(), "candor_calls_in_flight"), 24 * 1000 - 12 * 1500);
    threads.clear();
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1500; ++i) m.on_call_finished();
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(sample(m.exposition(), "candor_calls_in_flight"), 0);
}

TEST(Metrics, HistogramBucketsAreCumulative) {
    ops::registry reg;
    auto& h = reg.histogram("candor_test_seconds", "test", {}, {0.1, 1, 10});
    for (double v : {0.05, 0.5, 0.5, 5.0, 50.0}) h.observe({}, v);
    const auto text = reg.exposition();
    EXPECT_EQ(sample(text, R"(candor_test_seconds_bucket{le="0.1"})"), 1);
    EXPECT_EQ(sample(text, R"(candor_test_seconds_bucket{le="1"})"), 3);
    EXPECT_EQ(sample(text, R"(candor_test_seconds_bucket{le="10"})"), 4);
    EXPECT_EQ(sample(text, R"(candor_test_seconds_bucket{le="+Inf"})"), 5);
    EXPECT_EQ(sample(text, "candor_test_seconds_count"), 5);
    EXPECT_DOUBLE_EQ(sample(text, "candor_test_seconds_sum"), 56.05);
}

std::string promtool() {
    for (const char* p : {"/usr/bin/promtool", "/usr/local/bin/promtool"})
        if (::access(p, X_OK) == 0) return p;
    return {};
}

TEST(Metrics, PromtoolAcceptsTheExposition) {
    const auto tool = promtool();
    ASSERT_FALSE(tool.empty())
        << "promtool not installed (Debian package 'prometheus'; scripts/setup-deps installs it)";
    const auto text = exposition_after_marker_calls();
    char path[] = "/tmp/candor-metrics-XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    std::string out;
    std::FILE* p = ::popen((tool + " check metrics < " + path + " 2>&1").c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = ::pclose(p);
    ::unlink(path);
    EXPECT_EQ(status, 0) << out << "\n---\n" << text;
    EXPECT_EQ(out, "") << out;
}

}  // namespace
