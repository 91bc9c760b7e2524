// SPDX-License-Identifier: BSL-1.0
// SSE resumption on the 2025-11-25 wire: event ids, the priming event, the log a call goes on
// writing after its client went away, `Last-Event-ID` on the same server and on another one
// that shares the log (one SQLite file), and the refusals of a resume.
#include <candor/sqlite/sql_database.hpp>
#include <candor/transport/event_log.hpp>

#include <candor/http/server.hpp>
#include <candor/mcp/stateless.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/offload/worker.hpp>
#include <candor/state/sql_event_log.hpp>
#include <candor/state/sql_session_records.hpp>

#include "transport/http_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
namespace mcp = candor::mcp;
namespace st = candor::store;
namespace tr = candor::transport;
using boost::json::array;
using boost::json::object;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr const char* wire = "2025-11-25";

// A call with a progress token, so that its notifications travel before its result.
std::string progress_call(int id, const std::string& tool) {
    return candor::test::call_body(id, tool, R"("_meta":{"progressToken":"p"})");
}

// One SSE event as the client sees it.
struct sse_event {
    std::string id;
    std::string data;
};

// The events of an SSE body (de-chunked, or raw: chunk-size lines are passed over).
std::vector<sse_event> events_of(const std::string& body) {
    std::vector<sse_event> out;
    std::string id;
    std::size_t pos = 0;
    while (pos < body.size()) {
        auto end = body.find('\n', pos);
        if (end == std::string::npos) break;
        std::string line = body.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.rfind("id: ", 0) == 0) id = line.substr(4);
        if (line.rfind("data: ", 0) == 0 || line == "data:") {
            out.push_back({id, line.size() > 6 ? line.substr(6) : std::string()});
            id.clear();
        }
        pos = end + 1;
    }
    return out;
}

// A request's stream read as it arrives, and cut when the test says.
struct open_stream {
    net::io_context ioc;
    tcp::socket socket{ioc};
    std::string received;

    open_stream(std::uint16_t port, const std::string& request) {
        socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        net::write(socket, net::buffer(request));
    }
    static std::unique_ptr<open_stream> post(std::uint16_t port, const std::string& session, const std::string& body) {
        return std::make_unique<open_stream>(
            port,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: " +
                std::string(wire) + "\r\nMcp-Session-Id: " + session +
                "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
    }
    static std::unique_ptr<open_stream> get(std::uint16_t port, const std::string& session,
                                            const std::string& last_event_id = {}) {
        return std::make_unique<open_stream>(
            port, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: " +
                      std::string(wire) + "\r\nMcp-Session-Id: " + session + "\r\n" +
                      (last_event_id.empty() ? "" : "Last-Event-ID: " + last_event_id + "\r\n") + "\r\n");
    }
    // Read until `text` has arrived. @return false if the stream ended first
    bool read_until(std::string_view text) { return candor::test::read_until(socket, received, text); }
    std::vector<sse_event> events() const { return events_of(received.substr(received.find("\r\n\r\n"))); }
    void cut() {
        boost::system::error_code ignored;
        socket.shutdown(tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
    }
};

// Holds a call between its first notification and the rest until the test opens it.
struct gate {
    std::atomic<bool> open{false};
};

// An event log that fails, or stalls, when the test says: a database that is down or stuck.
class switchable_log final : public tr::event_log {
public:
    std::atomic<bool> failing{false};
    std::atomic<int> stall_ms{0};
    tr::memory_event_log inner;

    tr::event_log_result<void> append(const tr::logged_event& e, std::size_t keep) override {
        if (auto t = trouble()) return *t;
        return inner.append(e, keep);
    }
    tr::event_log_result<std::vector<tr::logged_event>> read(std::string_view session, std::string_view stream,
                                                             std::uint64_t from, std::size_t max,
                                                             std::chrono::system_clock::time_point now) override {
        if (auto t = trouble()) return *t;
        return inner.read(session, stream, from, max, now);
    }
    tr::event_log_result<std::size_t> purge(std::chrono::system_clock::time_point now) override {
        return inner.purge(now);
    }

private:
    std::optional<tr::event_log_error> trouble() const {
        if (const int ms = stall_ms.load()) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        if (failing) return tr::event_log_error{"the log is down"};
        return std::nullopt;
    }
};

// One server: the tools, and the HTTP transport with the options the test gives.
struct resumable_replica {
    std::unique_ptr<mcp::server> srv;
    std::unique_ptr<tr::http_server> http;
    candor::test::mcp_client client{};

    void start(tr::http_options opts, std::shared_ptr<gate> held) {
        srv = std::make_unique<mcp::server>(mcp::server_options{.log = {}});
        srv->add_tool(mcp::make_content_tool(
                          mcp::tool_info("count", "Reports progress 1 to 5 of 5, then answers.")
                              .with_action(mcp::action_class::read_only),
                          [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                              for (int i = 1; i <= 5; ++i) ctx.progress(i, 5);
                              co_return mcp::content_result{array{object{{"type", "text"}, {"text", "counted"}}}};
                          }))
            .value();
        srv->add_tool(mcp::make_content_tool(
                          mcp::tool_info("held", "Reports progress 1 of 3, waits for the gate, then 2 and 3.")
                              .with_action(mcp::action_class::read_only),
                          [held](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                              ctx.progress(1, 3);
                              net::steady_timer timer(co_await net::this_coro::executor);
                              while (!held->open) {
                                  timer.expires_after(5ms);
                                  co_await timer.async_wait(net::as_tuple(net::use_awaitable));
                              }
                              ctx.progress(2, 3);
                              ctx.progress(3, 3);
                              co_return mcp::content_result{array{object{{"type", "text"}, {"text", "released"}}}};
                          }))
            .value();
        opts.threads = 2;
        http = std::make_unique<tr::http_server>(*srv, std::move(opts));
        ASSERT_TRUE(http->start());
        client.port = http->port();
    }
    ~resumable_replica() {
        if (http) http->stop();
    }

    candor::test::http_reply resume(const std::string& session, const std::string& last_event_id) const {
        return client.send(http::verb::get, "/mcp", "",
                           {{"Accept", "text/event-stream"},
                            {"MCP-Protocol-Version", wire},
                            {"Mcp-Session-Id", session},
                            {"Last-Event-ID", last_event_id}});
    }
    candor::test::http_reply call(const std::string& session, int id, const std::string& tool) const {
        return client.post(progress_call(id, tool), {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", wire}});
    }
};

std::string code_of(const candor::test::http_reply& r) {
    return std::string(boost::json::parse(r.body).at("error").at("data").at("code").as_string());
}

double progress_of(const sse_event& e) {
    return boost::json::parse(e.data).at("params").at("progress").to_number<double>();
}

class Resumption : public ::testing::Test {
protected:
    void start(tr::http_options opts = {}) { a_.start(std::move(opts), held_); }

    // The held call on `r`, cut once its first notification arrived. @return its events so far
    std::vector<sse_event> cut_after_first_event(const resumable_replica& r, const std::string& session) {
        auto call = open_stream::post(r.client.port, session, progress_call(9, "held"));
        EXPECT_TRUE(call->read_until("notifications/progress"));
        EXPECT_TRUE(call->read_until("\n\n"));
        call->cut();
        return call->events();
    }

    std::shared_ptr<gate> held_ = std::make_shared<gate>();
    resumable_replica a_;
};

// The events that follow the first notification of the held call, and nothing else.
void expect_the_rest(const candor::test::http_reply& resumed, const std::string& stream) {
    ASSERT_EQ(resumed.status, 200u) << resumed.body;
    EXPECT_EQ(resumed.header("Content-Type"), "text/event-stream");
    const auto events = events_of(resumed.body);
    ASSERT_EQ(events.size(), 3u) << resumed.body;
    EXPECT_EQ(events[0].id, stream + "-2");
    EXPECT_EQ(progress_of(events[0]), 2.0);
    EXPECT_EQ(events[1].id, stream + "-3");
    EXPECT_EQ(progress_of(events[1]), 3.0);
    EXPECT_EQ(events[2].id, stream + "-4");
    const auto result = boost::json::parse(events[2].data);
    EXPECT_EQ(result.at("id"), 9);
    EXPECT_EQ(result.at("result").at("content").at(0).at("text"), "released");
}

std::string stream_of(const std::string& event_id) { return event_id.substr(0, event_id.rfind('-')); }

TEST_F(Resumption, APostStreamOpensWithAPrimingEventAndEveryEventHasAnId) {
    start();
    const auto session = a_.client.initialize();
    const auto r = a_.call(session, 2, "count");
    ASSERT_EQ(r.status, 200u) << r.body;
    const auto events = events_of(r.body);
    ASSERT_EQ(events.size(), 7u) << r.body;
    EXPECT_TRUE(events[0].data.empty()) << "the priming event carries no message";
    EXPECT_NE(r.body.find("retry: 1000\n"), std::string::npos) << r.body;
    const auto stream = stream_of(events[0].id);
    EXPECT_EQ(stream.size(), 33u);
    for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, stream + "-" + std::to_string(i));
    // Another stream of the session has another id.
    const auto again = events_of(a_.call(session, 3, "count").body);
    ASSERT_FALSE(again.empty());
    EXPECT_NE(stream_of(again[0].id), stream);
}

TEST_F(Resumption, AStreamCutAfterItsFirstEventResumesWithExactlyTheRestAndTheResponse) {
    start();
    const auto session = a_.client.initialize();
    const auto seen = cut_after_first_event(a_, session);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_TRUE(seen[0].data.empty());
    EXPECT_EQ(progress_of(seen[1]), 1.0);
    // The call goes on without its client; what it sends is logged for the resume.
    held_->open = true;
    const auto resumed = a_.resume(session, seen[1].id);
    expect_the_rest(resumed, stream_of(seen[1].id));
    // The log keeps the stream for its retention: a second resume from the same id gets the
    // same events, and one from the last gets nothing and ends.
    expect_the_rest(a_.resume(session, seen[1].id), stream_of(seen[1].id));
    const auto after_last = a_.resume(session, stream_of(seen[1].id) + "-4");
    EXPECT_EQ(after_last.status, 200u);
    EXPECT_TRUE(events_of(after_last.body).empty()) << after_last.body;
    // The session serves on.
    EXPECT_EQ(a_.call(session, 10, "count").status, 200u);
}

TEST_F(Resumption, AResumeBeforeTheCallGoesOnFollowsItToItsResponse) {
    start();
    const auto session = a_.client.initialize();
    const auto seen = cut_after_first_event(a_, session);
    ASSERT_EQ(seen.size(), 2u);
    auto resumed = open_stream::get(a_.client.port, session, seen[1].id);
    ASSERT_TRUE(resumed->read_until("200 OK"));
    held_->open = true;
    ASSERT_TRUE(resumed->read_until("0\r\n\r\n"));
    const auto events = resumed->events();
    ASSERT_EQ(events.size(), 3u) << resumed->received;
    EXPECT_EQ(events[2].id, stream_of(seen[1].id) + "-4");
    EXPECT_NE(events[2].data.find("released"), std::string::npos);
}

TEST_F(Resumption, ABadLastEventIdIsRefusedWithAStableCodeNever404) {
    start();
    const auto session = a_.client.initialize();
    const auto other = a_.client.initialize();
    const auto r = a_.call(session, 2, "count");
    const auto id = events_of(r.body).at(3).id;
    for (const char* malformed : {"nonsense", "p12-1", "x0123456789abcdef0123456789abcdef-1",
                                  "p0123456789abcdef0123456789abcdef-", "p0123456789abcdef0123456789abcdef-1x"}) {
        const auto bad = a_.resume(session, malformed);
        EXPECT_EQ(bad.status, 400u) << malformed;
        EXPECT_EQ(code_of(bad), "MALFORMED_LAST_EVENT_ID") << malformed;
    }
    // Another session's event: this session has no such event.
    const auto foreign = a_.resume(other, id);
    EXPECT_EQ(foreign.status, 410u);
    EXPECT_EQ(code_of(foreign), "LAST_EVENT_ID_GONE");
    // An id of the right shape that no stream had.
    const auto unknown = a_.resume(session, stream_of(id) + "-99");
    EXPECT_EQ(unknown.status, 410u);
    EXPECT_EQ(code_of(unknown), "LAST_EVENT_ID_GONE");
    // And the right session resumes.
    EXPECT_EQ(events_of(a_.resume(session, id).body).size(), 3u);
}

TEST_F(Resumption, AnExpiredEventIsGone) {
    auto log = std::make_shared<tr::memory_event_log>();
    tr::http_options opts;
    opts.event_log = log;
    start(opts);
    const auto session = a_.client.initialize();
    const std::string stream = "p0123456789abcdef0123456789abcdef";
    for (std::uint64_t seq = 0; seq < 3; ++seq) {
        tr::logged_event e{session, stream, seq, seq == 2, seq ? "{}" : "", std::chrono::system_clock::now()};
        e.expires += seq == 0 ? -1s : 1h;
        ASSERT_TRUE(log->append(e, 10));
    }
    const auto expired = a_.resume(session, stream + "-0");
    EXPECT_EQ(expired.status, 410u);
    EXPECT_EQ(code_of(expired), "LAST_EVENT_ID_GONE");
    EXPECT_EQ(a_.resume(session, stream + "-1").status, 200u);
}

TEST_F(Resumption, PastTheBoundTheOldestEventsAreDroppedAndTheNewestResume) {
    tr::http_options opts;
    opts.max_logged_events_per_stream = 3;
    start(opts);
    const auto session = a_.client.initialize();
    const auto r = a_.call(session, 2, "count");
    const auto events = events_of(r.body);
    ASSERT_EQ(events.size(), 7u) << "the client connected gets every event, whatever the bound";
    const auto stream = stream_of(events[0].id);
    // Events 0 to 3 are gone: only the newest three (4, 5 and the response) are kept.
    const auto dropped = a_.resume(session, stream + "-3");
    EXPECT_EQ(dropped.status, 410u);
    EXPECT_EQ(code_of(dropped), "LAST_EVENT_ID_GONE");
    const auto kept = a_.resume(session, stream + "-4");
    ASSERT_EQ(kept.status, 200u);
    const auto rest = events_of(kept.body);
    ASSERT_EQ(rest.size(), 2u) << kept.body;
    EXPECT_EQ(rest[1].id, stream + "-6");
    EXPECT_NE(rest[1].data.find("counted"), std::string::npos);
}

TEST_F(Resumption, ALogThatFailsStillSendsLiveAndAResumeIs503WithinTheTimeout) {
    auto log = std::make_shared<switchable_log>();
    tr::http_options opts;
    opts.event_log = log;
    opts.event_log_timeout = 200ms;
    start(opts);
    const auto session = a_.client.initialize();
    const auto ok = a_.call(session, 2, "count");
    const auto id = events_of(ok.body).at(1).id;
    log->failing = true;
    // Writes fail: the events go out anyway.
    const auto live = a_.call(session, 3, "count");
    ASSERT_EQ(live.status, 200u);
    EXPECT_EQ(events_of(live.body).size(), 7u) << live.body;
    const auto failed = a_.resume(session, id);
    EXPECT_EQ(failed.status, 503u);
    EXPECT_EQ(code_of(failed), "EVENT_LOG_UNAVAILABLE");
    EXPECT_EQ(failed.header("Retry-After"), "1");
    // Stuck: the answer comes within the timeout, not when the log does.
    log->failing = false;
    log->stall_ms = 1500;
    const auto t0 = std::chrono::steady_clock::now();
    const auto stuck = a_.resume(session, id);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
    EXPECT_EQ(stuck.status, 503u);
    EXPECT_EQ(code_of(stuck), "EVENT_LOG_UNAVAILABLE");
    log->stall_ms = 0;
    // Back up once the stuck read has ended (until then the worker is busy with it).
    auto back = a_.resume(session, id);
    for (int i = 0; i < 100 && back.status == 503u; ++i) back = a_.resume(session, id);
    ASSERT_EQ(back.status, 200u);
    EXPECT_EQ(events_of(back.body).size(), 5u);
}

// A tool added while a GET stream is open: its list_changed belongs to no request.
void add_late_tool(mcp::server& srv) {
    srv.add_tool(mcp::make_content_tool(
                     mcp::tool_info("late", "Added while a stream is open.").with_action(mcp::action_class::read_only),
                     [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                         co_return mcp::content_result{array{}};
                     }))
        .value();
}

TEST_F(Resumption, AGetStreamResumesWithWhatWasLoggedThenGoesOnAsANewStream) {
    start();
    const auto session = a_.client.initialize();
    auto first = open_stream::get(a_.client.port, session);
    ASSERT_TRUE(first->read_until("\ndata: \n\n"));
    // A message that belongs to no request travels on the GET stream.
    add_late_tool(*a_.srv);
    ASSERT_TRUE(first->read_until("list_changed"));
    ASSERT_TRUE(first->read_until("\n\n"));
    const auto seen = first->events();
    ASSERT_EQ(seen.size(), 2u) << first->received;
    EXPECT_EQ(seen[0].id.front(), 'g');
    first->cut();
    auto resumed = open_stream::get(a_.client.port, session, seen[0].id);
    ASSERT_TRUE(resumed->read_until("\ndata: \n\n"));
    const auto events = resumed->events();
    ASSERT_EQ(events.size(), 2u) << resumed->received;
    EXPECT_EQ(events[0].id, seen[1].id);
    EXPECT_NE(events[0].data.find("list_changed"), std::string::npos);
    EXPECT_TRUE(events[1].data.empty());
    EXPECT_NE(stream_of(events[1].id), stream_of(seen[0].id)) << "a new stream, with an id of its own";
}

TEST_F(Resumption, AResumedGetStreamReplacesTheStreamItResumesEvenBeforeThatIsSeenToBeGone) {
    start();
    const auto session = a_.client.initialize();
    // The client lost this stream, but nothing told the server (a dropped network sends no FIN):
    // here it is still open and holds the session's only GET slot.
    auto lost = open_stream::get(a_.client.port, session);
    ASSERT_TRUE(lost->read_until("\ndata: \n\n"));
    const auto seen = lost->events();
    ASSERT_EQ(seen.size(), 1u) << lost->received;
    auto resumed = open_stream::get(a_.client.port, session, seen[0].id);
    ASSERT_TRUE(resumed->read_until("\ndata: \n\n")) << resumed->received;
    add_late_tool(*a_.srv);
    EXPECT_TRUE(resumed->read_until("list_changed")) << resumed->received;
    EXPECT_FALSE(lost->read_until("list_changed")) << "the stream resumed has ended: " << lost->received;
}

TEST_F(Resumption, OtherRevisionsCarryNoEventIds) {
    start();
    const auto session = a_.client.initialize();
    // The same session without the 2025-11-25 version header: the 2025-03-26 wire.
    const auto old = a_.client.post(progress_call(2, "count"), {{"Mcp-Session-Id", session}});
    ASSERT_EQ(old.status, 200u);
    EXPECT_EQ(old.header("Content-Type"), "text/event-stream");
    EXPECT_EQ(old.body.find("id: "), std::string::npos) << old.body;
    // The stateless revision removed resumability.
    object params{{"name", "count"},
                  {"arguments", object{}},
                  {"_meta", object{{"progressToken", "p"},
                                   {std::string(mcp::meta_key::protocol_version), "2026-07-28"},
                                   {std::string(mcp::meta_key::client_info), object{{"name", "t"}, {"version", "1"}}},
                                   {std::string(mcp::meta_key::client_capabilities), object{}}}}};
    const object call{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", params}};
    const auto modern =
        a_.client.post(boost::json::serialize(call),
                       {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "count"}});
    ASSERT_EQ(modern.status, 200u) << modern.body;
    EXPECT_EQ(modern.header("Content-Type"), "text/event-stream");
    EXPECT_EQ(candor::test::sse_messages(modern.body).size(), 6u) << modern.body;
    EXPECT_EQ(modern.body.find("id: "), std::string::npos) << modern.body;
    EXPECT_EQ(modern.body.find("retry: "), std::string::npos) << modern.body;
}

TEST_F(Resumption, OffTheWireIsAsBefore) {
    tr::http_options opts;
    opts.resumable_streams = false;
    start(opts);
    const auto session = a_.client.initialize();
    const auto r = a_.call(session, 2, "count");
    EXPECT_EQ(r.body.find("id: "), std::string::npos) << r.body;
    // Last-Event-ID means nothing then: a plain GET stream opens.
    auto get = open_stream::get(a_.client.port, session, "p0123456789abcdef0123456789abcdef-1");
    EXPECT_TRUE(get->read_until("200 OK"));
}

// Two replicas with one SQLite file: session records and the event log shared.
class SharedResumption : public ::testing::Test {
protected:
    void SetUp() override {
        path_ = std::filesystem::temp_directory_path() /
                ("candor_resumption_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
        remove_files();
        a_.start(options(), held_);
        b_.start(options(), held_);
    }
    void TearDown() override {
        a_.http->stop();
        b_.http->stop();
        remove_files();
    }
    tr::http_options options() {
        auto db = candor::sqlite::open_sql_database(path_.string()).value();
        auto worker = std::make_shared<candor::offload::worker>(1);
        tr::http_options opts;
        opts.shared_sessions = candor::state::sql_session_records::open(db).value();
        opts.shared_sessions_worker = worker;
        opts.event_log = candor::state::sql_event_log::open(db).value();
        opts.event_log_worker = worker;
        opts.event_log_poll = 20ms;
        return opts;
    }
    void remove_files() {
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
    }

    std::filesystem::path path_;
    std::shared_ptr<gate> held_ = std::make_shared<gate>();
    resumable_replica a_, b_;
};

TEST_F(SharedResumption, AStreamCutOnOneReplicaResumesOnTheOtherWithExactlyTheRest) {
    const auto session = a_.client.initialize();
    auto call = open_stream::post(a_.client.port, session, progress_call(9, "held"));
    ASSERT_TRUE(call->read_until("notifications/progress"));
    ASSERT_TRUE(call->read_until("\n\n"));
    call->cut();
    const auto seen = call->events();
    ASSERT_EQ(seen.size(), 2u);
    // B follows the stream in the log while A's call is still held, then gets the rest.
    auto resumed = open_stream::get(b_.client.port, session, seen[1].id);
    ASSERT_TRUE(resumed->read_until("200 OK"));
    held_->open = true;
    ASSERT_TRUE(resumed->read_until("0\r\n\r\n"));
    const auto events = resumed->events();
    ASSERT_EQ(events.size(), 3u) << resumed->received;
    const auto stream = stream_of(seen[1].id);
    EXPECT_EQ(events[0].id, stream + "-2");
    EXPECT_EQ(events[1].id, stream + "-3");
    EXPECT_EQ(events[2].id, stream + "-4");
    EXPECT_NE(events[2].data.find("released"), std::string::npos);
    // Once it is all logged, a resume on B replays it at once.
    expect_the_rest(b_.resume(session, seen[1].id), stream);
    // Another session (on B) finds nothing of it.
    const auto other = b_.client.initialize();
    EXPECT_EQ(b_.resume(other, seen[1].id).status, 410u);
}

}  // namespace
