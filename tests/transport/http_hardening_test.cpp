// SPDX-License-Identifier: BSL-1.0
// The HTTP transport against clients that misbehave on purpose: streams read slowly or not at
// all, framing that is not quite HTTP, silent connections, one principal taking every session,
// and probes while the server drains. Each test drives a real socket.
#include <candor/http/server.hpp>

#include <candor/mcp/tool.hpp>

#include "transport/http_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <vector>

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
namespace mcp = candor::mcp;
using tcp = net::ip::tcp;
using boost::json::array;
using boost::json::object;

using candor::test::initialize_body;
using candor::test::sse_messages;

mcp::content_result text_result(std::string text) {
    return mcp::content_result{array{object{{"type", "text"}, {"text", std::move(text)}}}};
}

class HttpHardening : public ::testing::Test {
protected:
    void SetUp() override {
        srv_ = std::make_unique<mcp::server>(mcp::server_options{.log = {}});
        // 100 progress notifications of 2 KB each, at once, then the answer.
        srv_->add_tool(mcp::make_content_tool(
                           mcp::tool_info("chatty", "Reports progress 100 times, then answers.")
                               .with_action(mcp::action_class::read_only),
                           [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                               for (int i = 1; i <= 100; ++i) ctx.progress(i, 100, std::string(2000, 'p'));
                               co_return text_result("done");
                           }))
            .value();
        add_gated_tool();
        srv_->add_tool(mcp::make_content_tool(
                           mcp::tool_info("large", "Answers 8 KB.").with_action(mcp::action_class::read_only),
                           [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                               co_return text_result(std::string(8000, 'l'));
                           }))
            .value();
    }
    // Waits until the test opens the gate (each call on a timer the gate cancels).
    void add_gated_tool() {
        srv_
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("gated", "Answers once the test lets it.").with_action(mcp::action_class::read_only),
                [gate = gate_](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                    net::steady_timer wait(co_await net::this_coro::executor, net::steady_timer::time_point::max());
                    gate->enter(wait);
                    (void)co_await wait.async_wait(net::as_tuple(net::use_awaitable));
                    co_return text_result("passed");
                }))
            .value();
    }
    void start(candor::transport::http_options opts) {
        if (opts.threads == 0) opts.threads = 2;
        http_ = std::make_unique<candor::transport::http_server>(*srv_, opts);
        ASSERT_TRUE(http_->start());
        port_ = http_->port();
    }
    void TearDown() override {
        if (http_) http_->stop();
    }

    candor::test::http_reply post(const std::string& body, std::map<std::string, std::string> headers = {}) const {
        return candor::test::mcp_client{port_}.post(body, std::move(headers));
    }
    std::string initialize() const { return candor::test::mcp_client{port_}.initialize(); }

    // The gate of the `gated` tool: calls wait at it until `open`.
    struct gate {
        std::mutex mutex;
        std::condition_variable changed;
        std::vector<net::steady_timer*> waiting;
        bool opened = false;
        void enter(net::steady_timer& t) {
            std::lock_guard lock(mutex);
            if (opened) t.expires_at(net::steady_timer::time_point::min());
            else waiting.push_back(&t);
            changed.notify_all();
        }
        // Wait until `n` calls wait at the gate.
        void wait_for(std::size_t n) {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return waiting.size() >= n; });
        }
        void open() {
            std::lock_guard lock(mutex);
            opened = true;
            for (auto* t : waiting) net::post(t->get_executor(), [t] { t->cancel(); });
            waiting.clear();
        }
        // Let the call that came to the gate first through (it must be there).
        void release_one() {
            std::lock_guard lock(mutex);
            ASSERT_FALSE(waiting.empty());
            auto* t = waiting.front();
            waiting.erase(waiting.begin());
            net::post(t->get_executor(), [t] { t->cancel(); });
        }
    };
    std::shared_ptr<gate> gate_ = std::make_shared<gate>();

    std::unique_ptr<mcp::server> srv_;
    std::unique_ptr<candor::transport::http_server> http_;
    std::uint16_t port_ = 0;
};

std::string data_code(const std::string& body) {
    return std::string(boost::json::parse(body).at("error").at("data").at("code").as_string());
}

// Waits for the server to close `s`: 0 once it did, 1 if it sent a byte, -1 if nothing happened
// within ten seconds (a read timeout keeps a regression from hanging the test).
int wait_for_close(tcp::socket& s) {
    const timeval ten_seconds{10, 0};
    ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &ten_seconds, sizeof ten_seconds);
    char byte;
    const auto n = ::recv(s.native_handle(), &byte, 1, 0);
    return n < 0 ? -1 : static_cast<int>(n);
}

// What a client that sends `bytes` as they are gets: the response, and whether the server
// closed the connection after it.
struct raw_reply {
    unsigned status = 0;
    std::string body;
    bool closed = false;
};

raw_reply send_raw(std::uint16_t port, const std::string& bytes) {
    net::io_context ioc;
    tcp::socket s(ioc);
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    net::write(s, net::buffer(bytes));
    boost::beast::flat_buffer buf;
    http::response<http::string_body> res;
    boost::system::error_code ec;
    http::read(s, buf, res, ec);
    raw_reply out;
    if (ec) return out;
    out.status = res.result_int();
    out.body = res.body();
    out.closed = wait_for_close(s) == 0;
    return out;
}

// A POST to the endpoint with the media types it requires, `framing` for the fields that frame
// its body, and `body` as sent.
std::string raw_post(const std::string& framing, const std::string& body) {
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Accept: application/json, text/event-stream\r\n" +
           framing + "\r\n" + body;
}

}  // namespace

TEST_F(HttpHardening, FramingThatIsNotQuiteHttpIsRefusedAndTheConnectionClosed) {
    start({});
    const std::string init = initialize_body();
    const std::string hex = [&] {
        char b[16];
        std::snprintf(b, sizeof b, "%zx", init.size());
        return std::string(b);
    }();
    const std::string chunked_body = hex + "\r\n" + init + "\r\n0\r\n\r\n";
    const std::string length = "Content-Length: " + std::to_string(init.size()) + "\r\n";
    // The same initialize, framed properly, is served: the refusals below are for the framing.
    EXPECT_EQ(send_raw(port_, raw_post("Connection: close\r\nTransfer-Encoding: chunked\r\n", chunked_body)).status,
              200u);
    EXPECT_EQ(send_raw(port_, raw_post("Connection: close\r\n" + length, init)).status, 200u);

    struct refused_case {
        std::string what, bytes;
        unsigned status;
        std::string code;
    };
    const std::vector<refused_case> cases = {
        {"a coding the server does not decode", raw_post("Transfer-Encoding: gzip, chunked\r\n", chunked_body), 501,
         "UNSUPPORTED_TRANSFER_CODING"},
        {"obsolete line folding", raw_post("X-Note: a\r\n folded\r\n" + length, init), 400, "OBSOLETE_LINE_FOLDING"},
        {"a list of lengths",
         raw_post("Content-Length: " + std::to_string(init.size()) + ", " + std::to_string(init.size()) + "\r\n", init),
         400, "BAD_CONTENT_LENGTH"},
        {"both framings", raw_post(length + "Transfer-Encoding: chunked\r\n", chunked_body), 400,
         "CONFLICTING_FRAMING"},
        {"two Transfer-Encoding lines",
         raw_post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunked_body), 400,
         "BAD_TRANSFER_ENCODING"},
        {"Transfer-Encoding on HTTP/1.0",
         "POST /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_body, 400,
         "TRANSFER_ENCODING_IN_HTTP10"},
        {"a bare LF", "POST /mcp HTTP/1.1\nHost: 127.0.0.1\r\n" + length + "\r\n" + init, 400, "BARE_LINE_BREAK"},
        {"a NUL in a field", raw_post(std::string("X-Note: a\0b\r\n", 14) + length, init), 400, "INVALID_HEADER_BYTE"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const auto r = send_raw(port_, c.bytes);
        EXPECT_EQ(r.status, c.status) << r.body;
        if (r.status == c.status) {
            EXPECT_EQ(data_code(r.body), c.code);
        }
        EXPECT_TRUE(r.closed) << "the connection must not be reused after a framing error";
    }
    EXPECT_EQ(http_->session_count(), 2u) << "only the two well-framed initializes opened a session";
}

TEST_F(HttpHardening, AStreamThatFallsMaxQueuedBytesBehindEnds) {
    // One I/O thread: the tool's 100 notifications (200 KB) are all queued before the response
    // writer runs, as they would be for a client that reads nothing.
    candor::transport::http_options opts;
    opts.threads = 1;
    opts.max_queued_bytes = 64 << 10;
    start(opts);
    const auto session = initialize();
    auto r = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{},)"
                  R"("_meta":{"progressToken":"p"}}})",
                  {{"Mcp-Session-Id", session}});
    // The first notification went out before the others piled up; then the stream ended, without
    // the response (the spec's "the server may close the stream"; the client may retry).
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(r.header("Content-Type"), "text/event-stream");
    const auto events = sse_messages(r.body);
    EXPECT_LT(events.size(), 101u);
    for (const auto& e : events) EXPECT_FALSE(e.as_object().contains("id")) << "the response came after all";
    // The session still serves.
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"Mcp-Session-Id", session}}).status, 200u);
}

TEST_F(HttpHardening, AResponseLargerThanMaxQueuedBytesIsStillSent) {
    candor::transport::http_options opts;
    opts.max_queued_bytes = 1024;
    start(opts);
    const auto session = initialize();
    auto r = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"large","arguments":{}}})",
                  {{"Mcp-Session-Id", session}});
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(boost::json::parse(r.body).at("result").at("content").at(0).at("text").as_string().size(), 8000u);
}

TEST_F(HttpHardening, AGetStreamWhoseClientStopsReadingIsClosedWithinTheWriteTimeout) {
    // Messages that belong to no request (a subscribed resource's updates, 2 KB each) go out on
    // the GET stream. Its client reads nothing: once the socket buffers on both ends are full, a
    // write waits, and the write timeout must end it and the connection. The queue's bounds are
    // far above what is sent, so that nothing else ends the stream.
    const std::string uri = "mem://" + std::string(2000, 'u');
    srv_->add_resource(
            {uri, "large", "", "", "text/plain", {}},
            [uri](const mcp::resource_request&) -> net::awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                co_return std::vector{mcp::resource_contents::of_text(uri, "text/plain", "u")};
            })
        .value();
    candor::transport::http_options opts;
    opts.write_timeout = std::chrono::milliseconds(200);
    opts.max_queued_messages = 1u << 20;
    opts.max_queued_bytes = 1u << 30;
    start(opts);
    const auto session = initialize();
    const auto subscribed =
        post(R"({"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":")" + uri + R"("}})",
             {{"Mcp-Session-Id", session}});
    ASSERT_EQ(subscribed.status, 200u) << subscribed.body;

    net::io_context ioc;
    tcp::socket stream(ioc);
    stream.open(tcp::v4());
    stream.set_option(net::socket_base::receive_buffer_size(4096));  // a small window, soon full
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_));
    ASSERT_EQ(candor::test::open_get_stream(stream, session), 200u);

    // Updates go out, 128 KB a round, until the server closes the connection: every connection
    // it served is gone, though this client still holds its end. A few MB fill the buffers
    // (Linux lets a socket's send buffer grow to tcp_wmem's last value, 4 MB by default); 64 MB
    // are more than any host's hold. Waited for well under the default write timeout (30 s).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::size_t sent = 0;
    while (http_->connection_count() > 0 && std::chrono::steady_clock::now() < give_up) {
        for (int i = 0; i < 64 && sent < (64u << 20); ++i, sent += uri.size()) srv_->notify_resource_updated(uri);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(http_->connection_count(), 0u) << "a client that reads nothing holds its stream past the write timeout";
}

TEST_F(HttpHardening, SilentConnectionsAtTheCapGiveWayToARealClient) {
    candor::transport::http_options opts;
    opts.max_connections = 50;
    opts.min_idle_to_evict = std::chrono::milliseconds(0);  // waiting at all is enough here
    start(opts);
    net::io_context ioc;
    std::vector<std::unique_ptr<tcp::socket>> silent;
    for (int i = 0; i < 60; ++i) {
        silent.push_back(std::make_unique<tcp::socket>(ioc));
        silent.back()->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_));
    }
    // Every one of them accepted (the server counts those it closed until they are gone).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (http_->connection_count() < 50 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    ASSERT_GE(http_->connection_count(), 50u);
    // The cap is full of connections that only wait: the longest waiting gives way.
    const auto r = post(initialize_body());
    EXPECT_EQ(r.status, 200u) << r.body;
    // The first silent connection was closed for it, without an answer.
    EXPECT_EQ(wait_for_close(*silent.front()), 0);
}

// A crowd of newcomers at the cap (4,000 clients for 1,024 connections, say) is refused; it
// does not close, one by one, connections whose clients are between two quick requests.
TEST_F(HttpHardening, AtTheCapClientsBetweenTwoRequestsKeepTheirConnections) {
    candor::transport::http_options opts;
    opts.max_connections = 8;
    opts.min_idle_to_evict = std::chrono::hours(1);
    start(opts);
    net::io_context ioc;
    const std::string request =
        raw_post("Content-Length: " + std::to_string(initialize_body().size()) + "\r\n", initialize_body());
    auto ask = [&](tcp::socket& s) {
        net::write(s, net::buffer(request));
        boost::beast::flat_buffer buf;
        http::response<http::string_body> res;
        boost::system::error_code ec;
        http::read(s, buf, res, ec);
        return ec ? 0u : res.result_int();
    };
    std::vector<std::unique_ptr<tcp::socket>> kept;
    for (int i = 0; i < 8; ++i) {
        kept.push_back(std::make_unique<tcp::socket>(ioc));
        kept.back()->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_));
        ASSERT_EQ(ask(*kept.back()), 200u) << "client " << i;
    }
    for (int i = 0; i < 20; ++i) {
        const auto r = send_raw(port_, request);
        EXPECT_EQ(r.status, 503u) << "newcomer " << i << ": " << r.body;
        EXPECT_NE(r.body.find("TOO_MANY_CONNECTIONS"), std::string::npos) << r.body;
    }
    // Every kept-alive client is still served on its own connection.
    for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(ask(*kept[i]), 200u) << "client " << i;
}

TEST_F(HttpHardening, AConnectionThatSendsNothingIsClosedAfterTheHeaderTimeout) {
    candor::transport::http_options opts;
    opts.header_timeout = std::chrono::milliseconds(200);
    opts.idle_timeout = std::chrono::minutes(5);
    start(opts);
    net::io_context ioc;
    tcp::socket s(ioc);
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_));
    // Not the idle timeout: the server closes a silent connection once the header timeout has
    // passed since the accept.
    EXPECT_EQ(wait_for_close(s), 0) << "closed without an answer";
}

namespace {

candor::transport::http_options with_principals(std::size_t max_sessions, std::size_t share) {
    candor::transport::http_options opts;
    opts.tokens = {{"admin-token", mcp::principal{"admin"}},
                   {"team-a-token", mcp::principal{"team-a"}},
                   {"team-c-token", mcp::principal{"team-c"}}};
    opts.max_sessions = max_sessions;
    opts.max_sessions_per_principal = share;
    return opts;
}

std::map<std::string, std::string> bearer(const std::string& token, const std::string& session = {}) {
    std::map<std::string, std::string> h{{"Authorization", "Bearer " + token}};
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    return h;
}

}  // namespace

TEST_F(HttpHardening, OnePrincipalCannotTakeEverySession) {
    start(with_principals(8, 4));
    // admin opens 20 sessions: past its share of 4, its own oldest give way, and nobody else's.
    std::vector<std::string> admin;
    for (int i = 0; i < 20; ++i) {
        const auto r = post(initialize_body(), bearer("admin-token"));
        ASSERT_EQ(r.status, 200u) << "initialize " << i << ": " << r.body;
        admin.push_back(r.header("Mcp-Session-Id"));
    }
    EXPECT_EQ(http_->session_count(), 4u);
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", bearer("admin-token", admin.front())).status, 404u)
        << "the oldest gave way";
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", bearer("admin-token", admin.back())).status, 200u);
    // team-a still gets its share.
    for (int i = 0; i < 4; ++i) EXPECT_EQ(post(initialize_body(), bearer("team-a-token")).status, 200u);
    EXPECT_EQ(http_->session_count(), 8u);
}

TEST_F(HttpHardening, AFullTableClosesASessionNobodyUsedBeforeOneInUse) {
    start(with_principals(8, 4));
    std::vector<std::string> admin;
    std::vector<std::string> team_a;
    for (int i = 0; i < 4; ++i) {
        admin.push_back(post(initialize_body(), bearer("admin-token")).header("Mcp-Session-Id"));
        EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", bearer("admin-token", admin.back())).status,
                  200u);
    }
    for (int i = 0; i < 4; ++i)
        team_a.push_back(post(initialize_body(), bearer("team-a-token")).header("Mcp-Session-Id"));
    // Full: team-c's initialize closes the least recently used session nobody used (team-a's
    // first), not one of admin's sessions in use.
    EXPECT_EQ(post(initialize_body(), bearer("team-c-token")).status, 200u);
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", bearer("team-a-token", team_a.front())).status, 404u);
    for (const auto& id : admin)
        EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", bearer("admin-token", id)).status, 200u);
    EXPECT_EQ(http_->session_count(), 8u);
}

TEST_F(HttpHardening, ASessionWithAnOpenStreamNeverGivesWay) {
    start(with_principals(8, 2));
    net::io_context ioc;
    std::vector<std::unique_ptr<tcp::socket>> streams;
    for (int i = 0; i < 2; ++i) {
        const auto id = post(initialize_body(), bearer("admin-token")).header("Mcp-Session-Id");
        streams.push_back(std::make_unique<tcp::socket>(ioc));
        streams.back()->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_));
        ASSERT_EQ(candor::test::open_get_stream(*streams.back(), id, "Authorization: Bearer admin-token\r\n"), 200u);
    }
    // Both of admin's sessions are busy: a third is refused rather than cut one off.
    const auto r = post(initialize_body(), bearer("admin-token"));
    EXPECT_EQ(r.status, 503u);
    EXPECT_EQ(data_code(r.body), "TOO_MANY_SESSIONS");
    EXPECT_FALSE(r.header("Retry-After").empty());
    EXPECT_EQ(post(initialize_body(), bearer("team-a-token")).status, 200u) << "others keep their share";
}

TEST(HttpDrain, OnSigtermTheServerKeepsAcceptingAnswersReadyz503AndFinishesWhatIsInFlight) {
    // serve_http on a thread of its own, which alone waits for SIGTERM (sent to it, not to the
    // process); its log says which port it took.
    std::mutex mu;
    std::condition_variable cv;
    std::uint16_t port = 0;
    std::atomic<bool> call_running{false};
    mcp::server srv(mcp::server_options{.log = [&](mcp::log_level, std::string_view text) {
        const auto at = text.find("http://127.0.0.1:");
        if (at == std::string_view::npos) return;
        std::lock_guard lock(mu);
        port = static_cast<std::uint16_t>(std::stoi(std::string(text.substr(at + 17))));
        cv.notify_all();
    }});
    srv.add_tool(mcp::make_content_tool(
                     mcp::tool_info("slow", "Answers after 300 ms.").with_action(mcp::action_class::read_only),
                     [&](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                         call_running = true;
                         net::steady_timer t(co_await net::this_coro::executor, std::chrono::milliseconds(300));
                         co_await t.async_wait(net::use_awaitable);
                         co_return text_result("done");
                     }))
        .value();
    candor::transport::http_options opts;
    opts.threads = 2;
    opts.drain_period = std::chrono::minutes(1);  // ended below by a second signal
    int status = -1;
    std::thread serving([&] { status = candor::transport::serve_http(srv, opts); });
    std::thread call;
    // However the test ends: the server is stopped (two signals: the drain period, then at once).
    struct stop_at_end {
        std::thread& serving;
        std::thread& call;
        ~stop_at_end() {
            if (call.joinable()) call.join();
            for (int i = 0; i < 2 && serving.joinable(); ++i) ::pthread_kill(serving.native_handle(), SIGTERM);
            if (serving.joinable()) serving.join();
        }
    } stop{serving, call};
    {
        std::unique_lock lock(mu);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return port != 0; }));
    }
    // A refused connection is status 0, not an exception: the regression this test guards
    // against is a listener that closes at once.
    auto fetch = [&](http::verb verb, const std::string& target, std::map<std::string, std::string> headers = {},
                     const std::string& body = {}) {
        try {
            return candor::test::http_fetch(port, verb, target, headers, body);
        } catch (const std::exception&) {
            return candor::test::http_reply{};
        }
    };
    auto post = [&](const std::string& body, std::map<std::string, std::string> headers = {}) {
        headers.emplace("Content-Type", "application/json");
        headers.emplace("Accept", "application/json, text/event-stream");
        return fetch(http::verb::post, "/mcp", headers, body);
    };
    const auto session = post(initialize_body()).header("Mcp-Session-Id");
    ASSERT_FALSE(session.empty());
    candor::test::http_reply in_flight;
    call = std::thread([&] {
        in_flight = post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}})",
                         {{"Mcp-Session-Id", session}});
    });
    while (!call_running) std::this_thread::yield();

    ASSERT_EQ(::pthread_kill(serving.native_handle(), SIGTERM), 0);
    // Still accepting: a probe gets an answer, and it says "not ready" (poll until the signal
    // was taken: before that, 200).
    unsigned ready = 200;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ready == 200 && std::chrono::steady_clock::now() < give_up) ready = fetch(http::verb::get, "/readyz").status;
    EXPECT_EQ(ready, 503u);
    EXPECT_EQ(fetch(http::verb::get, "/healthz").status, 200u);
    const auto refused = post(initialize_body());
    ASSERT_EQ(refused.status, 503u);
    EXPECT_EQ(data_code(refused.body), "DRAINING");
    EXPECT_FALSE(refused.header("Retry-After").empty());
    // What the client sends about work in flight (a notification, a reply) still gets through.
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}})",
                   {{"Mcp-Session-Id", session}})
                  .status,
              202u);
    // The call that was running is answered.
    call.join();
    EXPECT_EQ(in_flight.status, 200u);
    EXPECT_EQ(boost::json::parse(in_flight.body).at("result").at("content").at(0).at("text"), "done");

    ASSERT_EQ(::pthread_kill(serving.native_handle(), SIGTERM), 0);  // ends the drain period
    serving.join();
    EXPECT_EQ(status, 0);
}

namespace {

// A 2026-07-28 request's body: `method` with `params` and the request's _meta.
std::string modern_body(int id, const std::string& method, const std::string& params) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + method + R"(","params":{)" + params +
           (params.empty() ? "" : ",") +
           R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
           R"("io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},)"
           R"("io.modelcontextprotocol/clientCapabilities":{}}}})";
}

std::map<std::string, std::string> modern_headers(const std::string& token, const std::string& method) {
    return {{"Authorization", "Bearer " + token}, {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}};
}

// A subscriptions/listen stream held open on its own connection.
struct listen_stream {
    net::io_context ioc;
    tcp::socket socket{ioc};
    std::string received;

    // Open the stream as the holder of `token`. @return the status line's code, once the
    // acknowledgement arrived (200) or the refusal was read
    unsigned open(std::uint16_t port, const std::string& token, int id) {
        socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        const auto body = modern_body(id, "subscriptions/listen", R"("notifications":{"toolsListChanged":true})");
        std::string request =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n";
        for (const auto& [k, v] : modern_headers(token, "subscriptions/listen")) request += k + ": " + v + "\r\n";
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        net::write(socket, net::buffer(request));
        if (!candor::test::read_until(socket, received, "\r\n")) return 0;
        const unsigned status = static_cast<unsigned>(std::stoi(received.substr(9, 3)));
        if (status == 200 && !candor::test::read_until(socket, received, "subscriptions/acknowledged")) return 0;
        return status;
    }

    // Read until `text` arrives (ten seconds at most). @return whether it did
    bool hears(std::string_view text) {
        const timeval ten_seconds{10, 0};
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &ten_seconds, sizeof ten_seconds);
        char buf[4096];
        while (received.find(text) == std::string::npos) {
            const auto n = ::recv(socket.native_handle(), buf, sizeof buf, 0);
            if (n <= 0) return false;
            received.append(buf, static_cast<std::size_t>(n));
        }
        return true;
    }

    // Read until the server closes the stream (ten seconds at most). @return whether it did
    bool ends() {
        const timeval ten_seconds{10, 0};
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &ten_seconds, sizeof ten_seconds);
        char buf[4096];
        for (;;) {
            const auto n = ::recv(socket.native_handle(), buf, sizeof buf, 0);
            if (n == 0) return true;
            if (n < 0) return false;
            received.append(buf, static_cast<std::size_t>(n));
        }
    }
};

candor::transport::http_options listen_limits(std::size_t per_principal, std::size_t server_wide) {
    candor::transport::http_options opts;
    opts.tokens = {{"admin-token", mcp::principal{"admin"}}, {"team-a-token", mcp::principal{"team-a"}}};
    opts.max_connections = 64;
    opts.max_listen_streams_per_principal = per_principal;
    opts.max_listen_streams = server_wide;
    return opts;
}

}  // namespace

TEST_F(HttpHardening, OnePrincipalsListenStreamsNeverCrowdOutOthers) {
    start(listen_limits(8, 32));
    // admin opens 1,030 listen streams and never closes one itself: past its 8, its oldest
    // ends (with the listen's own response) for each new one, so it never holds more than 8
    // connections of the 64.
    std::deque<std::unique_ptr<listen_stream>> open;
    for (int i = 0; i < 1030; ++i) {
        auto s = std::make_unique<listen_stream>();
        ASSERT_EQ(s->open(port_, "admin-token", i), 200u) << "listen " << i << ": " << s->received;
        open.push_back(std::move(s));
        if (open.size() > 8) {
            ASSERT_TRUE(open.front()->ends()) << "listen " << i - 8 << " was not closed for listen " << i;
            EXPECT_NE(open.front()->received.find(R"("resultType":"complete")"), std::string::npos)
                << open.front()->received;
            open.pop_front();
        }
        if (i % 103 == 0) {
            // Another principal is served throughout, and the replica stays ready.
            const auto listed = post(modern_body(1, "tools/list", ""), modern_headers("team-a-token", "tools/list"));
            ASSERT_EQ(listed.status, 200u) << "at listen " << i << ": " << listed.body;
            EXPECT_EQ(candor::test::http_fetch(port_, http::verb::get, "/readyz").status, 200u) << "at listen " << i;
            listen_stream theirs;
            ASSERT_EQ(theirs.open(port_, "team-a-token", 1), 200u) << theirs.received;
        }
    }
    // The 8 newest are still live.
    for (auto& s : open) EXPECT_TRUE(s->socket.is_open());
}

TEST_F(HttpHardening, AListenStreamHearsAChangeMadeAfterItOpened) {
    // Its connection serves that one request, and joins the connections told of changes when
    // the request is a listen (an ordinary stateless request never does).
    start(listen_limits(8, 32));
    listen_stream s;
    ASSERT_EQ(s.open(port_, "admin-token", 1), 200u) << s.received;
    srv_->add_tool(mcp::make_content_tool(mcp::tool_info("added_later", "Registered while a client listens."),
                                          [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                                              co_return text_result("here");
                                          }))
        .value();
    EXPECT_TRUE(s.hears("notifications/tools/list_changed")) << s.received;
}

TEST_F(HttpHardening, ListenStreamsAreBoundedServerWide) {
    start(listen_limits(8, 3));
    std::vector<std::unique_ptr<listen_stream>> admin;
    for (int i = 0; i < 3; ++i) {
        admin.push_back(std::make_unique<listen_stream>());
        ASSERT_EQ(admin.back()->open(port_, "admin-token", i), 200u) << admin.back()->received;
    }
    // The server holds as many as it may: a new one is refused, whoever asks.
    listen_stream refused;
    ASSERT_EQ(refused.open(port_, "team-a-token", 9), 503u) << refused.received;
    ASSERT_TRUE(candor::test::read_until(refused.socket, refused.received, "TOO_MANY_STREAMS")) << refused.received;
    EXPECT_NE(refused.received.find("Retry-After"), std::string::npos) << refused.received;
    // Calls are still served.
    EXPECT_EQ(post(modern_body(1, "tools/list", ""), modern_headers("team-a-token", "tools/list")).status, 200u);
    // A stream that ends frees its place (the server sees the client go; retried until it has).
    admin.front()->socket.close();
    unsigned status = 0;
    for (int attempt = 0; attempt < 500 && status != 200; ++attempt) {
        listen_stream again;
        status = again.open(port_, "team-a-token", 10);
        if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(status, 200u);
}

namespace {

std::string gated_call(int id) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"tools/call","params":{"name":"gated","arguments":{}}})";
}

// One I/O thread with one slot (the limit and the queue are divided among the threads).
candor::transport::http_options one_slot(std::chrono::milliseconds delay, std::size_t queued = 16,
                                         std::size_t per_principal = 16) {
    candor::transport::http_options opts;
    opts.threads = 1;
    opts.stateless = true;
    opts.tokens = {{"admin-token", mcp::principal{"admin"}}, {"team-a-token", mcp::principal{"team-a"}}};
    opts.max_requests_in_flight = 1;
    opts.max_queue_delay = delay;
    opts.max_queued_requests = queued;
    opts.max_queued_requests_per_principal = per_principal;
    return opts;
}

}  // namespace

TEST_F(HttpHardening, ARequestPastTheLimitWaitsForASlotInsteadOfBeingRefused) {
    start(one_slot(std::chrono::minutes(1)));
    auto first = std::async(std::launch::async, [&] { return post(gated_call(1), bearer("admin-token")); });
    gate_->wait_for(1);  // the one slot is taken
    auto second = std::async(std::launch::async, [&] { return post(gated_call(2), bearer("admin-token")); });
    auto third = std::async(std::launch::async, [&] { return post(gated_call(3), bearer("team-a-token")); });
    while (http_->queued_requests() < 2) std::this_thread::yield();  // both wait for it
    gate_->open();
    for (auto* f : {&first, &second, &third}) {
        const auto r = f->get();
        EXPECT_EQ(r.status, 200u) << r.body;
        EXPECT_NE(r.body.find("passed"), std::string::npos) << r.body;
    }
    EXPECT_EQ(http_->queued_requests(), 0u);
}

TEST_F(HttpHardening, ARequestThatWaitsPastTheQueueDelayOrFindsTheQueueFullIsRefusedWithRetryAfter) {
    start(one_slot(std::chrono::milliseconds(50), 1));
    auto first = std::async(std::launch::async, [&] { return post(gated_call(1), bearer("admin-token")); });
    gate_->wait_for(1);
    // The queue holds one: the one after it is refused at once.
    auto waiting = std::async(std::launch::async, [&] { return post(gated_call(2), bearer("admin-token")); });
    while (http_->queued_requests() < 1) std::this_thread::yield();
    const auto full = post(gated_call(3), bearer("team-a-token"));
    EXPECT_EQ(full.status, 503u) << full.body;
    EXPECT_EQ(data_code(full.body), "TOO_MANY_REQUESTS_IN_FLIGHT");
    EXPECT_NE(full.body.find("queue is full"), std::string::npos) << full.body;
    // The one queued gets no slot within 50 ms (the gate stays shut): refused, Retry-After.
    const auto late = waiting.get();
    EXPECT_EQ(late.status, 503u) << late.body;
    EXPECT_EQ(data_code(late.body), "TOO_MANY_REQUESTS_IN_FLIGHT");
    EXPECT_NE(late.body.find("in time"), std::string::npos) << late.body;
    EXPECT_EQ(late.header("Retry-After"), "1");
    gate_->open();
    EXPECT_EQ(first.get().status, 200u);
    EXPECT_EQ(post(gated_call(4), bearer("admin-token")).status, 200u);  // and the slot serves again
}

TEST_F(HttpHardening, EachIoThreadAdmitsAndQueuesItsOwnConnectionsRequests) {
    // Two threads, one slot each; connections go to the threads in turn.
    auto opts = one_slot(std::chrono::minutes(1));
    opts.threads = 2;
    opts.max_requests_in_flight = 2;
    start(opts);
    auto first = std::async(std::launch::async, [&] { return post(gated_call(1), bearer("admin-token")); });
    gate_->wait_for(1);  // the first thread's slot is taken
    // The second thread's slot serves a call, and is free again.
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"large","arguments":{}}})",
                   bearer("admin-token"))
                  .status,
              200u);
    // The first thread's next request waits for its own thread's slot.
    auto third = std::async(std::launch::async, [&] { return post(gated_call(3), bearer("admin-token")); });
    while (http_->queued_requests() < 1) std::this_thread::yield();
    // The second thread's next one is answered at once.
    auto fourth = std::async(std::launch::async, [&] { return post(gated_call(4), bearer("admin-token")); });
    gate_->wait_for(2);
    EXPECT_EQ(http_->queued_requests(), 1u);
    gate_->open();
    for (auto* f : {&first, &third, &fourth}) EXPECT_EQ(f->get().status, 200u);
    EXPECT_EQ(http_->queued_requests(), 0u);
}

TEST_F(HttpHardening, ARequestJoiningAStandingQueueWaitsNoLongerThanTheInterval) {
    // Every wait counts as past the target, and one is enough: the queue stands once a request
    // left it after waiting, and a request that joins it then waits at most the interval (0).
    auto opts = one_slot(std::chrono::minutes(1));
    opts.queue_delay_target = std::chrono::milliseconds(0);
    opts.queue_delay_interval = std::chrono::milliseconds(0);
    start(opts);
    auto first = std::async(std::launch::async, [&] { return post(gated_call(1), bearer("admin-token")); });
    gate_->wait_for(1);
    auto second = std::async(std::launch::async, [&] { return post(gated_call(2), bearer("admin-token")); });
    while (http_->queued_requests() < 1) std::this_thread::yield();
    gate_->release_one();  // the first is answered; the second leaves the queue for its slot
    EXPECT_EQ(first.get().status, 200u);
    gate_->wait_for(1);
    const auto late = post(gated_call(3), bearer("team-a-token"));
    EXPECT_EQ(late.status, 503u) << late.body;
    EXPECT_EQ(data_code(late.body), "TOO_MANY_REQUESTS_IN_FLIGHT");
    EXPECT_NE(late.body.find("in time"), std::string::npos) << late.body;
    EXPECT_EQ(late.header("Retry-After"), "1");
    // The queue empties: it no longer stands, and the next request past the slot waits again.
    gate_->release_one();
    EXPECT_EQ(second.get().status, 200u);
    auto fourth = std::async(std::launch::async, [&] { return post(gated_call(4), bearer("admin-token")); });
    gate_->wait_for(1);
    auto fifth = std::async(std::launch::async, [&] { return post(gated_call(5), bearer("admin-token")); });
    while (http_->queued_requests() < 1) std::this_thread::yield();
    gate_->release_one();
    EXPECT_EQ(fourth.get().status, 200u);
    gate_->wait_for(1);
    gate_->release_one();
    EXPECT_EQ(fifth.get().status, 200u);
}

namespace {

// A tools/call of `name`: on the 2026-07-28 revision (its headers too), or on the 2025 wire of a
// stateless server.
candor::test::http_reply call_tool(const candor::test::mcp_client& client, int id, const std::string& name,
                                   bool modern) {
    const std::string params = R"("name":")" + name + R"(","arguments":{})";
    if (!modern)
        return client.post(
            R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{)" + params + "}}",
            {{"Authorization", "Bearer admin-token"}});
    auto headers = modern_headers("admin-token", "tools/call");
    headers.emplace("Mcp-Name", name);
    return client.post(modern_body(id, "tools/call", params), headers);
}

struct counting_observer final : mcp::call_observer {
    std::atomic<int> records{0};
    void on_record(const mcp::call_record& r) override {
        if (r.what == mcp::call_record::kind::tool_call) ++records;
    }
};

}  // namespace

TEST_F(HttpHardening, EveryIoThreadSeesToolsAndObserversAddedOrRemovedWhileItServes) {
    auto opts = one_slot(std::chrono::minutes(1));
    opts.threads = 2;
    opts.max_requests_in_flight = 0;
    start(opts);
    const candor::test::mcp_client client{port_};
    // Connections go to the threads in turn: four calls reach both, on each wire.
    for (int i = 0; i < 4; ++i) {
        const auto r = call_tool(client, i, "late", i % 2 == 0);
        EXPECT_NE(r.body.find("unknown tool"), std::string::npos) << r.body;
    }
    srv_->add_tool(mcp::make_content_tool(
                       mcp::tool_info("late", "Added while serving.").with_action(mcp::action_class::read_only),
                       [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                           co_return text_result("here now");
                       }))
        .value();
    for (int i = 0; i < 4; ++i) {
        const auto r = call_tool(client, 10 + i, "late", i % 2 == 0);
        EXPECT_EQ(r.status, 200u) << r.body;
        EXPECT_NE(r.body.find("here now"), std::string::npos) << r.body;
    }
    auto seen = std::make_shared<counting_observer>();
    srv_->add_observer(seen);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(call_tool(client, 20 + i, "late", i % 2 == 0).status, 200u);
    EXPECT_EQ(seen->records.load(), 4);
    ASSERT_TRUE(srv_->remove_tool("late"));
    for (int i = 0; i < 4; ++i) {
        const auto r = call_tool(client, 30 + i, "late", i % 2 == 0);
        EXPECT_NE(r.body.find("unknown tool"), std::string::npos) << r.body;
    }
}

TEST_F(HttpHardening, ACallInFlightKeepsItsToolWhenTheToolIsRemoved) {
    auto opts = one_slot(std::chrono::minutes(1));
    opts.threads = 2;
    start(opts);
    const candor::test::mcp_client client{port_};
    for (const bool modern : {true, false}) {
        SCOPED_TRACE(modern ? "2026-07-28" : "2025 wire");
        std::weak_ptr<const mcp::tool_handler> held = srv_->find_tool("gated");
        ASSERT_FALSE(held.expired());
        auto running = std::async(std::launch::async, [&] { return call_tool(client, 1, "gated", modern); });
        gate_->wait_for(1);
        ASSERT_TRUE(srv_->remove_tool("gated"));
        EXPECT_FALSE(held.expired());  // the call holds it
        gate_->release_one();
        const auto r = running.get();
        EXPECT_EQ(r.status, 200u) << r.body;
        EXPECT_NE(r.body.find("passed"), std::string::npos) << r.body;
        EXPECT_NE(call_tool(client, 2, "gated", modern).body.find("unknown tool"), std::string::npos);
        add_gated_tool();  // back, for the other wire
    }
}

TEST_F(HttpHardening, OneCallersQueuedRequestsNeverCrowdOutAnothers) {
    start(one_slot(std::chrono::minutes(1), 16, 2));
    auto first = std::async(std::launch::async, [&] { return post(gated_call(1), bearer("admin-token")); });
    gate_->wait_for(1);
    std::vector<std::future<candor::test::http_reply>> queued;
    for (int i = 2; i <= 3; ++i)
        queued.push_back(std::async(std::launch::async, [&, i] { return post(gated_call(i), bearer("admin-token")); }));
    while (http_->queued_requests() < 2) std::this_thread::yield();
    // admin has its two places in the queue: its third is refused, team-a's is queued.
    const auto crowded = post(gated_call(4), bearer("admin-token"));
    EXPECT_EQ(crowded.status, 503u) << crowded.body;
    EXPECT_EQ(data_code(crowded.body), "TOO_MANY_REQUESTS_IN_FLIGHT");
    EXPECT_NE(crowded.body.find("this caller"), std::string::npos) << crowded.body;
    auto theirs = std::async(std::launch::async, [&] { return post(gated_call(5), bearer("team-a-token")); });
    while (http_->queued_requests() < 3) std::this_thread::yield();
    gate_->open();
    EXPECT_EQ(first.get().status, 200u);
    for (auto& f : queued) EXPECT_EQ(f.get().status, 200u);
    EXPECT_EQ(theirs.get().status, 200u);
}
