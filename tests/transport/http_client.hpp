// SPDX-License-Identifier: BSL-1.0
#pragma once
// A small blocking Beast client for real-socket tests: one connection per request keeps the
// tests independent.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace candor::test {

struct http_reply {
    unsigned status = 0;
    std::map<std::string, std::string> headers;
    std::string body;
    std::string header(const std::string& name) const {
        auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

/// Send one request to 127.0.0.1:`port` (Host set to it unless `headers` has one).
inline http_reply http_fetch(std::uint16_t port, boost::beast::http::verb verb, const std::string& target,
                             const std::map<std::string, std::string>& headers = {}, const std::string& body = {}) {
    namespace net = boost::asio;
    namespace http = boost::beast::http;
    net::io_context ioc;
    net::ip::tcp::socket socket(ioc);
    socket.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    req.prepare_payload();
    http::write(socket, req);
    boost::beast::flat_buffer buf;
    http::response<http::string_body> res;
    http::read(socket, buf, res);
    http_reply out;
    out.status = res.result_int();
    for (const auto& f : res) out.headers[std::string(f.name_string())] = std::string(f.value());
    out.body = res.body();
    return out;
}

}  // namespace candor::test
