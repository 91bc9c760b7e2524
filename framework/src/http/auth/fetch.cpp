// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/fetch.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/url/parse.hpp>

#include <optional>

namespace candor::auth {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);

struct target {
    bool tls = false;
    std::string host;       // for resolving, SNI and the certificate check (no brackets)
    std::string authority;  // for the Host header
    std::string port;
    std::string path;  // path and query
};

bool is_loopback(std::string_view host) {
    return host == "127.0.0.1" || host == "::1" || host == "localhost" || host.substr(0, 4) == "127.";
}

std::optional<target> parse_target(std::string_view url) {
    auto u = boost::urls::parse_absolute_uri(url);
    if (!u || !u->has_authority() || u->encoded_host().empty() || u->has_userinfo() || u->has_fragment())
        return std::nullopt;
    target t;
    if (u->scheme_id() == boost::urls::scheme::https) t.tls = true;
    else if (u->scheme_id() != boost::urls::scheme::http) return std::nullopt;
    t.host = u->host_address();
    t.authority = std::string(u->encoded_host_and_port());
    t.port = u->has_port() ? std::string(u->port()) : (t.tls ? "443" : "80");
    t.path = std::string(u->encoded_target());
    if (t.path.empty()) t.path = "/";
    return t;
}

// The sockets of one exchange, shared with its deadline's handler (which may run after the
// exchange's coroutine has returned, when the timer fired just as the exchange ended).
struct exchange_state {
    exchange_state(const net::any_io_executor& ex, ssl::context& tls, bool secure_) : resolver(ex) {
        if (secure_) secure.emplace(ex, tls);
        else plain.emplace(ex);
    }
    beast::tcp_stream& stream() { return secure ? beast::get_lowest_layer(*secure) : *plain; }

    tcp::resolver resolver;
    std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
    std::optional<beast::tcp_stream> plain;
    bool timed_out = false;
};

}  // namespace

struct fetcher::impl {
    fetch_options opts;
    mutable ssl::context tls{ssl::context::tls_client};  // SSL_CTX is safe to share between threads

    // One exchange, on its own strand: the deadline's handler and the exchange never run at
    // once, so the deadline can cancel the resolver and close the stream safely.
    net::awaitable<boost::system::result<fetch_response, fetch_error>> exchange(target t, fetch_request rq) const {
        auto ex = co_await net::this_coro::executor;
        auto s = std::make_shared<exchange_state>(ex, tls, t.tls);
        net::steady_timer deadline(ex);
        deadline.expires_after(opts.timeout);
        deadline.async_wait([s](boost::system::error_code ec) {
            if (ec) return;
            s->timed_out = true;
            s->resolver.cancel();
            s->stream().close();
        });
        struct stop_deadline {
            net::steady_timer& t;
            ~stop_deadline() { t.cancel(); }
        } guard{deadline};
        const auto failed = [&s](fetch_error e) { return s->timed_out ? fetch_error::timeout : e; };

        auto [rec, endpoints] = co_await s->resolver.async_resolve(t.host, t.port, use_tuple);
        if (rec) co_return failed(fetch_error::resolve_failed);
        auto [cec, ep] = co_await s->stream().async_connect(endpoints, use_tuple);
        if (cec) co_return failed(fetch_error::connect_failed);
        if (s->secure) {
            // SNI, and the certificate must name the host (or its IP address).
            if (SSL_ctrl(s->secure->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                         const_cast<char*>(t.host.c_str())) != 1)
                co_return fetch_error::tls_failed;
            s->secure->set_verify_mode(ssl::verify_peer);
            s->secure->set_verify_callback(ssl::host_name_verification(t.host));
            auto [hec] = co_await s->secure->async_handshake(ssl::stream_base::client, use_tuple);
            if (hec) co_return failed(fetch_error::tls_failed);
        }

        const bool post = rq.verb == fetch_request::method::post;
        http::request<http::string_body> req{post ? http::verb::post : http::verb::get, t.path, 11};
        req.set(http::field::host, t.authority);
        req.set(http::field::user_agent, "candor");
        req.set(http::field::accept, "application/json");
        req.set(http::field::connection, "close");
        for (const auto& [name, value] : rq.headers) req.set(name, value);
        if (post) {
            if (!rq.content_type.empty()) req.set(http::field::content_type, rq.content_type);
            req.body() = std::move(rq.body);
            req.prepare_payload();
        }
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(opts.max_header_bytes, UINT32_MAX)));
        parser.body_limit(opts.max_body_bytes);
        boost::system::error_code ec;
        if (s->secure) {
            std::tie(ec, std::ignore) = co_await http::async_write(*s->secure, req, use_tuple);
            if (!ec) std::tie(ec, std::ignore) = co_await http::async_read(*s->secure, buffer, parser, use_tuple);
        } else {
            std::tie(ec, std::ignore) = co_await http::async_write(*s->plain, req, use_tuple);
            if (!ec) std::tie(ec, std::ignore) = co_await http::async_read(*s->plain, buffer, parser, use_tuple);
        }
        s->stream().close();
        if (ec == http::error::body_limit || ec == http::error::header_limit) co_return fetch_error::too_large;
        if (ec) co_return failed(fetch_error::protocol_error);
        fetch_response r;
        auto& head = parser.get();
        r.status = head.result_int();
        r.content_type = std::string(head[http::field::content_type]);
        r.location = std::string(head[http::field::location]);
        for (auto [it, end] = head.equal_range(http::field::www_authenticate); it != end; ++it) {
            if (!r.www_authenticate.empty()) r.www_authenticate += ", ";
            r.www_authenticate += it->value();
        }
        r.body = std::move(head.body());
        co_return r;
    }
};

std::string_view to_string(fetch_error e) noexcept {
    switch (e) {
        case fetch_error::invalid_url: return "invalid_url";
        case fetch_error::insecure_url: return "insecure_url";
        case fetch_error::resolve_failed: return "resolve_failed";
        case fetch_error::connect_failed: return "connect_failed";
        case fetch_error::tls_failed: return "tls_failed";
        case fetch_error::timeout: return "timeout";
        case fetch_error::too_large: return "too_large";
        case fetch_error::protocol_error: return "protocol_error";
    }
    return "protocol_error";
}

bool secure_or_loopback(std::string_view url) {
    const auto t = parse_target(url);
    return t && (t->tls || is_loopback(t->host));
}

boost::system::result<std::shared_ptr<fetcher>, std::string> fetcher::create(fetch_options opts) {
    auto i = std::make_unique<impl>();
    i->opts = std::move(opts);
    boost::system::error_code ec;
    if (i->opts.ca_file.empty()) i->tls.set_default_verify_paths(ec);
    else i->tls.load_verify_file(i->opts.ca_file, ec);
    if (ec)
        return std::string(i->opts.ca_file.empty()
                               ? "cannot load the system's certificate authorities: "
                               : "cannot load certificate authorities from '" + i->opts.ca_file + "': ") +
               ec.message();
    return std::shared_ptr<fetcher>(new fetcher(std::move(i)));
}

fetcher::fetcher(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
fetcher::~fetcher() = default;
const fetch_options& fetcher::options() const noexcept { return impl_->opts; }

net::awaitable<boost::system::result<fetch_response, fetch_error>> fetcher::get(std::string url) const {
    fetch_request r;
    r.url = std::move(url);
    co_return co_await send(std::move(r));
}

net::awaitable<boost::system::result<fetch_response, fetch_error>> fetcher::send(fetch_request request) const {
    auto t = parse_target(request.url);
    if (!t) co_return fetch_error::invalid_url;
    if (!t->tls && !is_loopback(t->host)) co_return fetch_error::insecure_url;
    auto ex = co_await net::this_coro::executor;
    co_return co_await net::co_spawn(net::make_strand(ex), impl_->exchange(std::move(*t), std::move(request)),
                                     net::use_awaitable);
}

}  // namespace candor::auth
