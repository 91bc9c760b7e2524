// SPDX-License-Identifier: BSL-1.0
#pragma once
// The bytes of one HTTP connection of the client: plain TCP (http://), or TLS over it (https://:
// the peer's certificate checked against the trusted authorities and the host name, SNI sent
// for a host name). A connection is made anew each time (a TLS stream is not reused once closed).
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace candor::client::detail {

class wire {
    static constexpr auto token = boost::asio::as_tuple(boost::asio::use_awaitable);

public:
    using plain_stream = boost::beast::tcp_stream;
    using secure_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

    /// `tls` null: plain TCP. `host`: the name the certificate must carry (and SNI, unless an IP
    /// address).
    wire(boost::asio::any_io_executor ex, std::shared_ptr<boost::asio::ssl::context> tls, std::string host)
        : ex_(std::move(ex)), tls_(std::move(tls)), host_(std::move(host)) {}

    bool is_open() {
        auto* s = lowest();
        return s && s->socket().is_open();
    }
    void expires_after(std::chrono::steady_clock::duration d) {
        if (auto* s = lowest()) s->expires_after(d);
    }
    void expires_never() {
        if (auto* s = lowest()) s->expires_never();
    }
    /// Closes the connection at once (no TLS close_notify: the server is not waited for).
    void close() {
        if (auto* s = lowest()) {
            boost::system::error_code ignored;
            s->socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
            s->close();
        }
    }

    /// A new connection to one of `endpoints` within `timeout`, the TLS handshake included.
    /// @return nothing, or the error and whether it was TLS's
    boost::asio::awaitable<std::pair<boost::system::error_code, bool>> connect(
        const boost::asio::ip::tcp::resolver::results_type& endpoints, std::chrono::milliseconds timeout) {
        using boost::asio::as_tuple;
        using boost::asio::use_awaitable;
        close();
        plain_.reset();
        secure_.reset();
        if (tls_) secure_ = std::make_unique<secure_stream>(ex_, *tls_);
        else plain_ = std::make_unique<plain_stream>(ex_);
        lowest()->expires_after(timeout);
        auto [cec, ep] = co_await lowest()->async_connect(endpoints, as_tuple(use_awaitable));
        if (cec || !secure_) co_return std::pair{cec, false};
        boost::system::error_code ec;
        boost::asio::ip::make_address(host_, ec);
        const bool ip_literal = !ec;
        // SNI names a host, never an address (RFC 6066 §3).
        if (!ip_literal && SSL_ctrl(secure_->native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                    const_cast<char*>(host_.c_str())) != 1)
            co_return std::pair{boost::system::error_code(boost::asio::error::invalid_argument), true};
        secure_->set_verify_mode(boost::asio::ssl::verify_peer);
        secure_->set_verify_callback(boost::asio::ssl::host_name_verification(host_));
        auto [hec] = co_await secure_->async_handshake(boost::asio::ssl::stream_base::client, as_tuple(use_awaitable));
        co_return std::pair{hec, static_cast<bool>(hec)};
    }

    template <class Message>
    auto write(Message& m) {
        if (secure_) return boost::beast::http::async_write(*secure_, m, token);
        return boost::beast::http::async_write(*plain_, m, token);
    }
    template <class Parser>
    auto read_header(boost::beast::flat_buffer& b, Parser& p) {
        if (secure_) return boost::beast::http::async_read_header(*secure_, b, p, token);
        return boost::beast::http::async_read_header(*plain_, b, p, token);
    }
    template <class Parser>
    auto read(boost::beast::flat_buffer& b, Parser& p) {
        if (secure_) return boost::beast::http::async_read(*secure_, b, p, token);
        return boost::beast::http::async_read(*plain_, b, p, token);
    }
    template <class Parser>
    auto read_some(boost::beast::flat_buffer& b, Parser& p) {
        if (secure_) return boost::beast::http::async_read_some(*secure_, b, p, token);
        return boost::beast::http::async_read_some(*plain_, b, p, token);
    }

private:
    plain_stream* lowest() {
        if (secure_) return &boost::beast::get_lowest_layer(*secure_);
        return plain_.get();
    }

    boost::asio::any_io_executor ex_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    std::string host_;
    std::unique_ptr<plain_stream> plain_;
    std::unique_ptr<secure_stream> secure_;
};

}  // namespace candor::client::detail
