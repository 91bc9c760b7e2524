// SPDX-License-Identifier: BSL-1.0
#include <candor/transport/stdio.hpp>

#include <candor/envelope/envelope.hpp>
#include <candor/json/intake.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// A server on pipes (or regular files, which the transport reads and writes with threads of its
// own instead of the io_context): the test writes the client's lines, closes its end, and reads
// every line the server wrote until the server returned.
struct stdio_run {
    std::vector<boost::json::value> messages;  // parsed, in order
    std::vector<std::string> lines;
    int status = -1;
    bool input_left_non_blocking = false;  // the pipes' flags after the server returned
    bool output_left_non_blocking = false;
    int output_pipe_bytes = -1;  // F_GETPIPE_SZ of the output pipe after the server returned
};

struct stdio_ends {
    bool input_file = false;  // a regular file instead of a pipe
    bool output_file = false;
    bool read_when_full = false;  // a client that reads only once the server's output is full
    int output_pipe_bytes = 0;    // the output pipe's size before the server starts (0: as made)
};

// Waits until `fd` (a pipe's write end or a socket) takes no more bytes: whoever writes to it
// next must wait. False after ten seconds.
bool wait_until_full(int fd) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < give_up) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 0) == 0) return true;
        std::this_thread::yield();
    }
    return false;
}

// The client's side: every byte of `text` to `fd` (the server reads as it goes).
void write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const auto n = ::write(fd, text.data(), text.size());
        if (n <= 0) return;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

// Everything left to read from `fd`, until end of file.
std::string read_to_end(int fd) {
    std::string all;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) all.append(buf, static_cast<std::size_t>(n));
    return all;
}

int temp_file() {
    char name[] = "/tmp/candor-stdio-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd >= 0) ::unlink(name);
    return fd;
}

stdio_run run_stdio(candor::mcp::server& srv, const std::string& input, candor::transport::stdio_options opts = {},
                    stdio_ends ends = {}) {
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    if (ends.input_file) {
        in[0] = temp_file();
        if (in[0] < 0 || ::write(in[0], input.data(), input.size()) != static_cast<ssize_t>(input.size()) ||
            ::lseek(in[0], 0, SEEK_SET) != 0)
            return {};
    } else if (::pipe(in) != 0) {
        return {};
    }
    if (ends.output_file) {
        out[1] = temp_file();
        if (out[1] < 0) return {};
    } else if (::pipe(out) != 0) {
        return {};
    }
    if (ends.read_when_full) ::fcntl(out[1], F_SETPIPE_SZ, 4096);  // one page fills at once
    if (ends.output_pipe_bytes > 0) ::fcntl(out[1], F_SETPIPE_SZ, ends.output_pipe_bytes);
    opts.input_fd = in[0];
    opts.output_fd = out[1];
    opts.handle_signals = false;
    stdio_run r;
    std::thread server([&] {
        r.status = candor::transport::serve_stdio(srv, opts);
        r.input_left_non_blocking = (::fcntl(in[0], F_GETFL) & O_NONBLOCK) != 0;
        r.output_left_non_blocking = (::fcntl(out[1], F_GETFL) & O_NONBLOCK) != 0;
        if (!ends.output_file) r.output_pipe_bytes = ::fcntl(out[1], F_GETPIPE_SZ);
        if (!ends.output_file) ::close(out[1]);
    });
    std::thread writer([&] {
        if (ends.input_file) return;
        write_all(in[1], input);
        ::close(in[1]);
    });
    std::string all;
    if (ends.output_file) {
        server.join();
        ::lseek(out[1], 0, SEEK_SET);
        all = read_to_end(out[1]);
        ::close(out[1]);
    } else {
        if (ends.read_when_full && !wait_until_full(out[1])) ADD_FAILURE() << "the output never filled";
        all = read_to_end(out[0]);
        server.join();
        ::close(out[0]);
    }
    writer.join();
    ::close(in[0]);
    std::size_t at = 0;
    while (at < all.size()) {
        const auto nl = all.find('\n', at);
        r.lines.push_back(all.substr(at, nl - at));
        at = nl == std::string::npos ? all.size() : nl + 1;
    }
    for (const auto& l : r.lines) {
        auto doc = candor::json::parse(l);
        r.messages.push_back(doc ? candor::json::detach(doc->root()) : boost::json::value("NOT JSON: " + l));
    }
    return r;
}

// `in_flight`: tool calls one connection may run at once (all of a test's input may arrive in
// one read).
std::unique_ptr<candor::mcp::server> echo_server(std::size_t in_flight = 16,
                                                 std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
    candor::mcp::server_options o;
    o.max_calls_in_flight = in_flight;
    o.default_deadline = deadline;
    auto srv = std::make_unique<candor::mcp::server>(o);
    boost::json::object schema{{"type", "object"},
                               {"properties", {{"text", {{"type", "string"}}}}},
                               {"required", {"text"}},
                               {"additionalProperties", false}};
    srv->add_tool(candor::mcp::make_tool(
                      candor::mcp::tool_info("echo", "Echoes text.").with_input_schema(schema),
                      [](const boost::json::object& args,
                         candor::mcp::call_context&) -> boost::asio::awaitable<candor::envelope::envelope> {
                          co_return candor::envelope::complete(boost::json::object{{"text", args.at("text")}});
                      }))
        .value();
    return srv;
}

const std::string initialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
    "\n";

const boost::json::value* find_id(const stdio_run& r, std::int64_t id) {
    for (const auto& m : r.messages) {
        const auto* o = m.if_object();
        if (o && o->contains("id") && o->at("id").is_int64() && o->at("id").as_int64() == id) return &m;
    }
    return nullptr;
}

}  // namespace

TEST(Stdio, AnswersEveryRequestBeforeExitingOnEndOfInput) {
    auto srv = echo_server();
    std::string input = initialize;
    for (int i = 2; i < 12; ++i) {
        input += R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                 R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})" + "\n";
    }
    auto r = run_stdio(*srv, input);
    EXPECT_EQ(r.status, 0);
    for (int i = 1; i < 12; ++i) ASSERT_NE(find_id(r, i), nullptr) << "no answer to id " << i;
    const auto& result = find_id(r, 5)->at("result");
    EXPECT_EQ(result.at("structuredContent").at("data").at("text"), "hi");
    EXPECT_EQ(result.at("structuredContent").at("complete"), true);
}

// Nothing a finished call leaves behind (its deadline) keeps the server from exiting: with an
// hour's deadline, a server that waited for it would hang this test until ctest's timeout.
TEST(Stdio, ExitsOnEndOfInputWithoutWaitingForTheCallsDeadlines) {
    auto srv = echo_server(16, std::chrono::hours(1));
    std::string input = initialize;
    input += R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})"
             "\n";
    auto r = run_stdio(*srv, input);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(find_id(r, 2), nullptr);
}

TEST(Stdio, StdoutCarriesOnlyJsonRpcMessagesOnePerLine) {
    auto srv = echo_server();
    auto r = run_stdio(*srv, initialize + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n");
    ASSERT_FALSE(r.lines.empty());
    for (const auto& m : r.messages) {
        ASSERT_TRUE(m.is_object()) << boost::json::serialize(m);
        EXPECT_EQ(m.at("jsonrpc"), "2.0");
    }
}

TEST(Stdio, OverlongLineGetsAnErrorAndTheStreamStaysUsable) {
    auto srv = echo_server();
    candor::transport::stdio_options opts;
    opts.max_line_bytes = 1000;
    const std::string huge =
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" +
        std::string(5000, 'x') + "\"}}}\n";
    auto r = run_stdio(*srv, initialize + huge + R"({"jsonrpc":"2.0","id":3,"method":"ping"})" + "\n", opts);
    EXPECT_EQ(find_id(r, 2), nullptr) << "the overlong line must not be processed";
    ASSERT_NE(find_id(r, 3), nullptr) << "the stream must stay usable";
    bool saw_error = false;
    for (const auto& m : r.messages) {
        const auto* o = m.if_object();
        if (o && o->contains("error") && o->at("id").is_null()) {
            EXPECT_EQ(o->at("error").at("code"), -32700);
            EXPECT_EQ(o->at("error").at("data").at("code"), "INPUT_TOO_LARGE");
            EXPECT_EQ(o->at("error").at("data").at("limit"), 1000);
            saw_error = true;
        }
    }
    EXPECT_TRUE(saw_error);
}

TEST(Stdio, LastMessageWithoutNewlineIsStillServed) {
    auto srv = echo_server();
    auto r = run_stdio(*srv, initialize + R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
    EXPECT_NE(find_id(r, 2), nullptr);
}

TEST(Stdio, CrLfLineEndingsAreAccepted) {
    auto srv = echo_server();
    auto r = run_stdio(*srv, R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                             "\r\n");
    ASSERT_NE(find_id(r, 1), nullptr);
    EXPECT_TRUE(find_id(r, 1)->as_object().contains("result"));
}

namespace {

// Reads the server's stdout line by line while the test writes the client's side.
struct line_reader {
    int fd;
    std::string pending;
    // The next line, or nothing at end of output.
    std::optional<std::string> next() {
        char buf[4096];
        for (;;) {
            if (const auto nl = pending.find('\n'); nl != std::string::npos) {
                auto line = pending.substr(0, nl);
                pending.erase(0, nl + 1);
                return line;
            }
            const auto n = ::read(fd, buf, sizeof buf);
            if (n <= 0) return std::nullopt;
            pending.append(buf, static_cast<std::size_t>(n));
        }
    }
};

candor::mcp::content_result answer_text(std::string t) {
    return candor::mcp::content_result{
        boost::json::array{boost::json::object{{"type", "text"}, {"text", std::move(t)}}}};
}

boost::json::object colour_schema() {
    return {{"type", "object"},
            {"properties", boost::json::object{{"colour", boost::json::object{{"type", "string"}}}}}};
}

std::string describe_reply(
    const boost::system::result<candor::mcp::elicitation_result, candor::mcp::client_request_error>& r) {
    if (!r) return std::string(candor::mcp::to_string(r.error()));
    return boost::json::serialize(r->content);
}

}  // namespace

TEST(Stdio, ElicitationGoesToStdoutAndTheReplyOnStdinReachesTheTool) {
    candor::mcp::server srv;
    srv.add_tool(candor::mcp::make_content_tool(
                     candor::mcp::tool_info("ask", "Asks for a colour."),
                     [](const boost::json::object&,
                        candor::mcp::call_context& ctx) -> boost::asio::awaitable<candor::mcp::content_result> {
                         auto r =
                             co_await ctx.elicit(std::string("Colour?"), colour_schema(), std::chrono::seconds(20));
                         co_return answer_text(describe_reply(r));
                     }))
        .value();
    int in[2];
    int out[2];
    ASSERT_EQ(::pipe(in), 0);
    ASSERT_EQ(::pipe(out), 0);
    candor::transport::stdio_options opts;
    opts.input_fd = in[0];
    opts.output_fd = out[1];
    opts.handle_signals = false;
    std::thread server([&] {
        candor::transport::serve_stdio(srv, opts);
        ::close(out[1]);
    });
    write_all(in[1], R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
                     R"("capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}})"
                     "\n"
                     R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                     "\n"
                     R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}})"
                     "\n");
    line_reader reader{out[0], {}};
    boost::json::value request;
    boost::json::value answer;
    while (auto line = reader.next()) {
        auto doc = candor::json::parse(*line);
        ASSERT_TRUE(doc) << *line;
        auto msg = candor::json::detach(doc->root());
        const auto& o = msg.as_object();
        if (o.contains("method") && o.contains("id")) {
            request = msg;
            boost::json::object reply{
                {"jsonrpc", "2.0"},
                {"id", o.at("id")},
                {"result",
                 boost::json::object{{"action", "accept"}, {"content", boost::json::object{{"colour", "teal"}}}}}};
            write_all(in[1], boost::json::serialize(reply) + "\n");
        } else if (o.contains("id") && o.at("id") == 2) {
            answer = msg;
            break;
        }
    }
    ::close(in[1]);
    while (reader.next()) {
    }
    server.join();
    ::close(in[0]);
    ::close(out[0]);
    ASSERT_TRUE(request.is_object());
    EXPECT_EQ(request.at("method"), "elicitation/create");
    EXPECT_EQ(request.at("params").at("message"), "Colour?");
    ASSERT_TRUE(answer.is_object());
    EXPECT_EQ(answer.at("result").at("content").at(0).at("text"), R"({"colour":"teal"})");
}

// Pipes are served by the io_context (epoll), regular files by reader and writer threads: the
// same conversation gets the same answers either way.
std::string echo_calls(int first, int last, const std::string& text = "hi") {
    std::string input;
    for (int i = first; i <= last; ++i)
        input += R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                 R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" + text + "\"}}}\n";
    return input;
}

TEST(Stdio, RegularFilesAreServedByThreadsWithTheSameAnswers) {
    candor::transport::stdio_options opts;
    opts.max_line_bytes = 1000;
    const std::string input =
        initialize + echo_calls(2, 40) + std::string(3000, 'x') + "\n" + R"({"jsonrpc":"2.0","id":41,"method":"ping"})";
    for (auto ends : {stdio_ends{}, stdio_ends{true, false}, stdio_ends{false, true}, stdio_ends{true, true}}) {
        SCOPED_TRACE(std::string(ends.input_file ? "file" : "pipe") + " in, " + (ends.output_file ? "file" : "pipe") +
                     " out");
        auto srv = echo_server(64);
        auto r = run_stdio(*srv, input, opts, ends);
        EXPECT_EQ(r.status, 0);
        for (int i = 1; i <= 41; ++i) EXPECT_NE(find_id(r, i), nullptr) << "no answer to id " << i;
        EXPECT_EQ(r.lines.size(), 42u) << "41 answers and the INPUT_TOO_LARGE error";
        ASSERT_NE(find_id(r, 40), nullptr);
        EXPECT_EQ(find_id(r, 40)->at("result").at("structuredContent").at("data").at("text"), "hi");
    }
}

TEST(Stdio, AClientThatReadsLateLosesNothingAndThePipesKeepTheirFlags) {
    // About 600 KB of answers, and a client that reads only once the pipe is full: the server's
    // next write would block; it waits for the pipe to drain instead, and writes everything in
    // order.
    auto srv = echo_server(200);
    const std::string text(2000, 'y');
    candor::transport::stdio_options opts;
    opts.output_pipe_bytes = 0;  // the one page stays one page
    auto r = run_stdio(*srv, initialize + echo_calls(2, 151, text), opts, stdio_ends{false, false, true});
    EXPECT_EQ(r.status, 0);
    ASSERT_EQ(r.lines.size(), 151u);
    for (int i = 1; i <= 151; ++i) ASSERT_NE(find_id(r, i), nullptr) << "no answer to id " << i;
    EXPECT_EQ(find_id(r, 151)->at("result").at("structuredContent").at("data").at("text").as_string(), text);
    // The transport made its pipe ends non-blocking for the io_context; it gives them back as
    // they were (they are shared with whoever started the server).
    EXPECT_FALSE(r.input_left_non_blocking);
    EXPECT_FALSE(r.output_left_non_blocking);
}

TEST(Stdio, TheOutputPipeGrowsToTheConfiguredSizeAndNeverShrinks) {
    auto srv = echo_server();
    const std::string input = initialize + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n";
    const int page = static_cast<int>(::sysconf(_SC_PAGESIZE));
    // The default: 256 KiB (within the kernel's default pipe-max-size of 1 MiB).
    auto grown = run_stdio(*srv, input, {}, stdio_ends{.output_pipe_bytes = 16 * page});
    EXPECT_EQ(grown.status, 0);
    EXPECT_EQ(grown.output_pipe_bytes, 256 << 10);
    // 0: left as it is.
    candor::transport::stdio_options off;
    off.output_pipe_bytes = 0;
    auto kept = run_stdio(*srv, input, off, stdio_ends{.output_pipe_bytes = 16 * page});
    EXPECT_EQ(kept.output_pipe_bytes, 16 * page);
    // A pipe larger already is not shrunk.
    auto large = run_stdio(*srv, input, {}, stdio_ends{.output_pipe_bytes = 1 << 20});
    EXPECT_EQ(large.output_pipe_bytes, 1 << 20);
    ASSERT_NE(find_id(large, 2), nullptr);
}

TEST(Stdio, OneSocketCarriesBothDirectionsEvenWhenTheClientReadsLate) {
    // inetd style: stdin and stdout are the same socket, so one descriptor's flags govern both.
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    auto srv = echo_server(200);
    candor::transport::stdio_options opts;
    opts.input_fd = sv[0];
    opts.output_fd = sv[0];
    opts.handle_signals = false;
    const int small = 4096;  // fills at once
    ::setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    ::setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    int status = -1;
    bool left_non_blocking = true;
    std::thread server([&] {
        status = candor::transport::serve_stdio(*srv, opts);
        left_non_blocking = (::fcntl(sv[0], F_GETFL) & O_NONBLOCK) != 0;
        ::close(sv[0]);
    });
    const std::string input = initialize + echo_calls(2, 151, std::string(2000, 'z'));
    std::thread writer([&] {
        write_all(sv[1], input);
        ::shutdown(sv[1], SHUT_WR);  // end of input; the replies still come back
    });
    EXPECT_TRUE(wait_until_full(sv[0])) << "the output never filled";
    const std::string all = read_to_end(sv[1]);
    writer.join();
    server.join();
    ::close(sv[1]);
    EXPECT_EQ(status, 0);
    EXPECT_FALSE(left_non_blocking);
    std::size_t lines = 0;
    for (char c : all) lines += c == '\n';
    EXPECT_EQ(lines, 151u) << "every request answered, in full lines";
    EXPECT_NE(all.find(R"("id":151,)"), std::string::npos);
}

TEST(Stdio, AClientThatDoesNotReadStopsTheServerReadingAndLosesNothing) {
    // Small requests with 4 KiB replies, and a client that writes 2,000 of them without reading:
    // once 64 KiB of replies wait, the server stops reading, the input pipe fills and the client
    // blocks in write(2). The server has run only the calls it read before that.
    candor::mcp::server_options o;
    o.max_calls_in_flight = 64;
    candor::mcp::server srv(o);
    std::atomic<int> calls{0};
    srv.add_tool(candor::mcp::make_tool(
                     candor::mcp::tool_info("blob", "Answers 4 KiB."),
                     [&calls](const boost::json::object&,
                              candor::mcp::call_context&) -> boost::asio::awaitable<candor::envelope::envelope> {
                         ++calls;
                         co_return candor::envelope::complete(boost::json::value(std::string(4096, 'b')));
                     }))
        .value();
    int in[2];
    int out[2];
    ASSERT_EQ(::pipe(in), 0);
    ASSERT_EQ(::pipe(out), 0);
    ::fcntl(out[1], F_SETPIPE_SZ, 4096);
    candor::transport::stdio_options opts;
    opts.input_fd = in[0];
    opts.output_fd = out[1];
    opts.handle_signals = false;
    opts.output_pipe_bytes = 0;
    opts.max_unsent_output_bytes = 64 << 10;
    std::thread server([&] {
        candor::transport::serve_stdio(srv, opts);
        ::close(out[1]);
    });
    constexpr int requests = 2000;
    std::string input = initialize;
    for (int i = 2; i < 2 + requests; ++i)
        input += R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                 R"(,"method":"tools/call","params":{"name":"blob","arguments":{}}})" + "\n";
    std::atomic<bool> written{false};
    std::thread writer([&] {
        write_all(in[1], input);
        written = true;
        ::close(in[1]);
    });
    // That something does not happen is seen only over time: for a second, the writer must stay
    // blocked and the calls stay few (without the limit the server runs them all in that time).
    // 16 replies fill the limit; the server checks it after each batch of 64 messages read.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < until && calls.load() <= 64 && !written)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_LE(calls.load(), 64) << "calls run while the client did not read";
    EXPECT_FALSE(written) << "the server read every request while its replies waited";

    const std::string all = read_to_end(out[0]);
    writer.join();
    server.join();
    ::close(in[0]);
    ::close(out[0]);
    EXPECT_EQ(calls.load(), requests);
    std::size_t lines = 0;
    for (char c : all) lines += c == '\n';
    EXPECT_EQ(lines, 1u + requests) << "every request read is answered";
    EXPECT_NE(all.find(R"("id":)" + std::to_string(1 + requests) + ","), std::string::npos);
}
