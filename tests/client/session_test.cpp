// SPDX-License-Identifier: BSL-1.0
// Sessions: the revision agreed with the server (probe, fallback, either era on demand) over
// HTTP and stdio, and every server message read strictly — a duplicate key, a line past the
// limit, silence and a server that exits are errors with their codes, never a crash or a hang.
// The stdio servers here are shell scripts that answer what the client is known to send.
#include "client/client_support.hpp"

#include <candor/mcp/stateless.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <array>
#include <thread>

namespace candor::test {
namespace {

using boost::json::object;

struct opened {
    std::string version, server_name, error_code, error_detail, call_text;
};

// Opens a session, calls `echo` when asked, and reports what happened.
opened open_and_call(const cc::endpoint& where, cc::session_options o, bool call = true) {
    opened out;
    const object echo_args{{"text", "hi"}};  // built outside the coroutine (GCC 12)
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where, o);
        if (!s) {
            out.error_code = s.error().code;
            out.error_detail = s.error().detail;
            co_return;
        }
        out.version = (*s)->protocol_version();
        if (const auto* n = (*s)->server_info().if_contains("name"); n && n->is_string())
            out.server_name = n->get_string();
        if (call) {
            auto r = co_await (*s)->call_tool("echo", echo_args);
            if (!r) {
                out.error_code = r.error().code;
                out.error_detail = r.error().detail;
            } else if (const auto* c = r->raw.if_contains("content"); c && c->is_array() && !c->get_array().empty()) {
                out.call_text = c->get_array()[0].at("text").as_string();
            }
        }
        co_await (*s)->close();
    });
    return out;
}

cc::endpoint script(const std::string& body) { return cc::endpoint::of_command({"/bin/sh", "-c", body}); }

TEST(Session, OverHttpTheProbeFindsTheModernRevisionAndEitherEraCanBeAskedFor) {
    envelope_server server(add_echo);
    auto modern = open_and_call(cc::endpoint::of_url(server.url()), {});
    EXPECT_EQ(modern.version, "2026-07-28");
    EXPECT_EQ(modern.server_name, "envelopes");
    EXPECT_EQ(modern.call_text, "hi");
    cc::session_options legacy;
    legacy.protocol = cc::era::legacy;
    auto old = open_and_call(cc::endpoint::of_url(server.url()), legacy);
    EXPECT_EQ(old.version, "2025-11-25");
    EXPECT_EQ(old.server_name, "envelopes");
    EXPECT_EQ(old.call_text, "hi");
}

TEST(Session, TwoRequestsAtOnceTakeTurnsAndBothAreAnswered) {
    envelope_server server(add_echo);
    std::vector<std::string> texts;
    const object first{{"text", "one"}}, second{{"text", "two"}};
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(server.url()), cc::session_options());
        if (!s) co_return;
        auto& session = **s;
        net::steady_timer both(ex, std::chrono::steady_clock::time_point::max());
        int done = 0;
        auto one = [&](object args) -> net::awaitable<void> {
            auto r = co_await session.call_tool("echo", std::move(args));
            texts.push_back(r ? std::string(r->raw.at("content").as_array().at(0).at("text").as_string())
                              : r.error().code);
            if (++done == 2) both.cancel();
        };
        net::co_spawn(ex, one(first), net::detached);
        net::co_spawn(ex, one(second), net::detached);
        while (done < 2) co_await both.async_wait(net::as_tuple(net::use_awaitable));
        co_await session.close();
    });
    std::sort(texts.begin(), texts.end());
    EXPECT_EQ(texts, (std::vector<std::string>{"one", "two"}));
}

TEST(Session, AnEndpointItCannotUseIsRefusedAtOnce) {
    EXPECT_EQ(open_and_call(cc::endpoint::of_url("ftp://example.com/mcp"), {}).error_code, "INVALID_ENDPOINT");
    auto unreadable = cc::endpoint::of_url("https://example.com/mcp");
    unreadable.ca_file = "/nonexistent/ca.pem";
    EXPECT_EQ(open_and_call(unreadable, {}).error_code, "INVALID_ENDPOINT");
    EXPECT_EQ(open_and_call(cc::endpoint::of_url("not a url"), {}).error_code, "INVALID_ENDPOINT");
    EXPECT_EQ(open_and_call(cc::endpoint::of_command({}), {}).error_code, "INVALID_ENDPOINT");
    EXPECT_EQ(open_and_call(cc::endpoint::of_command({"/nonexistent/candor-server"}), {}).error_code, "CONNECT_FAILED");
}

// A legacy server: it refuses the probe as an unknown method, then speaks 2025-11-25.
constexpr const char* legacy_server = R"(
read probe
printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}'
read init
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"legacy","version":"1"}}}'
read initialized
read call
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"from legacy"}]}}'
read end
)";

TEST(Session, OverStdioALegacyServerIsSpokenToAfterTheProbeFails) {
    auto r = open_and_call(script(legacy_server), {});
    EXPECT_EQ(r.error_code, "");
    EXPECT_EQ(r.version, "2025-11-25");
    EXPECT_EQ(r.server_name, "legacy");
    EXPECT_EQ(r.call_text, "from legacy");
}

TEST(Session, ALegacyServerThatIgnoresTheProbeIsSpokenToAfterTheProbeTime) {
    cc::session_options o;
    o.probe_timeout = std::chrono::milliseconds(100);
    // It answers nothing to the probe; its answers are numbered as the client numbers them.
    auto r = open_and_call(script(R"(
read probe
read init
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"silent","version":"1"}}}'
read initialized
read end
)"),
                           o, false);
    EXPECT_EQ(r.error_code, "");
    EXPECT_EQ(r.version, "2025-11-25");
    EXPECT_EQ(r.server_name, "silent");
}

TEST(Session, AModernServerThatRefusesTheRevisionIsNotSpokenToInAnother) {
    auto r = open_and_call(script(R"(
read probe
printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}}'
read end
)"),
                           {}, false);
    EXPECT_EQ(r.error_code, "PROTOCOL_MISMATCH");
}

TEST(Session, ARefusalThatListsTheRevisionAfterAllIsAskedAgainOnce) {
    auto r = open_and_call(script(R"(
read probe
printf '%s\n' '{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}'
read again
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"second-time","version":"1"}}}}'
read end
)"),
                           {}, false);
    EXPECT_EQ(r.error_code, "");
    EXPECT_EQ(r.version, "2026-07-28");
    EXPECT_EQ(r.server_name, "second-time");
}

TEST(Session, AMessageThatIsNotStrictJsonIsRefused) {
    cc::session_options modern;
    modern.protocol = cc::era::modern;
    auto dup = open_and_call(script(R"(
read probe
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"supportedVersions":[]}}'
read end
)"),
                             modern, false);
    EXPECT_EQ(dup.error_code, "MESSAGE_REFUSED");
    EXPECT_EQ(dup.error_detail, "DUPLICATE_KEY");
    cc::session_options small = modern;
    small.max_message_bytes = 64;
    auto big = open_and_call(script(R"(
read probe
printf '{"jsonrpc":"2.0","id":1,"result":{"padding":"%0200d"}}\n' 0
read end
)"),
                             small, false);
    EXPECT_EQ(big.error_code, "MESSAGE_REFUSED");
    EXPECT_EQ(big.error_detail, "INPUT_TOO_LARGE");
    auto not_rpc = open_and_call(script(R"(
read probe
printf '%s\n' '[1,2,3]'
read end
)"),
                                 modern, false);
    EXPECT_EQ(not_rpc.error_code, "MESSAGE_REFUSED");
}

TEST(Session, SilenceIsATimeoutAndAnExitIsAClosedServer) {
    cc::session_options o;
    o.protocol = cc::era::modern;
    o.request_timeout = std::chrono::milliseconds(200);
    EXPECT_EQ(open_and_call(script("read probe; read end"), o, false).error_code, "TIMEOUT");
    EXPECT_EQ(open_and_call(script("exit 0"), o, false).error_code, "SERVER_CLOSED");
}

TEST(Session, APingFromTheServerIsAnsweredAndNotificationsReachTheHost) {
    cc::session_options o;
    o.protocol = cc::era::legacy;
    std::vector<std::string> notes;
    o.on_notification = [&](const std::string& method, const object&) { notes.push_back(method); };
    // Before answering the call it pings the client and logs; it answers only if the pong came.
    auto r = open_and_call(script(R"(
read init
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"pinger","version":"1"}}}'
read initialized
read call
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}'
printf '%s\n' '{"jsonrpc":"2.0","id":"s1","method":"ping"}'
read pong
case "$pong" in *'"id":"s1"'*'"result":{}'*) text=pong ;; *) text=no-pong ;; esac
printf '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$text"
read end
)"),
                           o);
    EXPECT_EQ(r.error_code, "");
    EXPECT_EQ(r.call_text, "pong");
    EXPECT_EQ(notes, std::vector<std::string>{"notifications/message"});
}

object region_schema() {
    return object{{"type", "object"},
                  {"properties", object{{"region", object{{"type", "string"}, {"x-mcp-header", "Region"}}},
                                        {"note", object{{"type", "string"}}}}},
                  {"required", boost::json::array{"region"}}};
}

void add_routed(mcp::server& s) {
    s.add_tool(
         mcp::make_content_tool(mcp::tool_info("routed", "Routed by region.")
                                    .with_action(mcp::action_class::read_only)
                                    .with_input_schema(region_schema()),
                                [](const object& args, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                                    mcp::content_result r;
                                    r.content.push_back(text_block(args.at("region").as_string()));
                                    co_return r;
                                }))
        .value();
}

TEST(Session, OverHttpACallMirrorsItsHeaderParametersTheServerChecks) {
    envelope_server server(add_routed);
    for (auto era : {cc::era::modern, cc::era::legacy}) {
        std::string text, failure;
        const object args{{"region", "eu west ☀"}, {"note", "not mirrored"}};
        cc::session_options o;
        o.protocol = era;
        run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
            auto s = co_await cc::session::open(ex, cc::endpoint::of_url(server.url()), o);
            if (!s) co_return;
            // Not listed first: the session lists the tools itself to learn the annotation.
            auto r = co_await (*s)->call_tool("routed", args);
            if (!r) failure = r.error().code + ": " + r.error().message;
            else text = r->raw.at("content").as_array().at(0).at("text").as_string();
            co_await (*s)->close();
        });
        EXPECT_EQ(failure, "");
        EXPECT_EQ(text, "eu west ☀");
    }
    EXPECT_EQ(mcp::encode_header_value("us west 1"), "us west 1");
    EXPECT_EQ(mcp::encode_header_value(" padded"), "=?base64?IHBhZGRlZA==?=");
    EXPECT_EQ(mcp::encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
}

TEST(Session, AToolWithInvalidHeaderAnnotationsIsNotCalled) {
    cc::session_options o;
    o.protocol = cc::era::legacy;
    std::string listed, refused;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, script(R"(
read init
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bad","version":"1"}}}'
read initialized
read list
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"bad","inputSchema":{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}}]}}'
read end
)"),
                                            o);
        if (!s) co_return;
        auto tools = co_await (*s)->list_tools();
        if (tools) listed = std::to_string(tools->size());
        auto r = co_await (*s)->call_tool("bad", object());
        if (!r) refused = r.error().code;
        co_await (*s)->close();
    });
    EXPECT_EQ(listed, "1");
    EXPECT_EQ(refused, "TOOL_REFUSED");
}

TEST(Session, AnyPagedListIsReadToItsEndOrRefused) {
    envelope_server server(add_echo);
    std::size_t tools = 0;
    std::string missing;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(server.url()), cc::session_options());
        EXPECT_TRUE(s);
        if (!s) co_return;
        const std::string method = "tools/list", key = "tools", wrong = "resources";
        auto all = co_await (*s)->list_all(method, key);
        if (all) tools = all->size();
        // A result without the list asked for is refused, not read as an empty list.
        auto none = co_await (*s)->list_all(method, wrong);
        if (!none) missing = none.error().code;
        co_await (*s)->close();
    });
    EXPECT_EQ(tools, 1u);
    EXPECT_EQ(missing, "MESSAGE_REFUSED");
}

// An event stream whose event never ends (data lines, no blank line) is refused at the message
// limit, not buffered until the server stops: a server that answers so and then waits.
TEST(Session, AnEventThatNeverEndsIsRefusedAtTheMessageLimit) {
    net::io_context server_io;
    net::ip::tcp::acceptor acceptor(server_io, {net::ip::make_address("127.0.0.1"), 0});
    std::thread server([&] {
        boost::system::error_code ec;
        auto socket = acceptor.accept(ec);
        if (ec) return;
        std::array<char, 4096> request{};
        (void)socket.read_some(net::buffer(request), ec);
        std::string answer = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
        for (int i = 0; i < 1000; ++i) answer += "data: " + std::string(100, 'x') + "\n";
        net::write(socket, net::buffer(answer), ec);
        (void)socket.read_some(net::buffer(request), ec);  // until the client lets go
    });
    cc::session_options o;
    o.protocol = cc::era::modern;
    o.max_message_bytes = 8 * 1024;
    o.request_timeout = std::chrono::seconds(20);  // a bound for failure: the refusal comes first
    auto r = open_and_call(
        cc::endpoint::of_url("http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/mcp"), o,
        false);
    server.join();
    EXPECT_EQ(r.error_code, "MESSAGE_REFUSED");
    EXPECT_EQ(r.error_detail, "INPUT_TOO_LARGE");
}

TEST(Session, OverHttpALegacySessionHearsWhatTheServerSendsOnItsListeningStream) {
    // A tool added while the session is open: the server tells its sessions on their GET stream.
    mcp::server srv(mcp::server_options{.name = "listening", .log = {}});
    add_echo(srv);
    transport::http_options h;
    h.threads = 1;
    transport::http_server http(srv, std::move(h));
    ASSERT_TRUE(http.start());
    const auto url = "http://127.0.0.1:" + std::to_string(http.port()) + "/mcp";
    std::vector<std::string> heard;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        net::steady_timer told(ex, std::chrono::steady_clock::time_point::max());
        cc::session_options o;
        o.protocol = cc::era::legacy;
        o.on_notification = [&](const std::string& method, const object&) {
            heard.push_back(method);
            told.cancel();
        };
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(url), o);
        EXPECT_TRUE(s);
        if (!s) co_return;
        // open() returns once the stream is open: nothing sent from now on is missed.
        srv.remove_tool("echo");
        told.expires_after(std::chrono::seconds(20));  // a bound for failure, never waited out when it works
        co_await told.async_wait(net::as_tuple(net::use_awaitable));
        co_await (*s)->close();
    });
    http.stop();
    EXPECT_EQ(heard, (std::vector<std::string>{"notifications/tools/list_changed"}));
}

}  // namespace
}  // namespace candor::test
