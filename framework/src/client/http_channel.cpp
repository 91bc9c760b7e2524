// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Streamable HTTP: each message is a POST to the MCP endpoint; the answer comes back as one
// JSON body or as an event stream whose events are messages, the answer among them. One
// connection, kept alive and opened again when the server closed it.
#include "channel.hpp"

#include <candor/client/oauth.hpp>
#include <candor/mcp/stateless.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <optional>
#include <utility>

namespace candor::client::detail {

namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using net::ip::tcp;

class http_channel final : public channel {
public:
    http_channel(net::any_io_executor ex, std::string host, std::string port, std::string target, std::string url,
                 std::string token, std::shared_ptr<oauth_client> oauth, const session_options& o)
        : ex_(ex),
          stream_(ex),
          host_(std::move(host)),
          port_(std::move(port)),
          target_(std::move(target)),
          url_(std::move(url)),
          token_(std::move(token)),
          oauth_(std::move(oauth)),
          opts_(o) {}

    net::awaitable<outcome<message>> exchange(std::string text, std::string id_text, const message_facts& facts,
                                              const on_other_message& other) override {
        auto opened = co_await open(make_post(std::move(text), facts), facts.timeout);
        if (!opened) co_return opened.error();
        auto& parser = **opened;
        const auto& head = parser.get();
        const std::string type(head[http::field::content_type]);
        if (type.rfind("text/event-stream", 0) == 0) {
            // Events, one message each, read as they come: a request from the server (2025-11-25)
            // is answered before the stream goes on; the answer ends the exchange.
            event_reader events;
            while (true) {
                while (auto data = events.next(parser.get().body())) {
                    auto m = read_message(*data, opts_);
                    if (!m) co_return finish(m.error());
                    if (id_text_of(*m) == id_text && !m->contains("method")) co_return finish(std::move(*m), parser);
                    if (auto reply = co_await other(*m)) {
                        if (auto sent = co_await post_aside(std::move(*reply), facts); !sent)
                            co_return finish(sent.error());
                    }
                }
                if (parser.is_done()) break;
                stream_.expires_after(facts.timeout);
                auto [ec, n] =
                    co_await http::async_read_some(stream_, buffer_, parser, net::as_tuple(net::use_awaitable));
                if (ec) co_return finish(read_error(ec, facts.timeout));
            }
            if (auto data = events.last(parser.get().body())) {
                auto m = read_message(*data, opts_);
                if (!m) co_return finish(m.error());
                if (id_text_of(*m) == id_text && !m->contains("method")) co_return finish(std::move(*m), parser);
            }
            co_return finish(error("SERVER_CLOSED", "the event stream ended without the answer"));
        }
        stream_.expires_after(facts.timeout);
        auto [ec, n] = co_await http::async_read(stream_, buffer_, parser, net::as_tuple(net::use_awaitable));
        if (ec) co_return finish(read_error(ec, facts.timeout));
        const auto status = parser.get().result_int();
        if (status == 401 || status == 403) {
            // A refusal OAuth did not (or could not) answer: no JSON-RPC message to read.
            auto e = error("UNAUTHORIZED", "HTTP " + std::to_string(status) +
                                               (oauth_ ? " after authorization" : ": the server wants authorization"));
            for (const auto& [k, v] : bearer_challenge(parser.get()[http::field::www_authenticate]))
                if (k == "error") e.detail = v;
            e.http_status = static_cast<int>(status);
            co_return finish(std::move(e), parser);
        }
        if (type.rfind("application/json", 0) == 0 && !parser.get().body().empty()) {
            auto m = read_message(parser.get().body(), opts_);
            if (!m) co_return finish(m.error());
            if (id_text_of(*m) != id_text)
                co_return finish(error("MESSAGE_REFUSED", "the answer is to another request"));
            co_return finish(std::move(*m), parser);
        }
        auto e =
            error("HTTP_STATUS", "HTTP " + std::to_string(parser.get().result_int()) + " without a JSON-RPC answer");
        e.http_status = static_cast<int>(parser.get().result_int());
        co_return finish(std::move(e), parser);
    }

    net::awaitable<outcome<void>> notify(std::string text, const message_facts& facts) override {
        auto response = co_await send(make_post(std::move(text), facts), facts.timeout);
        if (!response) co_return response.error();
        if (response->result_int() / 100 != 2) {
            auto e = error("HTTP_STATUS", "HTTP " + std::to_string(response->result_int()) + " to a notification");
            e.http_status = static_cast<int>(response->result_int());
            co_return e;
        }
        co_return outcome<void>{};
    }

    net::awaitable<void> close() override {
        if (!session_id_.empty()) {
            http::request<http::string_body> req{http::verb::delete_, target_, 11};
            req.set(http::field::host, host_header());
            req.set("Mcp-Session-Id", session_id_);
            if (auto t = bearer(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
            (void)co_await send(std::move(req), opts_.request_timeout);
            session_id_.clear();
        }
        boost::system::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream_.close();
    }

private:
    using parser_type = http::response_parser<http::string_body>;

    // The `data` of each whole event in a growing body, in order.
    struct event_reader {
        std::size_t at = 0;  // how much of the body was read
        std::string data;
        std::optional<std::string> next(const std::string& body) {
            while (true) {
                const auto end = body.find('\n', at);
                if (end == std::string::npos) return std::nullopt;
                std::string_view line(body.data() + at, end - at);
                at = end + 1;
                if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
                if (line.rfind("data:", 0) == 0) {
                    line.remove_prefix(5);
                    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
                    if (!data.empty()) data += '\n';
                    data += line;
                    continue;
                }
                if (!line.empty() || data.empty()) continue;  // a field other than data, or a priming event
                return std::exchange(data, {});
            }
        }
        // An event the stream's end closed without a blank line.
        std::optional<std::string> last(const std::string& body) {
            if (auto e = next(body + "\n\n")) return e;
            return std::nullopt;
        }
    };

    http::request<http::string_body> make_post(std::string text, const message_facts& facts) const {
        http::request<http::string_body> req{http::verb::post, target_, 11};
        req.set(http::field::host, host_header());
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, "application/json, text/event-stream");
        if (!facts.protocol_version.empty()) req.set("MCP-Protocol-Version", facts.protocol_version);
        // Mcp-Method and Mcp-Name on every POST (servers of the handshake revision ignore them).
        if (!facts.method.empty()) req.set("Mcp-Method", mcp::encode_header_value(facts.method));
        if (!facts.name.empty()) req.set("Mcp-Name", mcp::encode_header_value(facts.name));
        for (const auto& [header, value] : facts.headers) req.set(header, value);
        if (!session_id_.empty()) req.set("Mcp-Session-Id", session_id_);
        if (auto t = bearer(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
        req.body() = std::move(text);
        req.prepare_payload();
        return req;
    }

    // The answer is in: the connection stays open only if the response ended and may be kept.
    template <class T>
    T finish(T out, const parser_type& parser) {
        if (!parser.is_done() || !parser.get().keep_alive()) stream_.close();
        return out;
    }
    template <class T>
    T finish(T out) {
        stream_.close();
        buffer_.clear();
        return out;
    }

    client_error read_error(const boost::system::error_code& ec, std::chrono::milliseconds timeout) const {
        if (ec == boost::beast::error::timeout)
            return error("TIMEOUT", "no answer within " + std::to_string(timeout.count()) + " ms");
        if (ec == http::error::body_limit)
            return error("MESSAGE_REFUSED", "the server's answer is larger than the limit", "INPUT_TOO_LARGE");
        return error("SERVER_CLOSED", "the connection failed: " + ec.message());
    }

    // The token requests carry: OAuth's once it has one, else the endpoint's.
    std::string bearer() const {
        if (oauth_ && !oauth_->access_token().empty()) return oauth_->access_token();
        return token_;
    }

    // Whether a response's head is a challenge OAuth answers: 401, or 403 insufficient_scope.
    bool challenge(const parser_type& parser) const {
        const auto status = parser.get().result_int();
        if (!oauth_ || (status != 401 && status != 403)) return false;
        if (status == 401) return true;
        for (const auto& [k, v] : bearer_challenge(parser.get()[http::field::www_authenticate]))
            if (k == "error" && v == "insufficient_scope") return true;
        return false;
    }

    // Sends `req` and reads the response's head, on the kept connection or (when the server
    // closed it, which shows at the first write or read) on a new one, once. A challenge is
    // answered by OAuth and the request sent again with the new token, up to the limit.
    net::awaitable<outcome<std::unique_ptr<parser_type>>> open(http::request<http::string_body> req,
                                                               std::chrono::milliseconds timeout) {
        std::size_t authorizations = 0;
        for (int attempt = 0; attempt < 2; ++attempt) {
            const bool fresh = !stream_.socket().is_open();
            if (fresh)
                if (auto c = co_await connect(); !c) co_return c.error();
            stream_.expires_after(timeout);
            auto [wec, wn] = co_await http::async_write(stream_, req, net::as_tuple(net::use_awaitable));
            auto parser = std::make_unique<parser_type>();
            parser->body_limit(opts_.max_message_bytes * 4);
            parser->header_limit(64 * 1024);
            boost::system::error_code rec;
            if (!wec)
                std::tie(rec, std::ignore) =
                    co_await http::async_read_header(stream_, buffer_, *parser, net::as_tuple(net::use_awaitable));
            const auto ec = wec ? wec : rec;
            if (!ec && challenge(*parser)) {
                const auto status = parser->get().result_int();
                const std::string www(parser->get()[http::field::www_authenticate]);
                stream_.expires_after(timeout);
                auto [bec, bn] =
                    co_await http::async_read(stream_, buffer_, *parser, net::as_tuple(net::use_awaitable));
                if (bec || !parser->get().keep_alive()) {
                    stream_.close();
                    buffer_.clear();
                }
                if (authorizations == oauth_->options().max_authorizations) {
                    auto e =
                        error("AUTHORIZATION_FAILED",
                              "the server still refuses after " + std::to_string(authorizations) + " authorizations",
                              "AUTHORIZATION_LIMIT");
                    e.http_status = static_cast<int>(status);
                    co_return e;
                }
                ++authorizations;
                auto token = co_await oauth_->authorize_for(url_, status, www);
                if (!token) co_return token.error();
                req.set(http::field::authorization, "Bearer " + *token);
                attempt = -1;  // the request again, as new
                continue;
            }
            if (!ec) {
                if (auto id = parser->get().find("Mcp-Session-Id"); id != parser->get().end())
                    session_id_ = std::string(id->value());
                co_return std::move(parser);
            }
            stream_.close();
            buffer_.clear();
            if (ec == boost::beast::error::timeout || fresh) co_return read_error(ec, timeout);
        }
        co_return error("SERVER_CLOSED", "the server closes every connection");
    }

    // A whole request and response on the kept connection.
    net::awaitable<outcome<http::response<http::string_body>>> send(http::request<http::string_body> req,
                                                                    std::chrono::milliseconds timeout) {
        auto opened = co_await open(std::move(req), timeout);
        if (!opened) co_return opened.error();
        auto& parser = **opened;
        stream_.expires_after(timeout);
        auto [ec, n] = co_await http::async_read(stream_, buffer_, parser, net::as_tuple(net::use_awaitable));
        if (ec) co_return finish(read_error(ec, timeout));
        auto response = parser.release();
        if (!response.keep_alive()) stream_.close();
        co_return response;
    }

    // A reply to the server's request, sent while the stream that asked stays open: on a
    // connection of its own.
    net::awaitable<outcome<void>> post_aside(std::string reply, const message_facts& facts) {
        http_channel aside(ex_, host_, port_, target_, url_, token_, oauth_, opts_);
        aside.session_id_ = session_id_;
        auto r = co_await aside.send(aside.make_post(std::move(reply), facts), facts.timeout);
        co_await aside.close_quietly();
        if (!r) co_return r.error();
        co_return outcome<void>{};
    }

    net::awaitable<void> close_quietly() {
        boost::system::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream_.close();
        co_return;
    }

    std::string host_header() const {
        const bool ipv6 = host_.find(':') != std::string::npos;
        return (ipv6 ? "[" + host_ + "]" : host_) + (port_ == "80" ? "" : ":" + port_);
    }

    net::awaitable<outcome<void>> connect() {
        tcp::resolver resolver(ex_);
        auto [rec, endpoints] = co_await resolver.async_resolve(host_, port_, net::as_tuple(net::use_awaitable));
        if (rec) co_return error("CONNECT_FAILED", "cannot resolve " + host_ + ": " + rec.message());
        stream_.expires_after(opts_.request_timeout);
        auto [cec, ep] = co_await stream_.async_connect(endpoints, net::as_tuple(net::use_awaitable));
        if (cec) co_return error("CONNECT_FAILED", "cannot connect to " + host_ + ":" + port_ + ": " + cec.message());
        co_return outcome<void>{};
    }

    net::any_io_executor ex_;
    boost::beast::tcp_stream stream_;
    boost::beast::flat_buffer buffer_;
    std::string host_, port_, target_, url_, token_;
    std::shared_ptr<oauth_client> oauth_;
    session_options opts_;
    std::string session_id_;
};

}  // namespace

outcome<std::unique_ptr<channel>> open_http(net::any_io_executor ex, const endpoint& where, const session_options& o) {
    auto url = boost::urls::parse_uri(where.url);
    if (!url) return error("INVALID_ENDPOINT", "not a URL: " + where.url);
    if (url->scheme() == "https")
        return error("INVALID_ENDPOINT", "https is not spoken yet: use http:// (a TLS proxy in front)");
    if (url->scheme() != "http" || url->host().empty())
        return error("INVALID_ENDPOINT", "not an http:// URL with a host: " + where.url);
    std::string target(url->encoded_path());
    if (target.empty()) target = "/";
    if (url->has_query()) target += "?" + std::string(url->encoded_query());
    std::string host(url->host());
    if (url->host_type() == boost::urls::host_type::ipv6) host = std::string(url->encoded_host_address());
    const std::string port = url->has_port() ? std::string(url->port()) : "80";
    return std::unique_ptr<channel>(std::make_unique<http_channel>(ex, std::move(host), port, std::move(target),
                                                                   where.url, where.bearer_token, where.oauth, o));
}

}  // namespace candor::client::detail
