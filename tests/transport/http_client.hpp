// SPDX-License-Identifier: BSL-1.0
#pragma once
// A small blocking Beast client for real-socket tests, and an MCP client on top of it: one
// connection per request keeps the tests independent.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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

/// Read from `socket` into `received` until `text` has arrived (a stream read as it comes).
/// @return false if the connection ended first
inline bool read_until(boost::asio::ip::tcp::socket& socket, std::string& received, std::string_view text) {
    char buf[4096];
    while (received.find(text) == std::string::npos) {
        boost::system::error_code ec;
        const auto n = socket.read_some(boost::asio::buffer(buf), ec);
        if (ec) return false;
        received.append(buf, n);
    }
    return true;
}

/// On `socket`, connected to the server, open the GET stream of `session` (the messages that
/// belong to no request), with more header lines `headers` (each ending in CRLF), and read the
/// response's head; what came after the head is dropped.
/// @return the response's status
inline unsigned open_get_stream(boost::asio::ip::tcp::socket& socket, const std::string& session,
                                const std::string& headers = {}) {
    namespace http = boost::beast::http;
    const std::string get = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n" + headers +
                            "Mcp-Session-Id: " + session + "\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(get));
    boost::beast::flat_buffer buf;
    http::response_parser<http::empty_body> head;
    http::read_header(socket, buf, head);
    return head.get().result_int();
}

/// The data lines of an SSE body, one JSON message each (a priming event's empty data carries
/// none).
inline std::vector<boost::json::value> sse_messages(const std::string& body) {
    std::vector<boost::json::value> out;
    std::size_t pos = 0;
    while ((pos = body.find("data: ", pos)) != std::string::npos) {
        const auto end = body.find('\n', pos);
        if (end > pos + 6) out.push_back(boost::json::parse(body.substr(pos + 6, end - pos - 6)));
        pos = end;
    }
    return out;
}

/// The body of an `initialize` request (protocol 2025-11-25, no capabilities).
inline std::string initialize_body(int id = 1) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
           R"(,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
}

/// A `tools/call` of `tool` with no arguments; `meta`, when given, is one more member of params
/// (e.g. `"_meta":{…}`).
inline std::string call_body(int id, const std::string& tool, const std::string& meta = "") {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":{})" + (meta.empty() ? "" : "," + meta) + "}}";
}

/// An MCP client of the Streamable HTTP endpoint `/mcp` on 127.0.0.1:`port`.
struct mcp_client {
    std::uint16_t port;

    http_reply send(boost::beast::http::verb verb, const std::string& target, const std::string& body,
                    std::map<std::string, std::string> headers) const {
        return http_fetch(port, verb, target, headers, body);
    }

    /// POST one JSON-RPC message, with the media types the transport requires.
    http_reply post(const std::string& body, std::map<std::string, std::string> headers = {}) const {
        headers.emplace("Content-Type", "application/json");
        headers.emplace("Accept", "application/json, text/event-stream");
        return send(boost::beast::http::verb::post, "/mcp", body, std::move(headers));
    }

    /// `initialize`, then `notifications/initialized`. @return the session id
    std::string initialize() const {
        auto r = post(initialize_body());
        EXPECT_EQ(r.status, 200u) << r.body;
        const auto id = r.header("Mcp-Session-Id");
        EXPECT_EQ(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {{"Mcp-Session-Id", id}}).status,
                  202u);
        return id;
    }
};

}  // namespace candor::test
