// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/ops/journal.hpp>

#include <candor/json/write.hpp>

#include "ops/ops_fixture.hpp"

#include <candor/ops/console.hpp>
#include <candor/ops/metrics.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace candor;

struct temp_dir {
    fs::path path;
    temp_dir() {
        std::string tmpl = (fs::temp_directory_path() / "candor-journal-XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<boost::json::object> lines_of(const std::string& text) {
    std::vector<boost::json::object> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(boost::json::parse(line).as_object());
    return out;
}

bool has_marker(std::string_view text) { return text.find(test::marker) != std::string_view::npos; }

struct journal_run {
    temp_dir dir;
    std::vector<boost::json::object> records;
    std::string text;
    std::string feed;
    std::string metrics;
    std::vector<std::string> envelopes;

    journal_run() {
        auto j = ops::journal::open({.path = (dir.path / "calls.jsonl").string()}).value();
        auto m = std::make_shared<ops::call_metrics>();
        auto con = std::make_shared<ops::console>();
        auto opts = test::quiet_options();
        opts.observers = {j, m, con};
        mcp::server srv(opts);
        test::add_marker_tools(srv);
        boost::asio::io_context io;
        mcp::memory_client c(srv, io);
        test::make_marker_calls(c);
        for (const auto& msg : c.received()) envelopes.push_back(boost::json::serialize(msg));
        j->flush();
        text = slurp(dir.path / "calls.jsonl");
        records = lines_of(text);
        feed = boost::json::serialize(con->feed());
        metrics = m->exposition();
    }

    const boost::json::object* find(std::string_view kind, std::string_view status, std::size_t nth = 0) const {
        for (const auto& r : records)
            if (r.at("kind").as_string() == kind && r.at("status").as_string() == status && nth-- == 0) return &r;
        return nullptr;
    }
};

const journal_run& run_once() {
    static const journal_run r;
    return r;
}

std::vector<std::string> issue_codes(const boost::json::object& r) {
    std::vector<std::string> out;
    for (const auto& i : r.at("issues").as_array()) out.emplace_back(i.at("code").as_string());
    return out;
}

TEST(Journal, MarkerReachesTheClientButNeverTheJournal) {
    const auto& r = run_once();
    // The marker did travel: the tools echoed it in what the client received…
    bool echoed = false;
    for (const auto& e : r.envelopes) echoed = echoed || has_marker(e);
    EXPECT_TRUE(echoed);
    // …and none of the operators' views holds it.
    EXPECT_FALSE(has_marker(r.text)) << r.text;
    EXPECT_FALSE(has_marker(r.feed));
    EXPECT_FALSE(has_marker(r.metrics));
}

TEST(Journal, OneLinePerCallAndPerRefusedMessage) {
    const auto& r = run_once();
    std::size_t calls = 0, refusals = 0;
    for (const auto& rec : r.records) (rec.at("kind").as_string() == "tool_call" ? calls : refusals)++;
    EXPECT_EQ(calls, 6u);
    EXPECT_EQ(refusals, 2u);
}

TEST(Journal, RecordsCarryTheDocumentedFields) {
    const auto& r = run_once();
    const auto* partial = r.find("tool_call", "partial");
    ASSERT_NE(partial, nullptr);
    for (std::string_view k : {"time",
                               "kind",
                               "request_id",
                               "session",
                               "principal",
                               "client_name",
                               "client_version",
                               "method",
                               "tool",
                               "contract_version",
                               "action_class",
                               "duration_ms",
                               "bytes_in",
                               "bytes_out",
                               "status",
                               "complete",
                               "reasons",
                               "warnings",
                               "issues",
                               "limits",
                               "evidence_verdict",
                               "repair_attempt"})
        EXPECT_TRUE(partial->contains(k)) << k;
    EXPECT_EQ(partial->at("tool").as_string(), "search");
    EXPECT_EQ(partial->at("client_name").as_string(), "memory-client");
    EXPECT_EQ(partial->at("action_class").as_string(), "read_only");
    EXPECT_EQ(partial->at("complete").as_bool(), false);
    EXPECT_EQ(partial->at("reasons").as_array().at(0).as_string(), "RESULT_LIMIT_REACHED");
    EXPECT_EQ(partial->at("limits").as_array().at(0).at("limit").as_int64(), 3);
    EXPECT_GT(partial->at("bytes_in").as_int64(), 0);
    EXPECT_GT(partial->at("bytes_out").as_int64(), 0);
    EXPECT_EQ(partial->at("time").as_string().size(), 24u);  // 2026-11-29T16:28:39.123Z
}

TEST(Journal, IssuesKeepCodesPathsAndLayersButNotCallerKeys) {
    const auto& r = run_once();
    const auto* first_error = r.find("tool_call", "error");
    ASSERT_NE(first_error, nullptr);
    const auto codes = issue_codes(*first_error);
    EXPECT_NE(std::find(codes.begin(), codes.end(), "TYPE_MISMATCH"), codes.end());
    bool unknown_masked = false;
    for (const auto& i : first_error->at("issues").as_array())
        if (i.at("code") == "UNKNOWN_FIELD") unknown_masked = i.at("path") == "/*" && i.at("layer") == "contract";
    EXPECT_TRUE(unknown_masked) << boost::json::serialize(*first_error);
}

TEST(Journal, CountsRepairAttemptsAfterRepairableRefusals) {
    const auto& r = run_once();
    std::vector<std::int64_t> attempts;
    for (const auto& rec : r.records)
        if (rec.at("tool") == "search") attempts.push_back(rec.at("repair_attempt").as_int64());
    // partial, refused, refused again (attempt 1), complete (attempt 2), duplicate key (fresh)
    EXPECT_EQ(attempts, (std::vector<std::int64_t>{0, 0, 1, 2, 0}));
}

TEST(Journal, EvidenceRefusalAndProtocolRefusalsAreRecorded) {
    const auto& r = run_once();
    const boost::json::object* refused = nullptr;
    for (const auto& rec : r.records)
        if (rec.at("tool") == "delete_note") refused = &rec;
    ASSERT_NE(refused, nullptr);
    EXPECT_EQ(refused->at("evidence_verdict").as_string(), "EVIDENCE_MISSING");
    EXPECT_EQ(refused->at("action_class").as_string(), "irreversible_write");
    const auto* unknown_method = r.find("protocol_refusal", "refused", 0);
    ASSERT_NE(unknown_method, nullptr);
    EXPECT_EQ(unknown_method->at("method").as_string(), "other");
    EXPECT_EQ(unknown_method->at("rpc_error").as_int64(), -32601);
    const auto* unknown_tool = r.find("protocol_refusal", "refused", 1);
    ASSERT_NE(unknown_tool, nullptr);
    EXPECT_EQ(unknown_tool->at("method").as_string(), "tools/call");
    EXPECT_EQ(unknown_tool->at("tool").as_string(), "");
    EXPECT_EQ(unknown_tool->at("rpc_error").as_int64(), -32602);
}

// Names and ids are capped (128 and 64 bytes); a cap that fell inside a UTF-8 sequence made the
// record invalid UTF-8, and the journal line and the console feed were lost to the writer.
TEST(Journal, CappedNamesAndIdsStayValidUtf8) {
    temp_dir dir;
    auto j = ops::journal::open({.path = (dir.path / "calls.jsonl").string()}).value();
    auto con = std::make_shared<ops::console>();
    auto opts = test::quiet_options();
    opts.observers = {j, con};
    mcp::server srv(opts);
    test::add_marker_tools(srv);
    boost::asio::io_context io;
    mcp::memory_client c(srv, io);
    const std::string e_acute = "\xC3\xA9";  // 2 bytes
    const std::string name = std::string(127, 'n') + e_acute;
    const std::string id = std::string(63, 'i') + e_acute;
    c.exchange(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
               R"("capabilities":{},"clientInfo":{"name":")" +
                   name + R"(","version":"1"}}})",
               0);
    c.notify("notifications/initialized");
    c.exchange(R"({"jsonrpc":"2.0","id":")" + id +
                   R"(","method":"tools/call","params":{"name":"search","arguments":{"query":"q"}}})",
               boost::json::value(id));
    j->flush();
    const auto records = lines_of(slurp(dir.path / "calls.jsonl"));
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].at("client_name").as_string(), std::string(127, 'n'));
    EXPECT_EQ(records[0].at("request_id").as_string(), std::string(63, 'i'));
    EXPECT_TRUE(json::to_string(con->feed())) << "the console feed cannot be written";
}

TEST(Journal, RotatesAtTheSizeCapAndKeepsTheConfiguredFiles) {
    temp_dir dir;
    const auto path = dir.path / "j.jsonl";
    {
        auto j = ops::journal::open({.path = path.string(), .max_bytes = 1000, .keep_files = 2}).value();
        for (int i = 0; i < 200; ++i) j->write_line(std::string(90, 'a' + static_cast<char>(i % 26)));
        j->flush();
        EXPECT_GT(j->rotations(), 2u);
        EXPECT_EQ(j->written(), 200u);
    }
    ASSERT_TRUE(fs::exists(path));
    EXPECT_TRUE(fs::exists(path.string() + ".1"));
    EXPECT_TRUE(fs::exists(path.string() + ".2"));
    EXPECT_FALSE(fs::exists(path.string() + ".3"));
    for (const auto& p : {path.string(), path.string() + ".1", path.string() + ".2"})
        EXPECT_LE(fs::file_size(p), 1000u);
}

TEST(Journal, DropsAndCountsLinesWhenTheQueueIsFull) {
    temp_dir dir;
    auto j = ops::journal::open({.path = (dir.path / "j.jsonl").string(), .queue_capacity = 1}).value();
    std::uint64_t refused = 0;
    const std::uint64_t total = 200'000;
    for (std::uint64_t i = 0; i < total; ++i)
        if (!j->write_line("{}")) ++refused;
    j->flush();
    EXPECT_GT(j->dropped(), 0u);
    EXPECT_EQ(j->dropped(), refused);
    EXPECT_EQ(j->written() + j->dropped(), total);
}

// A server whose one tool is irreversible, journaled to `path`.
struct irreversible_server {
    std::shared_ptr<ops::journal> journal;
    mcp::server srv;
    boost::asio::io_context io;
    mcp::memory_client client;

    static mcp::server_options options(std::shared_ptr<ops::journal> j) {
        auto o = test::quiet_options();
        o.observers = {std::move(j)};
        return o;
    }

    explicit irreversible_server(ops::journal_options o)
        : journal(ops::journal::open(std::move(o)).value()), srv(options(journal)), client(srv, io) {
        srv.add_tool(mcp::make_tool(mcp::tool_info("wipe", "wipes for good")
                                        .with_input_schema({{"type", "object"}})
                                        .with_action(mcp::action_class::irreversible_write),
                                    [](const boost::json::object&,
                                       mcp::call_context&) -> boost::asio::awaitable<envelope::envelope> {
                                        co_return envelope::complete(boost::json::object{{"wiped", 3}});
                                    }))
            .value();
        client.initialize();
    }
};

TEST(Journal, TheReplyOfAnIrreversibleActionWaitsUntilItsLineIsWritten) {
    temp_dir dir;
    const auto fifo = dir.path / "j.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The journal writes into a pipe the test reads only when it chooses to.
    struct reader_end {
        int fd;
        ~reader_end() { ::close(fd); }
    } reader{::open(fifo.c_str(), O_RDONLY | O_NONBLOCK)};
    ASSERT_GE(reader.fd, 0);
    irreversible_server s({.path = fifo.string()});
    // More than a pipe holds of other lines: the writer is stuck in the middle of them.
    for (int i = 0; i < 64; ++i) s.journal->write_line(std::string(4000, 'x'));
    const std::int64_t id = 900;
    s.client.send(R"({"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"wipe","arguments":{}}})");
    s.client.run_ready();
    EXPECT_TRUE(s.client.response_to(id).is_null()) << "the reply left before its journal line was written";

    // Read the pipe: the writer goes on, writes the action's line, and the reply follows.
    std::string text;
    std::thread drain([&] {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        char chunk[65536];
        while (text.find(R"("tool":"wipe")") == std::string::npos && std::chrono::steady_clock::now() < until) {
            pollfd p{reader.fd, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const ssize_t n = ::read(reader.fd, chunk, sizeof chunk);
            if (n > 0) text.append(chunk, static_cast<std::size_t>(n));
        }
    });
    EXPECT_TRUE(s.client.run_until([&] { return !s.client.response_to(id).is_null(); }));
    drain.join();
    EXPECT_EQ(s.client.response_to(id).at_pointer("/result/structuredContent/status"), "complete");
    EXPECT_NE(text.find(R"("request_id":"900")"), std::string::npos);
}

TEST(Journal, WithSyncTheLineIsInTheFileWhenTheReplyArrives) {
    temp_dir dir;
    const auto path = dir.path / "j.jsonl";
    irreversible_server s({.path = path.string(), .sync = true});
    auto r = s.client.request("tools/call", {{"name", "wipe"}, {"arguments", boost::json::object{}}});
    ASSERT_EQ(r.at_pointer("/result/structuredContent/status"), "complete");
    // No flush() here: the reply itself says the line is in the file.
    EXPECT_NE(slurp(path).find(R"("tool":"wipe")"), std::string::npos);
    EXPECT_EQ(s.journal->failures(), 0u);
}

TEST(Journal, LinesOfIrreversibleActionsAreNeverDropped) {
    temp_dir dir;
    const auto path = dir.path / "j.jsonl";
    irreversible_server s({.path = path.string(), .queue_capacity = 1});
    for (int i = 0; i < 20; ++i) {
        auto r = s.client.request("tools/call", {{"name", "wipe"}, {"arguments", boost::json::object{}}});
        ASSERT_EQ(r.at_pointer("/result/structuredContent/status"), "complete");
    }
    s.journal->flush();
    std::size_t wipes = 0;
    for (const auto& line : lines_of(slurp(path))) wipes += line.at("tool") == "wipe";
    EXPECT_EQ(wipes, 20u);
    EXPECT_EQ(s.journal->dropped(), 0u);
}

TEST(Journal, RefusesAPathItCannotOpen) { EXPECT_FALSE(ops::journal::open({.path = "/nonexistent-dir/x/j.jsonl"})); }

// The journal writes each line field by field (no object built per call): its text must be the
// object's (`to_json`, which the console and readers know), to the byte, whatever the record holds.
TEST(Journal, ALineIsTheTextOfItsObject) {
    std::vector<mcp::call_record> records(4);
    auto& full = records[1];
    full.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'764'000'123'456));
    full.request_id = "\"7\"";
    full.session = "s-\u00e9t\u00e9";
    full.principal = "alice\\ops";
    full.client_name = "tab\there";
    full.client_version = "1.0\n";
    full.protocol_version = "2026-07-28";
    full.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    full.tracestate = "k=v";
    full.method = "tools/call";
    full.tool = "search_tickets";
    full.contract_version = "tickets-query/1";
    full.action_class = "read_only";
    full.duration = std::chrono::nanoseconds(60'580);
    full.bytes_in = 335;
    full.bytes_out = 6516;
    full.status = "partial";
    full.complete = false;
    full.reason_codes = {"MORE_PAGES_AVAILABLE", "RESULT_LIMIT_REACHED"};
    full.warning_codes = {"STALE_READ"};
    full.issues = {{"UNKNOWN_FIELD", "/filters/*", layer::contract, true},
                   {"OUT_OF_RANGE", "/discount", layer::business, false}};
    full.limits = {{"RESULT_LIMIT_REACHED", 100}, {"MAX_PAGES", 18'446'744'073'709'551'615ull}};
    full.evidence_verdict = "stale";
    full.repair_attempt = 2;
    full.repairs_remaining = -1;
    full.task_id = "t-1";
    auto& refusal = records[2];
    refusal.what = mcp::call_record::kind::protocol_refusal;
    refusal.method = "tools/call";
    refusal.rpc_error = -32602;
    refusal.complete = true;
    refusal.duration = std::chrono::nanoseconds(1);
    records[3] = full;
    records[3].complete.reset();
    records[3].issues.clear();
    records[3].duration = std::chrono::nanoseconds(123'456'789'012);
    for (const auto& r : records) {
        const auto line = ops::to_line(r);
        ASSERT_TRUE(line);
        EXPECT_EQ(*line, json::to_string(ops::to_json(r)).value());
        EXPECT_TRUE(boost::json::parse(*line).is_object());
    }
    // A string that is not UTF-8 makes no line, as it makes no text of the object.
    auto bad = full;
    bad.client_name = "\xff\xfe";
    EXPECT_FALSE(ops::to_line(bad));
    EXPECT_FALSE(json::to_string(ops::to_json(bad)));
}

// Lines written from several threads at once all arrive, each thread's in its order, though the
// writer gathers them in batches.
TEST(LineWriter, LinesOfManyThreadsAllArriveEachThreadsInOrder) {
    temp_dir dir;
    const auto path = (dir.path / "lines.txt").string();
    constexpr int threads = 4;
    constexpr int per_thread = 5'000;
    {
        auto w = ops::line_writer::open({.path = path, .queue_capacity = threads * per_thread}).value();
        std::vector<std::thread> writers;
        for (int t = 0; t < threads; ++t)
            writers.emplace_back([&w, t] {
                for (int i = 0; i < per_thread; ++i)
                    EXPECT_TRUE(w->write_line(std::to_string(t) + " " + std::to_string(i)));
            });
        for (auto& t : writers) t.join();
        w->flush();
        EXPECT_EQ(w->written(), static_cast<std::uint64_t>(threads * per_thread));
        EXPECT_EQ(w->dropped(), 0u);
    }
    std::ifstream in(path);
    std::vector<int> next(threads, 0);
    int t = 0, i = 0, lines = 0;
    while (in >> t >> i) {
        ASSERT_GE(t, 0);
        ASSERT_LT(t, threads);
        EXPECT_EQ(i, next[t]) << "thread " << t;
        next[t] = i + 1;
        ++lines;
    }
    EXPECT_EQ(lines, threads * per_thread);
}

// Writers, durable lines and flushes from several threads at once, with and without a batch
// delay: every line is written, every durable line's callback runs, and a flush returns.
TEST(LineWriter, FlushesAndDurableLinesFromManyThreadsLoseNothing) {
    for (const auto delay : {std::chrono::microseconds(0), std::chrono::microseconds(500)}) {
        temp_dir dir;
        const auto path = (dir.path / "lines.txt").string();
        std::atomic<int> stored{0};
        {
            auto w = ops::line_writer::open({.path = path, .queue_capacity = 10'000, .batch_delay = delay}).value();
            std::vector<std::thread> threads;
            for (int t = 0; t < 4; ++t)
                threads.emplace_back([&w, &stored, t] {
                    for (int i = 0; i < 1'000; ++i) {
                        if (i % 100 == 0) w->write_durable("durable " + std::to_string(t), [&stored] { ++stored; });
                        else EXPECT_TRUE(w->write_line(std::to_string(t) + " " + std::to_string(i)));
                        if (i % 250 == 0) w->flush();
                    }
                });
            std::thread flusher([&w] {
                for (int i = 0; i < 50; ++i) w->flush();
            });
            for (auto& t : threads) t.join();
            flusher.join();
            w->flush();
            EXPECT_EQ(w->written(), 4'000u);
            EXPECT_EQ(w->dropped(), 0u);
            EXPECT_EQ(stored.load(), 40);
        }
        std::ifstream in(path);
        int lines = 0;
        for (std::string line; std::getline(in, line);) ++lines;
        EXPECT_EQ(lines, 4'000);
    }
}

// `flush` does not wait out the batch delay: with a delay of an hour, it still returns once the
// line is written.
TEST(LineWriter, FlushWritesAtOnceWhateverTheBatchDelay) {
    temp_dir dir;
    const auto path = (dir.path / "lines.txt").string();
    auto w = ops::line_writer::open({.path = path, .batch_delay = std::chrono::hours(1)}).value();
    ASSERT_TRUE(w->write_line("first"));
    w->flush();
    EXPECT_EQ(w->written(), 1u);
    std::ifstream in(path);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "first");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The call record's envelope metadata: the facts of the envelope as sealed (numbers, booleans,
// codes, layers, scope defaults), never a message, a text detail, a cursor or the data.

namespace {

struct recorder final : mcp::call_observer {
    explicit recorder(bool reads) : reads_metadata(reads) {}
    bool reads_metadata;
    std::vector<mcp::call_record> records;
    void on_record(const mcp::call_record& r) override { records.push_back(r); }
    bool reads_envelope_metadata() const noexcept override { return reads_metadata; }
};

std::vector<mcp::call_record> records_of_rich_envelopes(bool reads_metadata = true) {
    auto rec = std::make_shared<recorder>(reads_metadata);
    auto opts = test::quiet_options();
    opts.observers = {rec};
    mcp::server srv(opts);
    using envelope_task = boost::asio::awaitable<envelope::envelope>;
    srv.add_tool(
           mcp::make_tool(mcp::tool_info("rich", "partial with everything").with_action(mcp::action_class::read_only),
                          [](const boost::json::object&, mcp::call_context&) -> envelope_task {
                              auto e = envelope::partial(
                                  boost::json::array{1},
                                  {"RESULT_LIMIT_REACHED", "m", {{"limit", 5}, {"query", "secret"}, {"exact", true}}});
                              e.add_reason({"SOURCE_UNAVAILABLE", "m2", {{"source", "s"}}});
                              e.add_warning({"LIVE_VIEW", "w", {{"lag_ms", 15}}});
                              e.continue_with(envelope::continuation::retry_after(30));
                              e.covering({"custom-resource", "principal:x", ""});
                              co_return e;
                          }))
        .value();
    srv.add_tool(
           mcp::make_tool(mcp::tool_info("refuse", "an error with details").with_action(mcp::action_class::read_only),
                          [](const boost::json::object&, mcp::call_context&) -> envelope_task {
                              issue a;
                              a.code = "UNKNOWN_FIELD";
                              a.path = "/filters/secret_key";
                              a.message = "m";
                              a.details = {{"repairable", 7},        {"layer", 3},    {"keyword", 9}, {"limit", 4},
                                           {"repairs_remaining", 2}, {"note", "text"}};
                              issue b;
                              b.code = "EVIDENCE_STALE";
                              b.path = "/ids/0";
                              b.message = "m";
                              b.keyword = "x";
                              b.repairable = false;
                              b.where = layer::external;
                              co_return envelope::failure({a, b});
                          }))
        .value();
    boost::asio::io_context io;
    mcp::memory_client c(srv, io);
    c.initialize();
    c.request("tools/call", {{"name", "rich"}});
    c.request("tools/call", {{"name", "refuse"}});
    return rec->records;
}

}  // namespace

TEST(CallRecord, EnvelopeMetadataKeepsTheFactsOfThePartialResult) {
    const auto records = records_of_rich_envelopes();
    ASSERT_EQ(records.size(), 2u);
    const auto& r = records[0];
    EXPECT_EQ(r.status, "partial");
    EXPECT_EQ(r.complete, false);
    EXPECT_EQ(r.reason_codes, (std::vector<std::string>{"RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE"}));
    EXPECT_EQ(r.warning_codes, std::vector<std::string>{"LIVE_VIEW"});
    ASSERT_EQ(r.limits.size(), 1u);
    EXPECT_EQ(r.limits[0].code, "RESULT_LIMIT_REACHED");
    EXPECT_EQ(r.limits[0].limit, 5u);
    const auto expected = boost::json::parse(R"json({
        "status":"partial","complete":false,
        "incomplete_reasons":[{"limit":5,"exact":true,"code":"RESULT_LIMIT_REACHED"},{"code":"SOURCE_UNAVAILABLE"}],
        "warnings":[{"lag_ms":15,"code":"LIVE_VIEW"}],
        "continuation":{"seconds":30,"kind":"retry_after"},
        "scope":{"resource":"(tool-defined)","visibility":"principal:x","snapshot":"none"},
        "errors":[]})json");
    EXPECT_EQ(boost::json::value(r.envelope_metadata), expected) << boost::json::serialize(r.envelope_metadata);
}

TEST(CallRecord, EnvelopeMetadataKeepsIssueFactsButNotFieldsTheyWouldOverwrite) {
    const auto records = records_of_rich_envelopes();
    ASSERT_EQ(records.size(), 2u);
    const auto& r = records[1];
    EXPECT_EQ(r.status, "error");
    EXPECT_EQ(r.evidence_verdict, "EVIDENCE_STALE");
    EXPECT_EQ(r.repairs_remaining, 2);
    ASSERT_EQ(r.issues.size(), 2u);
    EXPECT_EQ(r.issues[0].path, "/filters/*");  // the caller chose that key
    EXPECT_TRUE(r.issues[0].repairable);
    EXPECT_EQ(r.issues[1].where, layer::external);
    EXPECT_FALSE(r.issues[1].repairable);
    const auto expected = boost::json::parse(R"({
        "status":"error","complete":false,"incomplete_reasons":[],"warnings":[],"continuation":null,
        "scope":{"resource":"refuse","visibility":"caller","snapshot":"none"},
        "errors":[{"repairable":true,"limit":4,"repairs_remaining":2,"code":"UNKNOWN_FIELD","path":"/filters/*","layer":"contract"},
                  {"repairable":false,"code":"EVIDENCE_STALE","path":"/ids/0","layer":"external"}]})");
    EXPECT_EQ(boost::json::value(r.envelope_metadata), expected) << boost::json::serialize(r.envelope_metadata);
}

// Observers that do not read the metadata (metrics) get records without it, and with every
// other fact the same.
TEST(CallRecord, WithoutAReaderTheMetadataIsLeftOutAndNothingElse) {
    const auto with = records_of_rich_envelopes(true);
    const auto without = records_of_rich_envelopes(false);
    ASSERT_EQ(with.size(), 2u);
    ASSERT_EQ(without.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& a = with[k];
        const auto& b = without[k];
        EXPECT_FALSE(a.envelope_metadata.empty());
        EXPECT_TRUE(b.envelope_metadata.empty());
        EXPECT_EQ(a.status, b.status);
        EXPECT_EQ(a.complete, b.complete);
        EXPECT_EQ(a.reason_codes, b.reason_codes);
        EXPECT_EQ(a.warning_codes, b.warning_codes);
        ASSERT_EQ(a.limits.size(), b.limits.size());
        for (std::size_t i = 0; i < a.limits.size(); ++i) {
            EXPECT_EQ(a.limits[i].code, b.limits[i].code);
            EXPECT_EQ(a.limits[i].limit, b.limits[i].limit);
        }
        ASSERT_EQ(a.issues.size(), b.issues.size());
        for (std::size_t i = 0; i < a.issues.size(); ++i) {
            EXPECT_EQ(a.issues[i].code, b.issues[i].code);
            EXPECT_EQ(a.issues[i].path, b.issues[i].path);
            EXPECT_EQ(a.issues[i].where, b.issues[i].where);
            EXPECT_EQ(a.issues[i].repairable, b.issues[i].repairable);
        }
        EXPECT_EQ(a.evidence_verdict, b.evidence_verdict);
        EXPECT_EQ(a.repairs_remaining, b.repairs_remaining);
    }
}
