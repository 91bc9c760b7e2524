// SPDX-License-Identifier: BSL-1.0
#pragma once
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive, shown for this header's coroutines under the
// sanitizer build's -O1.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// A tiny HTTP server on 127.0.0.1 that answers GETs with documents set by the test (an
// authorization server's metadata and keys) and counts the requests per path. It can also
// accept and never answer, to test deadlines, or hand every request to a handler of the test's.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace candor::test {

class doc_server {
public:
    using request = boost::beast::http::request<boost::beast::http::string_body>;
    using response = boost::beast::http::response<boost::beast::http::string_body>;
    /// Answers a request itself, or leaves it to the documents (nothing).
    using handler = std::function<std::optional<response>(const request&)>;

    doc_server() : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
        boost::asio::co_spawn(ioc_, accept_loop(), boost::asio::detached);
        thread_ = std::thread([this] { ioc_.run(); });
    }
    ~doc_server() {
        ioc_.stop();
        thread_.join();
    }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }

    /// Answer GET `path` with `status` and `body` (unknown paths: 404).
    void set(const std::string& path, unsigned status, std::string body) {
        std::lock_guard lock(mu_);
        routes_[path] = {status, std::move(body)};
    }
    /// Every request goes to `h` first (called on the server's thread).
    void handle(handler h) {
        std::lock_guard lock(mu_);
        handler_ = std::move(h);
    }
    /// Accept requests and never answer them.
    void go_silent() {
        std::lock_guard lock(mu_);
        silent_ = true;
    }
    int hits(const std::string& path) const {
        std::lock_guard lock(mu_);
        auto it = hits_.find(path);
        return it == hits_.end() ? 0 : it->second;
    }

private:
    static constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

    boost::asio::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
            if (ec) co_return;
            boost::asio::co_spawn(ioc_, serve(std::move(socket)), boost::asio::detached);
        }
    }

    boost::asio::awaitable<void> serve(boost::asio::ip::tcp::socket socket) {
        namespace http = boost::beast::http;
        boost::beast::flat_buffer buffer;
        request req;
        auto [ec, n] = co_await http::async_read(socket, buffer, req, use_tuple);
        if (ec) co_return;
        handler h;
        {
            std::lock_guard lock(mu_);
            h = handler_;
        }
        std::optional<response> own;
        if (h) own = h(req);
        if (own) {
            own->prepare_payload();
            co_await http::async_write(socket, *own, use_tuple);
            co_return;
        }
        const std::string path(req.target());
        std::pair<unsigned, std::string> answer{404, "{}"};
        bool silent = false;
        {
            std::lock_guard lock(mu_);
            ++hits_[path];
            silent = silent_;
            if (auto it = routes_.find(path); it != routes_.end()) answer = it->second;
        }
        if (silent) {
            boost::asio::steady_timer never(ioc_, std::chrono::hours(1));
            co_await never.async_wait(use_tuple);
            co_return;
        }
        http::response<http::string_body> res{static_cast<http::status>(answer.first), 11};
        res.set(http::field::content_type, "application/json");
        res.body() = std::move(answer.second);
        res.prepare_payload();
        co_await http::async_write(socket, res, use_tuple);
    }

    boost::asio::io_context ioc_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::thread thread_;
    mutable std::mutex mu_;
    std::map<std::string, std::pair<unsigned, std::string>> routes_;
    std::map<std::string, int> hits_;
    bool silent_ = false;
    handler handler_;
};

}  // namespace candor::test
