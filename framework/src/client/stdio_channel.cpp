// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// A server started as a process: one JSON-RPC message per line on its standard input and
// output. Lines longer than the message limit are refused, not buffered without end.
#include "channel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace candor::client::detail {

namespace {

namespace net = boost::asio;

// Writing to a pipe whose reader is gone raises SIGPIPE, which kills the process by default.
// A client that starts servers must see that as an error instead: SIGPIPE is ignored, unless
// the host installed a handler of its own.
void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current {};
        if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
    });
}

class stdio_channel final : public channel {
public:
    stdio_channel(net::any_io_executor ex, pid_t pid, int to_server, int from_server, const session_options& o)
        : ex_(ex), pid_(pid), in_(ex, to_server), out_(ex, from_server), opts_(o) {}

    ~stdio_channel() override {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

    net::awaitable<outcome<message>> exchange(std::string text, std::string id_text, const message_facts& facts,
                                              const on_other_message& other) override {
        if (auto sent = co_await write_line(std::move(text)); !sent) co_return sent.error();
        // The deadline stops the read it finds waiting; once the answer is in, it stops nothing.
        auto state = std::make_shared<wait_state>(wait_state::waiting);
        net::steady_timer deadline(ex_, facts.timeout);
        deadline.async_wait([state, this](boost::system::error_code ec) {
            if (ec || *state != wait_state::waiting) return;
            *state = wait_state::expired;
            out_.cancel();
        });
        auto answer = co_await read_answer(id_text, other, *state, facts.timeout);
        if (*state == wait_state::waiting) *state = wait_state::answered;
        deadline.cancel();
        co_return answer;
    }

    net::awaitable<outcome<void>> notify(std::string text, const message_facts&) override {
        co_return co_await write_line(std::move(text));
    }

    net::awaitable<void> close() override {
        boost::system::error_code ignored;
        in_.close(ignored);  // end of input: a server ends when its input does
        if (pid_ <= 0) co_return;
        // Waited for in short steps, then killed: a process is not a descriptor Asio can wait on.
        net::steady_timer step(ex_);
        const auto until = std::chrono::steady_clock::now() + opts_.request_timeout;
        while (std::chrono::steady_clock::now() < until) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                co_return;
            }
            step.expires_after(std::chrono::milliseconds(10));
            co_await step.async_wait(net::as_tuple(net::use_awaitable));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

private:
    net::awaitable<outcome<void>> write_line(std::string text) {
        text += '\n';
        auto [ec, n] = co_await net::async_write(in_, net::buffer(text), net::as_tuple(net::use_awaitable));
        if (ec) co_return error("SERVER_CLOSED", "the server's input is closed: " + ec.message());
        co_return outcome<void>{};
    }

    enum class wait_state { waiting, expired, answered };

    net::awaitable<outcome<message>> read_answer(const std::string& id_text, const on_other_message& other,
                                                 const wait_state& state, std::chrono::milliseconds timeout) {
        while (true) {
            auto read = co_await read_line();
            if (state == wait_state::expired)
                co_return error("TIMEOUT", "no answer within " + std::to_string(timeout.count()) + " ms");
            if (!read) co_return read.error();
            if (read->empty()) continue;
            auto m = read_message(*read, opts_);
            if (!m) co_return m.error();
            if (id_text_of(*m) == id_text && !m->contains("method")) co_return std::move(*m);
            if (auto reply = co_await other(*m))
                if (auto sent = co_await write_line(std::move(*reply)); !sent) co_return sent.error();
        }
    }

    // The next line, without its end; a line longer than the limit is refused.
    net::awaitable<outcome<std::string>> read_line() {
        auto buffer = net::dynamic_buffer(pending_, opts_.max_message_bytes + 1);
        auto [ec, n] = co_await net::async_read_until(out_, buffer, '\n', net::as_tuple(net::use_awaitable));
        if (ec == net::error::not_found)
            co_return error("MESSAGE_REFUSED", "a line from the server is longer than the message limit",
                            "INPUT_TOO_LARGE");
        if (ec) co_return error("SERVER_CLOSED", "the server's output ended: " + ec.message());
        std::string line = pending_.substr(0, n - 1);
        pending_.erase(0, n);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        co_return outcome<std::string>(boost::system::in_place_value, std::move(line));
    }

    net::any_io_executor ex_;
    pid_t pid_;
    net::posix::stream_descriptor in_;
    net::posix::stream_descriptor out_;
    session_options opts_;
    std::string pending_;
};

}  // namespace

outcome<std::unique_ptr<channel>> open_stdio(net::any_io_executor ex, const endpoint& where, const session_options& o) {
    if (where.command.empty() || where.command.front().empty())
        return error("INVALID_ENDPOINT", "no command to start the server with");
    ignore_sigpipe_once();
    int to_server[2], from_server[2];
    if (::pipe2(to_server, O_CLOEXEC) != 0) return error("CONNECT_FAILED", "no pipe for the server's input");
    if (::pipe2(from_server, O_CLOEXEC) != 0) {
        ::close(to_server[0]);
        ::close(to_server[1]);
        return error("CONNECT_FAILED", "no pipe for the server's output");
    }
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, to_server[0], STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, from_server[1], STDOUT_FILENO);
    if (where.discard_stderr) ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (const auto& a : where.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // The environment: this process's, with `where.environment` over it.
    std::vector<std::string> variables;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        const auto name = v.substr(0, v.find('=') + 1);
        const bool replaced = std::any_of(where.environment.begin(), where.environment.end(),
                                          [&](const std::string& x) { return x.rfind(name, 0) == 0; });
        if (!replaced) variables.emplace_back(v);
    }
    variables.insert(variables.end(), where.environment.begin(), where.environment.end());
    std::vector<char*> envp;
    for (auto& v : variables) envp.push_back(v.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(to_server[0]);
    ::close(from_server[1]);
    if (rc != 0) {
        ::close(to_server[1]);
        ::close(from_server[0]);
        return error("CONNECT_FAILED", "cannot start " + where.command.front() + ": " + std::strerror(rc));
    }
    return std::unique_ptr<channel>(std::make_unique<stdio_channel>(ex, pid, to_server[1], from_server[0], o));
}

}  // namespace candor::client::detail
