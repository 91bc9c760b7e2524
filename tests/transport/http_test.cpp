// SPDX-License-Identifier: BSL-1.0
#include <candor/http/server.hpp>

#include <candor/http/policy.hpp>
#include <candor/mcp/tool.hpp>

#include "transport/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
namespace mcp = candor::mcp;
namespace policy = candor::transport::http_policy;
using tcp = net::ip::tcp;
using boost::json::array;
using boost::json::object;

using candor::test::call_body;
using candor::test::initialize_body;

using response = candor::test::http_reply;

using client = candor::test::mcp_client;

boost::json::value parse(const std::string& s) { return boost::json::parse(s); }

using candor::test::sse_messages;

class HttpFixture : public ::testing::Test {
protected:
    void start(candor::transport::http_options opts = {}) {
        srv_ = std::make_unique<mcp::server>(mcp::server_options{.log = {}});
        srv_
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("whoami", "Returns the caller's principal.").with_action(mcp::action_class::read_only),
                [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                    co_return mcp::content_result{array{object{{"type", "text"}, {"text", ctx.caller().id}}}};
                }))
            .value();
        srv_->add_tool(mcp::make_content_tool(
                           mcp::tool_info("count", "Reports progress 1 and 2 of 2, then answers.")
                               .with_action(mcp::action_class::read_only),
                           [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                               ctx.progress(1, 2);
                               ctx.progress(2, 2);
                               co_return mcp::content_result{array{object{{"type", "text"}, {"text", "done"}}}};
                           }))
            .value();
        srv_->add_tool(
                mcp::make_content_tool(mcp::tool_info("shape", "Answers with structured content too.")
                                           .with_action(mcp::action_class::read_only),
                                       [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                                           mcp::content_result r{array{object{{"type", "text"}, {"text", "{}"}}}};
                                           r.structured_content = object{};
                                           co_return r;
                                       }))
            .value();
        opts.threads = 2;
        http_ = std::make_unique<candor::transport::http_server>(*srv_, opts);
        ASSERT_TRUE(http_->start());
        c_.port = http_->port();
    }
    void TearDown() override {
        if (http_) http_->stop();
    }

    std::unique_ptr<mcp::server> srv_;
    std::unique_ptr<candor::transport::http_server> http_;
    client c_{};
};

TEST_F(HttpFixture, InitializeIssuesASessionIdThatLaterRequestsNeed) {
    start();
    const auto id = c_.initialize();
    ASSERT_EQ(id.size(), 32u);
    for (char ch : id) EXPECT_TRUE(ch >= '!' && ch <= '~');
    const std::string list = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
    EXPECT_EQ(c_.post(list).status, 400u);
    EXPECT_EQ(c_.post(list, {{"Mcp-Session-Id", "0123456789abcdef0123456789abcdef"}}).status, 404u);
    auto ok = c_.post(list, {{"Mcp-Session-Id", id}});
    ASSERT_EQ(ok.status, 200u);
    EXPECT_EQ(ok.header("Content-Type"), "application/json");
    EXPECT_EQ(parse(ok.body).at("result").at("tools").as_array().size(), 3u);
    EXPECT_EQ(http_->session_count(), 1u);
}

TEST_F(HttpFixture, DeleteEndsTheSession) {
    start();
    const auto id = c_.initialize();
    EXPECT_EQ(c_.send(http::verb::delete_, "/mcp", "", {{"Mcp-Session-Id", id}}).status, 204u);
    EXPECT_EQ(c_.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"Mcp-Session-Id", id}}).status, 404u);
    EXPECT_EQ(http_->session_count(), 0u);
}

TEST_F(HttpFixture, PostWithoutBothMediaTypesInAcceptIs406) {
    start();
    EXPECT_EQ(c_.post(initialize_body(), {{"Accept", "application/json"}}).status, 406u);
    EXPECT_EQ(c_.post(initialize_body(), {{"Accept", "*/*"}}).status, 406u);
}

TEST_F(HttpFixture, ForeignOriginOrHostIs403) {
    start();
    EXPECT_EQ(c_.post(initialize_body(), {{"Origin", "http://evil.example.com"}}).status, 403u);
    EXPECT_EQ(c_.post(initialize_body(), {{"Host", "evil.example.com"}}).status, 403u);
    EXPECT_EQ(c_.post(initialize_body(), {{"Origin", "http://localhost:3000"}}).status, 200u);
}

TEST_F(HttpFixture, UnsupportedProtocolVersionIs400) {
    start();
    const auto id = c_.initialize();
    auto r = c_.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})",
                     {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "1999-01-01"}});
    EXPECT_EQ(r.status, 400u);
    EXPECT_EQ(parse(r.body).at("error").at("data").at("code"), "UNSUPPORTED_PROTOCOL_VERSION");
    EXPECT_EQ(c_.post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})",
                      {{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-06-18"}})
                  .status,
              200u);
}

TEST_F(HttpFixture, BearerTokenIsRequiredAndItsPrincipalReachesTheTool) {
    candor::transport::http_options opts;
    opts.tokens.emplace("s3cret", mcp::principal{"alice"});
    start(opts);
    auto missing = c_.post(initialize_body());
    EXPECT_EQ(missing.status, 401u);
    EXPECT_EQ(missing.header("WWW-Authenticate").substr(0, 6), "Bearer");
    EXPECT_EQ(c_.post(initialize_body(), {{"Authorization", "Bearer wrong"}}).status, 401u);
    auto init = c_.post(initialize_body(), {{"Authorization", "Bearer s3cret"}});
    ASSERT_EQ(init.status, 200u);
    const auto id = init.header("Mcp-Session-Id");
    auto r = c_.post(call_body(2, "whoami"), {{"Authorization", "Bearer s3cret"}, {"Mcp-Session-Id", id}});
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(parse(r.body).at("result").at("content").at(0).at("text"), "alice");
}

TEST_F(HttpFixture, UnknownToolIsInvalidParams) {
    start();
    const auto id = c_.initialize();
    auto r = c_.post(call_body(2, "no_such_tool"), {{"Mcp-Session-Id", id}});
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(parse(r.body).at("error").at("code"), -32602);
}

TEST_F(HttpFixture, ProgressTravelsOnThePostsEventStreamBeforeTheResponse) {
    start();
    const auto id = c_.initialize();
    auto r = c_.post(call_body(7, "count", R"("_meta":{"progressToken":"p1"})"), {{"Mcp-Session-Id", id}});
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(r.header("Content-Type"), "text/event-stream");
    auto messages = sse_messages(r.body);
    ASSERT_EQ(messages.size(), 3u) << r.body;
    EXPECT_EQ(messages[0].at("method"), "notifications/progress");
    EXPECT_EQ(messages[1].at("params").at("progress"), 2.0);
    EXPECT_EQ(messages[2].at("id"), 7);
    EXPECT_EQ(messages[2].at("result").at("content").at(0).at("text"), "done");
}

TEST_F(HttpFixture, NotificationIsAcceptedWith202AndNoBody) {
    start();
    const auto id = c_.initialize();
    auto r = c_.post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})",
                     {{"Mcp-Session-Id", id}});
    EXPECT_EQ(r.status, 202u);
    EXPECT_TRUE(r.body.empty());
}

TEST_F(HttpFixture, StatelessModeAnswersEveryPostWithoutASession) {
    candor::transport::http_options opts;
    opts.stateless = true;
    start(opts);
    auto r = c_.post(call_body(1, "whoami"), {{"MCP-Protocol-Version", "2025-06-18"}});
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_TRUE(r.header("Mcp-Session-Id").empty());
    EXPECT_TRUE(parse(r.body).at("result").at("content").is_array());
    // Each POST is initialized for the version its header names: 2025-03-26 has no
    // structuredContent.
    auto now = c_.post(call_body(2, "shape"), {{"MCP-Protocol-Version", "2025-06-18"}});
    ASSERT_EQ(now.status, 200u) << now.body;
    EXPECT_TRUE(parse(now.body).at("result").as_object().contains("structuredContent")) << now.body;
    auto old = c_.post(call_body(3, "shape"), {{"MCP-Protocol-Version", "2025-03-26"}});
    ASSERT_EQ(old.status, 200u) << old.body;
    EXPECT_TRUE(parse(old.body).at("result").at("content").is_array());
    EXPECT_FALSE(parse(old.body).at("result").as_object().contains("structuredContent")) << old.body;
    auto init = c_.post(initialize_body());
    EXPECT_EQ(init.status, 200u);
    EXPECT_TRUE(init.header("Mcp-Session-Id").empty());
    EXPECT_EQ(c_.send(http::verb::get, "/mcp", "", {{"Accept", "text/event-stream"}}).status, 405u);
    EXPECT_EQ(http_->session_count(), 0u);
}

TEST_F(HttpFixture, BodyOverTheLimitIs413WithoutReadingItAndTheServerKeepsServing) {
    candor::transport::http_options opts;
    opts.max_body_bytes = 1024;
    start(opts);
    {
        net::io_context ioc;
        tcp::socket s(ioc);
        s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), c_.port));
        // Announces 10 MB and sends only the headers: the answer must not wait for the body.
        const std::string head =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Length: 10000000\r\n\r\n";
        net::write(s, net::buffer(head));
        boost::beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(s, buf, res);
        EXPECT_EQ(res.result_int(), 413u);
        EXPECT_EQ(parse(res.body()).at("error").at("data").at("code"), "BODY_TOO_LARGE");
    }
    EXPECT_EQ(c_.post(initialize_body()).status, 200u);
}

namespace {

// POST `body`, framed by Content-Length or as one chunk; the status and body answered. An
// oversized body is announced only (its Content-Length or chunk size): the refusal must come
// before it is read, and a body written into a closed connection could reset it.
std::pair<unsigned, std::string> post_framed(std::uint16_t port, const std::string& body, bool chunked,
                                             bool announce_only) {
    net::io_context ioc;
    tcp::socket s(ioc);
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    std::string request =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n";
    if (chunked) {
        std::ostringstream size;
        size << std::hex << body.size();
        request += "Transfer-Encoding: chunked\r\n\r\n" + size.str() + "\r\n";
        if (!announce_only) request += body + "\r\n0\r\n\r\n";
    } else {
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
        if (!announce_only) request += body;
    }
    net::write(s, net::buffer(request));
    boost::beast::flat_buffer buf;
    http::response<http::string_body> res;
    http::read(s, buf, res);
    return {res.result_int(), res.body()};
}

}  // namespace

TEST_F(HttpFixture, TheBodyLimitIsTheDocumentedOneForBothFramings) {
    start();
    // The default limit is the server's message body_limit (4 MiB); Beast's own 1 MiB never shows.
    const std::size_t body_limit = srv_->options().message_limits.max_bytes;
    ASSERT_EQ(body_limit, std::size_t{4} << 20);
    const std::string init = initialize_body();
    for (const bool chunked : {false, true}) {
        for (const std::size_t size : {std::size_t{1} << 20, body_limit}) {
            for (const std::size_t n : {size - 1, size, size + 1}) {
                SCOPED_TRACE((chunked ? "chunked, " : "Content-Length, ") + std::to_string(n) + " bytes");
                const auto [status, body] =
                    post_framed(c_.port, init + std::string(n - init.size(), ' '), chunked, n > body_limit);
                if (n <= body_limit) {
                    EXPECT_EQ(status, 200u) << body;
                    EXPECT_NE(body.find("protocolVersion"), std::string::npos) << body;
                } else {
                    EXPECT_EQ(status, 413u) << body;
                    EXPECT_EQ(parse(body).at("error").at("data").at("code"), "BODY_TOO_LARGE") << body;
                }
            }
        }
    }
}

TEST_F(HttpFixture, ClientThatSendsTooSlowlyIsCutOff) {
    candor::transport::http_options opts;
    opts.read_timeout = std::chrono::milliseconds(200);
    start(opts);
    net::io_context ioc;
    tcp::socket s(ioc);
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), c_.port));
    net::write(s, net::buffer(std::string("POST /mcp HTTP/1.1\r\nHost: 1")));  // and then nothing
    char byte;
    boost::system::error_code ec;
    net::read(s, net::buffer(&byte, 1), ec);  // blocks until the server gives up on the request
    EXPECT_EQ(ec, net::error::eof);
    EXPECT_EQ(c_.post(initialize_body()).status, 200u);
}

TEST_F(HttpFixture, FiveHundredIdleConnectionsDoNotStopANormalClient) {
    start();
    net::io_context ioc;
    std::vector<std::unique_ptr<tcp::socket>> idle;
    for (int i = 0; i < 500; ++i) {
        idle.push_back(std::make_unique<tcp::socket>(ioc));
        idle.back()->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), c_.port));
    }
    const auto id = c_.initialize();
    EXPECT_EQ(c_.post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"Mcp-Session-Id", id}}).status, 200u);
}

TEST_F(HttpFixture, HealthAndReadinessEndpointsAnswer200) {
    start();
    EXPECT_EQ(c_.send(http::verb::get, "/healthz", "", {}).status, 200u);
    EXPECT_EQ(c_.send(http::verb::get, "/readyz", "", {}).status, 200u);
    EXPECT_EQ(c_.send(http::verb::get, "/elsewhere", "", {}).status, 404u);
}

TEST(HttpPolicy, AcceptMustListTheTypeItselfWithoutZeroQuality) {
    EXPECT_TRUE(policy::lists_media_type("application/json, text/event-stream", "text/event-stream"));
    EXPECT_TRUE(policy::lists_media_type("Application/JSON;q=0.9", "application/json"));
    EXPECT_FALSE(policy::lists_media_type("*/*", "application/json"));
    EXPECT_FALSE(policy::lists_media_type("application/json;q=0", "application/json"));
    EXPECT_FALSE(policy::lists_media_type("application/jsonx", "application/json"));
}

TEST(HttpPolicy, OnlyLoopbackOriginsAndHostsPassByDefault) {
    EXPECT_TRUE(policy::origin_allowed("http://localhost:5173", {}));
    EXPECT_TRUE(policy::origin_allowed("https://127.0.0.1", {}));
    EXPECT_TRUE(policy::origin_allowed("http://[::1]:80", {}));
    EXPECT_FALSE(policy::origin_allowed("http://localhost.evil.com", {}));
    EXPECT_FALSE(policy::origin_allowed("null", {}));
    EXPECT_TRUE(policy::origin_allowed("https://app.example.com", {"https://app.example.com"}));
    EXPECT_TRUE(policy::host_allowed("127.0.0.1:8080", {}));
    EXPECT_TRUE(policy::host_allowed("LOCALHOST", {}));
    EXPECT_FALSE(policy::host_allowed("evil.example.com", {}));
    EXPECT_FALSE(policy::host_allowed("localhost:80x", {}));
    EXPECT_TRUE(policy::host_allowed("mcp.example.com:443", {"mcp.example.com"}));
}

TEST(HttpPolicy, BearerTokenNeedsTheSchemeAndAToken) {
    EXPECT_EQ(policy::bearer_token("Bearer abc").value_or(""), "abc");
    EXPECT_EQ(policy::bearer_token("bearer  abc ").value_or(""), "abc");
    EXPECT_FALSE(policy::bearer_token("Basic abc"));
    EXPECT_FALSE(policy::bearer_token("Bearer "));
    EXPECT_FALSE(policy::bearer_token("Bearerabc"));
}

TEST(HttpPolicy, SessionIdsAreDistinctVisibleAscii) {
    const auto a = policy::new_session_id();
    const auto b = policy::new_session_id();
    EXPECT_NE(a, b);
    EXPECT_EQ(a.size(), 32u);
    EXPECT_TRUE(policy::protocol_version_supported("2025-03-26"));
    EXPECT_FALSE(policy::protocol_version_supported("2024-11-05"));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Requests from a tool to the client over Streamable HTTP, and stream limits

namespace {

std::string elicitation_answer(const boost::system::result<mcp::elicitation_result, mcp::client_request_error>& r) {
    if (!r) return std::string(mcp::to_string(r.error()));
    return boost::json::serialize(r->content);
}

mcp::content_result text_content(std::string t) {
    return mcp::content_result{array{object{{"type", "text"}, {"text", std::move(t)}}}};
}

object name_schema() { return {{"type", "object"}, {"properties", object{{"name", object{{"type", "string"}}}}}}; }

void add_ask_tool(mcp::server& srv) {
    srv.add_tool(mcp::make_content_tool(
                     mcp::tool_info("ask", "Asks the user for a name.").with_action(mcp::action_class::read_only),
                     [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                         auto r = co_await ctx.elicit(std::string("Name?"), name_schema());
                         co_return text_content(elicitation_answer(r));
                     }))
        .value();
}

// Initialize declaring the elicitation capability. @return the session id
std::string initialize_eliciting(const client& c) {
    auto r = c.post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                    R"("capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}})");
    EXPECT_EQ(r.status, 200u) << r.body;
    const auto id = r.header("Mcp-Session-Id");
    EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {{"Mcp-Session-Id", id}}).status,
              202u);
    return id;
}

// A POST whose response is read as it arrives.
struct open_post {
    net::io_context ioc;
    tcp::socket socket{ioc};
    std::string received;

    open_post(std::uint16_t port, const std::string& session, const std::string& body) {
        socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        const std::string head =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMcp-Session-Id: " +
            session + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        net::write(socket, net::buffer(head));
    }
    // Read until `text` has arrived. @return false if the stream ended first
    bool read_until(std::string_view text) { return candor::test::read_until(socket, received, text); }
};

}  // namespace

TEST_F(HttpFixture, ElicitationTravelsOnTheCallsStreamAndThePostedReplyReachesTheTool) {
    start();
    add_ask_tool(*srv_);
    const auto session = initialize_eliciting(c_);
    open_post call(c_.port, session, call_body(5, "ask"));
    ASSERT_TRUE(call.read_until("elicitation/create"));
    ASSERT_TRUE(call.read_until("\n\n"));
    EXPECT_NE(call.received.find("text/event-stream"), std::string::npos);
    auto messages = sse_messages(call.received.substr(call.received.find("\r\n\r\n")));
    ASSERT_EQ(messages.size(), 1u) << call.received;
    EXPECT_EQ(messages[0].at("params").at("message"), "Name?");
    // The reply is a separate POST on the same session: accepted with 202, no body.
    object reply{{"jsonrpc", "2.0"},
                 {"id", messages[0].at("id")},
                 {"result", object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}}}};
    auto ack = c_.post(boost::json::serialize(reply), {{"Mcp-Session-Id", session}});
    EXPECT_EQ(ack.status, 202u);
    EXPECT_TRUE(ack.body.empty());
    ASSERT_TRUE(call.read_until("0\r\n\r\n"));
    messages = sse_messages(call.received.substr(call.received.find("\r\n\r\n")));
    ASSERT_EQ(messages.size(), 2u) << call.received;
    EXPECT_EQ(messages[1].at("id"), 5);
    EXPECT_EQ(messages[1].at("result").at("content").at(0).at("text"), R"({"name":"Ada"})");
}

TEST_F(HttpFixture, ElicitationWithoutTheCapabilityIsNotSupportedAndNothingIsStreamed) {
    start();
    add_ask_tool(*srv_);
    const auto session = c_.initialize();  // no capabilities
    auto r = c_.post(call_body(5, "ask"), {{"Mcp-Session-Id", session}});
    ASSERT_EQ(r.status, 200u);
    EXPECT_EQ(r.header("Content-Type"), "application/json");
    EXPECT_EQ(parse(r.body).at("result").at("content").at(0).at("text"), "not_supported");
}

TEST_F(HttpFixture, StatelessModeCannotElicit) {
    candor::transport::http_options opts;
    opts.stateless = true;
    start(opts);
    add_ask_tool(*srv_);
    // No session can carry the reply, so the capability is never assumed.
    auto r = c_.post(call_body(1, "ask"), {{"MCP-Protocol-Version", "2025-11-25"}});
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(parse(r.body).at("result").at("content").at(0).at("text"), "not_supported");
}

TEST_F(HttpFixture, GetStreamsPerSessionAreBounded) {
    start();
    const auto session = c_.initialize();
    net::io_context ioc;
    tcp::socket first(ioc);
    first.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), c_.port));
    EXPECT_EQ(candor::test::open_get_stream(first, session), 200u);
    // The default bound is one GET stream per session.
    auto second = c_.send(http::verb::get, "/mcp", "", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", session}});
    EXPECT_EQ(second.status, 409u);
    EXPECT_EQ(parse(second.body).at("error").at("data").at("code"), "TOO_MANY_STREAMS");
}

TEST_F(HttpFixture, CorsIsNotNeededAndNotOffered) {
    start();
    // A same-machine client with an allowed Origin is served without any CORS exchange, and
    // the server grants no cross-origin access.
    auto r = c_.post(initialize_body(), {{"Origin", "http://127.0.0.1:5173"}});
    EXPECT_EQ(r.status, 200u);
    EXPECT_TRUE(r.header("Access-Control-Allow-Origin").empty());
    auto preflight = c_.send(http::verb::options, "/mcp", "",
                             {{"Origin", "http://127.0.0.1:5173"}, {"Access-Control-Request-Method", "POST"}});
    EXPECT_EQ(preflight.status, 405u);
    EXPECT_TRUE(preflight.header("Access-Control-Allow-Origin").empty());
}

TEST_F(HttpFixture, CancellingACallWhileItWaitsForTheClientEndsItsStreamWithoutAResponse) {
    start();
    add_ask_tool(*srv_);
    const auto session = initialize_eliciting(c_);
    open_post call(c_.port, session, call_body(6, "ask"));
    ASSERT_TRUE(call.read_until("elicitation/create"));
    auto cancel = c_.post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}})",
                          {{"Mcp-Session-Id", session}});
    EXPECT_EQ(cancel.status, 202u);
    ASSERT_TRUE(call.read_until("0\r\n\r\n"));
    for (const auto& m : sse_messages(call.received.substr(call.received.find("\r\n\r\n"))))
        EXPECT_FALSE(m.as_object().contains("result")) << boost::json::serialize(m);
    // The session still serves.
    EXPECT_EQ(c_.post(R"({"jsonrpc":"2.0","id":7,"method":"ping"})", {{"Mcp-Session-Id", session}}).status, 200u);
}
