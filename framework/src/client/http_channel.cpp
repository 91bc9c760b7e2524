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
#include "wire.hpp"

#include <candor/client/oauth.hpp>
#include <candor/mcp/stateless.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
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
    http_channel(net::any_io_executor ex, std::shared_ptr<net::ssl::context> tls, std::string host, std::string port,
                 std::string target, std::string url, std::string token, std::shared_ptr<oauth_client> oauth,
                 const session_options& o)
        : ex_(ex),
          tls_(tls),
          stream_(ex, std::move(tls), host),
          host_(std::move(host)),
          port_(std::move(port)),
          target_(std::move(target)),
          url_(std::move(url)),
          token_(std::move(token)),
          oauth_(std::move(oauth)),
          opts_(o) {}

    // A channel dropped without close() still stops its listening stream: the loop must not hand
    // a message to a session that is gone.
    ~http_channel() override {
        if (listener_) {
            listener_->stopped = true;
            listener_->conn->stream_.close();
            listener_->wait.cancel();
        }
    }

    net::awaitable<outcome<message>> exchange(std::string text, std::string id_text, const message_facts& facts,
                                              const on_other_message& other) override {
        auto opened = co_await open(make_post(std::move(text), facts), facts.timeout);
        if (!opened) co_return opened.error();
        auto& parser = **opened;
        const auto& head = parser.get();
        const std::string type(head[http::field::content_type]);
        if (is_event_stream(parser)) {
            event_reader events;
            if (auto r = co_await read_stream(parser, events, id_text, facts, other)) co_return std::move(*r);
            // The stream ended without the answer. A server that numbered its events lets the
            // client resume (2025-11-25): a GET with Last-Event-ID after the retry time it set,
            // on which the rest of the stream, the answer among it, comes.
            for (int resumed = 0; resumed < max_resumptions && !events.last_id.empty(); ++resumed) {
                if (co_await pause(events.retry)) break;
                auto again = co_await open(make_get(facts, events.last_id), facts.timeout);
                if (!again) co_return again.error();
                if ((*again)->get().result_int() != 200 || !is_event_stream(**again)) {
                    auto e = error("SERVER_CLOSED",
                                   "the event stream ended without the answer, and the server "
                                   "does not resume it (HTTP " +
                                       std::to_string((*again)->get().result_int()) + ")");
                    co_return finish(std::move(e));
                }
                events.restart();
                if (auto r = co_await read_stream(**again, events, id_text, facts, other)) co_return std::move(*r);
            }
            co_return finish(error("SERVER_CLOSED", "the event stream ended without the answer"));
        }
        stream_.expires_after(facts.timeout);
        auto [ec, n] = co_await stream_.read(buffer_, parser);
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

    // 2025-11-25: the session's listening stream, a GET the server sends its own requests and
    // notifications on, read until the channel closes; resumed with Last-Event-ID after the
    // retry time the server set when it ends (up to three failed attempts in a row). A server
    // that offers none (405) is not asked again. Returns once the stream is open (or known not
    // to be): what the server sends from then on reaches the session.
    net::awaitable<void> listen(on_other_message other, message_facts facts) override {
        auto l = std::make_shared<listener>(ex_);
        l->conn = std::make_unique<http_channel>(ex_, tls_, host_, port_, target_, url_, token_, oauth_, opts_);
        l->conn->session_id_ = session_id_;
        l->other = std::move(other);
        l->facts = std::move(facts);
        auto first = co_await l->conn->open(l->conn->make_get(l->facts, {}), l->facts.timeout);
        if (!first || (*first)->get().result_int() != 200 || !is_event_stream(**first)) {
            if (first) l->conn->stream_.close();
            co_return;  // no stream offered (405), or none to be had now
        }
        listener_ = l;
        net::co_spawn(ex_, listen_loop(std::move(l), std::move(*first)), net::detached);
    }

    net::awaitable<void> close() override {
        if (auto l = std::exchange(listener_, nullptr)) {
            l->stopped = true;
            l->conn->stream_.close();
            l->wait.cancel();
            // Until the loop has let go of the session (its handlers), within the request time.
            if (!l->done) {
                l->finished.expires_after(opts_.request_timeout);
                co_await l->finished.async_wait(net::as_tuple(net::use_awaitable));
            }
        }
        if (!session_id_.empty()) {
            http::request<http::string_body> req{http::verb::delete_, target_, 11};
            req.set(http::field::host, host_header());
            req.set("Mcp-Session-Id", session_id_);
            if (const auto& t = bearer(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
            (void)co_await send(std::move(req), opts_.request_timeout);
            session_id_.clear();
        }
        stream_.close();
    }

private:
    using parser_type = http::response_parser<http::string_body>;

    static constexpr int max_resumptions = 5;
    // When the server sets no retry time.
    static constexpr std::chrono::milliseconds default_retry{1000};

    // The `data` of each whole event in a growing body, in order; the `id` and `retry` fields
    // remembered (the last event ID, as a resumption names it). What was read is cut from the
    // body, so a long stream holds only the event in progress.
    struct event_reader {
        std::size_t at = 0;  // how much of the body was read
        std::string data;
        std::string last_id;
        std::optional<std::chrono::milliseconds> retry;
        std::optional<std::string> next(std::string& body) {
            while (true) {
                const auto end = body.find('\n', at);
                if (end == std::string::npos) {
                    body.erase(0, at);
                    at = 0;
                    return std::nullopt;
                }
                std::string_view line(body.data() + at, end - at);
                at = end + 1;
                if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
                const auto value = [&](std::size_t name) {
                    auto v = line.substr(name);
                    if (!v.empty() && v.front() == ' ') v.remove_prefix(1);
                    return v;
                };
                if (line.rfind("data:", 0) == 0) {
                    if (!data.empty()) data += '\n';
                    data += value(5);
                    continue;
                }
                if (line.rfind("id:", 0) == 0) {
                    if (const auto v = value(3); v.find('\0') == std::string_view::npos) last_id = std::string(v);
                    continue;
                }
                if (line.rfind("retry:", 0) == 0) {
                    const auto v = value(6);
                    if (!v.empty() && v.size() < 9 &&
                        std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
                        retry = std::chrono::milliseconds(std::stol(std::string(v)));
                    continue;
                }
                if (!line.empty() || data.empty()) continue;  // another field, or an event without data (priming)
                return std::exchange(data, {});
            }
        }
        // A new stream: an event the last one broke off is not dispatched (the ids stay).
        void restart() {
            data.clear();
            at = 0;
        }
        // Bytes of the event in progress: its data lines read so far and what is not read yet
        // (held to the message limit: an event that never ends must not grow without bound).
        std::size_t pending(const std::string& body) const { return data.size() + (body.size() - at); }
        // An event the stream's end closed without a blank line.
        std::optional<std::string> last(std::string& body) {
            body += "\n\n";
            return next(body);
        }
    };

    // The listening stream's state, shared with its loop (which may outlive a close by a moment).
    struct listener {
        explicit listener(net::any_io_executor ex) : wait(ex), finished(ex) {}
        std::unique_ptr<http_channel> conn;
        on_other_message other;
        message_facts facts;
        bool stopped = false, done = false;
        net::steady_timer wait, finished;
    };

    static bool is_event_stream(const parser_type& p) {
        return p.get()[http::field::content_type].starts_with("text/event-stream");
    }

    // Waits a stream's retry time; true if the wait was cut short (the channel closing).
    net::awaitable<bool> pause(std::optional<std::chrono::milliseconds> retry) {
        net::steady_timer t(ex_);
        t.expires_after(std::min(retry.value_or(default_retry), opts_.request_timeout));
        auto [ec] = co_await t.async_wait(net::as_tuple(net::use_awaitable));
        co_return static_cast<bool>(ec);
    }

    // The events of one stream until the answer to `id_text`: the answer (or why there is none),
    // or nothing when the stream ended without it. A request from the server is answered before
    // the stream goes on.
    net::awaitable<std::optional<outcome<message>>> read_stream(parser_type& parser, event_reader& events,
                                                                const std::string& id_text, const message_facts& facts,
                                                                const on_other_message& other) {
        parser.body_limit(boost::none);  // a stream is long; each event is held to the message limit below
        while (true) {
            while (auto data = events.next(parser.get().body())) {
                auto m = read_message(*data, opts_);
                if (!m) co_return finish(outcome<message>(m.error()));
                if (id_text_of(*m) == id_text && !m->contains("method"))
                    co_return finish(outcome<message>(std::move(*m)), parser);
                if (auto reply = co_await other(*m)) {
                    if (auto sent = co_await post_aside(std::move(*reply), facts); !sent)
                        co_return finish(outcome<message>(sent.error()));
                }
            }
            if (events.pending(parser.get().body()) > opts_.max_message_bytes)
                co_return finish(outcome<message>(
                    error("MESSAGE_REFUSED", "an event from the server is larger than the limit", "INPUT_TOO_LARGE")));
            if (parser.is_done()) break;
            stream_.expires_after(facts.timeout);
            auto [ec, n] = co_await stream_.read_some(buffer_, parser);
            // A broken connection after numbered events is a stream to resume, not a failure; a
            // read the caller cancelled is not resumed (closing the stream is the cancellation).
            if (ec &&
                (ec == boost::beast::error::timeout || ec == net::error::operation_aborted || events.last_id.empty()))
                co_return finish(outcome<message>(read_error(ec, facts.timeout)));
            if (ec) break;
        }
        if (auto data = events.last(parser.get().body())) {
            auto m = read_message(*data, opts_);
            if (m && id_text_of(*m) == id_text && !m->contains("method"))
                co_return finish(outcome<message>(std::move(*m)));
        }
        stream_.close();
        buffer_.clear();
        co_return std::nullopt;
    }

    static net::awaitable<void> listen_loop(std::shared_ptr<listener> s, std::unique_ptr<parser_type> first) {
        event_reader events;
        int failures = 0;
        while (!s->stopped && failures < 3) {
            auto& c = *s->conn;
            outcome<std::unique_ptr<parser_type>> opened = std::move(first);
            if (!*opened) opened = co_await c.open(c.make_get(s->facts, events.last_id), s->facts.timeout);
            if (s->stopped) break;
            if (opened && ((*opened)->get().result_int() != 200 || !is_event_stream(**opened))) break;  // none offered
            if (opened) {
                auto& parser = **opened;
                parser.body_limit(boost::none);
                events.restart();
                failures = 0;
                while (!s->stopped) {
                    while (auto data = events.next(parser.get().body())) {
                        auto m = read_message(*data, c.opts_);
                        if (!m) continue;  // not believed, not answered
                        if (auto reply = co_await s->other(*m)) {
                            if (s->stopped) break;
                            (void)co_await c.post_aside(std::move(*reply), s->facts);
                        }
                        if (s->stopped) break;
                    }
                    if (s->stopped || parser.is_done() ||
                        events.pending(parser.get().body()) > c.opts_.max_message_bytes)
                        break;
                    c.stream_.expires_never();
                    auto [ec, n] = co_await c.stream_.read_some(c.buffer_, parser);
                    if (ec) break;
                }
            } else {
                ++failures;
            }
            c.stream_.close();
            c.buffer_.clear();
            if (s->stopped) break;
            s->wait.expires_after(std::min(events.retry.value_or(default_retry), c.opts_.request_timeout));
            (void)co_await s->wait.async_wait(net::as_tuple(net::use_awaitable));
        }
        s->done = true;
        s->finished.cancel();
    }

    // A GET for the session's stream (2025-11-25), resuming after `last_id` when it is set.
    http::request<http::string_body> make_get(const message_facts& facts, const std::string& last_id) const {
        http::request<http::string_body> req{http::verb::get, target_, 11};
        req.set(http::field::host, host_header());
        req.set(http::field::accept, "text/event-stream");
        if (!facts.protocol_version.empty()) req.set("MCP-Protocol-Version", facts.protocol_version);
        if (!session_id_.empty()) req.set("Mcp-Session-Id", session_id_);
        if (!last_id.empty()) req.set("Last-Event-ID", last_id);
        if (const auto& t = bearer(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
        return req;
    }

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
        if (const auto& t = bearer(); !t.empty()) req.set(http::field::authorization, "Bearer " + t);
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
    const std::string& bearer() const {
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
            const bool fresh = !stream_.is_open();
            if (fresh)
                if (auto c = co_await connect(); !c) co_return c.error();
            stream_.expires_after(timeout);
            auto [wec, wn] = co_await stream_.write(req);
            auto parser = std::make_unique<parser_type>();
            parser->body_limit(opts_.max_message_bytes * 4);
            parser->header_limit(64 * 1024);
            boost::system::error_code rec;
            if (!wec) std::tie(rec, std::ignore) = co_await stream_.read_header(buffer_, *parser);
            const auto ec = wec ? wec : rec;
            if (!ec && challenge(*parser)) {
                const auto status = parser->get().result_int();
                const std::string www(parser->get()[http::field::www_authenticate]);
                stream_.expires_after(timeout);
                auto [bec, bn] = co_await stream_.read(buffer_, *parser);
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
        auto [ec, n] = co_await stream_.read(buffer_, parser);
        if (ec) co_return finish(read_error(ec, timeout));
        auto response = parser.release();
        if (!response.keep_alive()) stream_.close();
        co_return response;
    }

    // A reply to the server's request, sent while the stream that asked stays open: on a
    // connection of its own.
    net::awaitable<outcome<void>> post_aside(std::string reply, const message_facts& facts) {
        http_channel aside(ex_, tls_, host_, port_, target_, url_, token_, oauth_, opts_);
        aside.session_id_ = session_id_;
        auto r = co_await aside.send(aside.make_post(std::move(reply), facts), facts.timeout);
        co_await aside.close_quietly();
        if (!r) co_return r.error();
        co_return outcome<void>{};
    }

    net::awaitable<void> close_quietly() {
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
        auto [cec, tls] = co_await stream_.connect(endpoints, opts_.request_timeout);
        if (cec)
            co_return error("CONNECT_FAILED",
                            std::string(tls ? "no TLS session with " : "cannot connect to ") + host_ + ":" + port_ +
                                ": " + cec.message(),
                            tls ? "TLS" : "");
        co_return outcome<void>{};
    }

    net::any_io_executor ex_;
    std::shared_ptr<net::ssl::context> tls_;
    wire stream_;
    boost::beast::flat_buffer buffer_;
    std::string host_, port_, target_, url_, token_;
    std::shared_ptr<oauth_client> oauth_;
    session_options opts_;
    std::string session_id_;
    std::shared_ptr<listener> listener_;
};

}  // namespace

outcome<std::unique_ptr<channel>> open_http(net::any_io_executor ex, const endpoint& where, const session_options& o) {
    auto url = boost::urls::parse_uri(where.url);
    if (!url) return error("INVALID_ENDPOINT", "not a URL: " + where.url);
    const bool secure = url->scheme_id() == boost::urls::scheme::https;
    if ((!secure && url->scheme_id() != boost::urls::scheme::http) || url->host().empty())
        return error("INVALID_ENDPOINT", "not an http:// or https:// URL with a host: " + where.url);
    std::string target(url->encoded_path());
    if (target.empty()) target = "/";
    if (url->has_query()) target += "?" + std::string(url->encoded_query());
    std::string host(url->host());
    if (url->host_type() == boost::urls::host_type::ipv6) host = std::string(url->encoded_host_address());
    const std::string port = url->has_port() ? std::string(url->port()) : secure ? "443" : "80";
    std::shared_ptr<net::ssl::context> tls;
    if (secure) {
        tls = std::make_shared<net::ssl::context>(net::ssl::context::tls_client);
        tls->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                         net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
        boost::system::error_code ec;
        if (where.ca_file.empty()) tls->set_default_verify_paths(ec);
        else tls->load_verify_file(where.ca_file, ec);
        if (ec)
            return error("INVALID_ENDPOINT",
                         (where.ca_file.empty() ? std::string("cannot load the system's certificate "
                                                              "authorities: ")
                                                : "cannot load certificate authorities from " + where.ca_file + ": ") +
                             ec.message());
    }
    return std::unique_ptr<channel>(std::make_unique<http_channel>(
        ex, std::move(tls), std::move(host), port, std::move(target), where.url, where.bearer_token, where.oauth, o));
}

}  // namespace candor::client::detail
