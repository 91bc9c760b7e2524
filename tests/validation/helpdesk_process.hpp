// SPDX-License-Identifier: BSL-1.0
#pragma once
// The helpdesk (built with its fault-injection hook, helpdesk_fault_injection) over stdio in a
// child process, for the tests that kill it or follow its tasks.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace helpdesk_test {

namespace json = boost::json;

// A helpdesk over stdio in a child process.
class helpdesk_process {
public:
    /// @param kill_after HELPDESK_KILL_AFTER (the archive's fault injection), or none
    /// @param extra further command-line arguments
    helpdesk_process(const std::string& db, const char* kill_after, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{HELPDESK_FAULT_INJECTION, "--db", db, "--seed-tickets", "0", "--stdio"};
        args.insert(args.end(), extra.begin(), extra.end());
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int in[2];
        int out[2];
        if (::pipe(in) != 0 || ::pipe(out) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 2);
            ::close(in[1]);
            ::close(out[0]);
            ::setenv("CANDOR_SEALING_KEYS", "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 1);
            ::setenv("CANDOR_PRINCIPAL", "admin", 1);
            if (kill_after) ::setenv("HELPDESK_KILL_AFTER", kill_after, 1);
            else ::unsetenv("HELPDESK_KILL_AFTER");
            ::execv(HELPDESK_FAULT_INJECTION, argv.data());
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        to_ = in[1];
        from_ = out[0];
    }
    ~helpdesk_process() {
        if (to_ >= 0) ::close(to_);
        if (from_ >= 0) ::close(from_);
        if (pid_ > 0 && !reaped_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    helpdesk_process(const helpdesk_process&) = delete;
    helpdesk_process& operator=(const helpdesk_process&) = delete;

    void send(const json::value& message) {
        const auto text = json::serialize(message) + "\n";
        if (::write(to_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) broken_ = true;
    }

    /// The answer to request `id`, or null when the process ended (or 60 s passed) first.
    json::value answer(std::int64_t id) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < until) {
            for (auto nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
                auto line = buffer_.substr(0, nl);
                buffer_.erase(0, nl + 1);
                auto v = json::parse(line);
                if (v.is_object() && v.as_object().contains("id") && v.at("id") == id) return v;
            }
            pollfd p{from_, POLLIN, 0};
            if (::poll(&p, 1, 200) <= 0) continue;
            char chunk[65536];
            const ssize_t n = ::read(from_, chunk, sizeof chunk);
            if (n <= 0) return nullptr;  // the process is gone
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
        return nullptr;
    }

    /// Close the server's input: it ends once what it runs has ended.
    void close_input() {
        if (to_ >= 0) ::close(to_);
        to_ = -1;
    }

    json::value request(std::string_view method, json::object params) {
        const auto id = next_id_++;
        send(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
        return answer(id);
    }

    /// The structured envelope of a tool call, or null when no answer came.
    json::value call(std::string_view tool, json::object arguments) {
        auto r = request("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
        if (r.is_null()) return nullptr;
        return r.at("result").at("structuredContent");
    }

    void initialize() {
        auto r = request("initialize", {{"protocolVersion", "2025-11-25"},
                                        {"capabilities", json::object{}},
                                        {"clientInfo", {{"name", "crash-test"}, {"version", "1"}}}});
        ASSERT_TRUE(r.is_object() && r.as_object().contains("result")) << json::serialize(r);
        send(json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }

    /// @return how the process ended: the signal that killed it, 0 for an exit
    int wait_end() {
        int status = 0;
        ::waitpid(pid_, &status, 0);
        reaped_ = true;
        return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }

private:
    pid_t pid_ = -1;
    int to_ = -1;
    int from_ = -1;
    bool reaped_ = false;
    bool broken_ = false;
    std::int64_t next_id_ = 1;
    std::string buffer_;
};

}  // namespace helpdesk_test
