// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A small asynchronous HTTP(S) client for OAuth's side requests: the documents a resource
/// server or a client reads (protected resource and authorization server metadata, JWKS) and a
/// client's form posts (registration, token). Beast on the caller's io_context, OpenSSL for
/// https (peer certificate and host name verified), one deadline for the whole exchange (name
/// resolution included), bounded headers and body, no redirects followed (a redirect is a
/// response like any other, its `Location` given), no cookies, no credentials but the headers
/// the caller sets. Never blocks the thread that awaits it.

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::auth {

/// Settings of a `fetcher`; every limit has a default and an error.
struct fetch_options {
    /// The whole exchange — resolve, connect, TLS handshake, request, response — within it
    /// (`fetch_error::timeout`).
    std::chrono::milliseconds timeout{5'000};
    /// Bytes of a response body (`fetch_error::too_large`; a larger `Content-Length` is refused
    /// before the body is read).
    std::size_t max_body_bytes = 256 * 1024;
    /// Bytes of the status line and headers of a response (`fetch_error::too_large`).
    std::size_t max_header_bytes = 16 * 1024;
    /// PEM file of the certificate authorities trusted for https; empty: the system's store.
    std::string ca_file{};
};

/// Why a fetch brought no response.
enum class fetch_error {
    invalid_url = 1,  ///< not an absolute http(s) URL with a host
    insecure_url,     ///< `http` to a host other than a loopback one (127.0.0.1, ::1, localhost)
    resolve_failed,   ///< the host name did not resolve
    connect_failed,   ///< no connection to any of its addresses
    tls_failed,       ///< the TLS handshake or the certificate check failed
    timeout,          ///< past `fetch_options::timeout`
    too_large,        ///< headers or body over their limits
    protocol_error,   ///< a malformed response or a broken connection
};
/// "invalid_url", … (for logs).
std::string_view to_string(fetch_error e) noexcept;

/// A request: `GET` without a body, or `POST` with one.
struct fetch_request {
    enum class method { get, post };
    method verb = method::get;
    std::string url{};
    /// More headers (`Authorization`, `Accept`, …); set after the defaults, so they win.
    std::vector<std::pair<std::string, std::string>> headers{};
    std::string body{};
    std::string content_type{};  ///< of the body, for a POST
};

/// A complete response, whatever its status.
struct fetch_response {
    unsigned status = 0;
    std::string body{};
    std::string content_type{};
    /// `Location` (of a redirect), as sent.
    std::string location{};
    /// Every `WWW-Authenticate` field, joined by ", " as RFC 9110 §5.3 allows.
    std::string www_authenticate{};
};

/// Fetches documents. Thread-safe; one TLS context (trust store loaded once) shared by every
/// fetch.
class fetcher {
public:
    /// @return a fetcher, or why its TLS context could not be set up (an unreadable `ca_file`)
    static boost::system::result<std::shared_ptr<fetcher>, std::string> create(fetch_options opts = {});
    ~fetcher();
    fetcher(const fetcher&) = delete;
    fetcher& operator=(const fetcher&) = delete;

    /// GET `url`. Runs on its own strand of the awaiting coroutine's executor.
    /// @return the response (any status), or why there is none
    boost::asio::awaitable<boost::system::result<fetch_response, fetch_error>> get(std::string url) const;

    /// Any request (`GET` or `POST`); the same rules as `get`.
    boost::asio::awaitable<boost::system::result<fetch_response, fetch_error>> send(fetch_request request) const;

    const fetch_options& options() const noexcept;

    struct impl;

private:
    explicit fetcher(std::unique_ptr<impl> i);
    std::unique_ptr<impl> impl_;
};

/// True for an `https` URL, or an `http` URL whose host is a loopback one: the only URLs an
/// OAuth resource server should take keys or metadata from (RFC 8414 §2 requires https).
bool secure_or_loopback(std::string_view url);

}  // namespace candor::auth
