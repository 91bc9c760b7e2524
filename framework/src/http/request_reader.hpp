// SPDX-License-Identifier: BSL-1.0
#pragma once
// Reads one HTTP request from bytes as they arrive, without I/O: the framing rules
// (http_framing::inspect_head) judge the head, Beast's parser reads it into a request, and the
// body is read as the head framed it (Content-Length bytes, or http_framing::chunked_decoder).
// Private to the transport module; the HTTP server feeds it what the socket brings, the fuzz
// target (fuzz/http_request_fuzz.cpp) feeds it any bytes, in pieces.

#include <candor/http/framing.hpp>
#include <candor/http/policy.hpp>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace candor::transport::detail {

using request_t = boost::beast::http::request<boost::beast::http::string_body>;

class request_reader {
public:
    enum class state {
        need_more,  ///< give it more bytes
        done,       ///< a whole request: `release()` it
        refused,    ///< `refusal()` says why; the connection must be closed after answering
    };

    /// @param max_header_bytes the request line and fields (431 beyond)
    /// @param max_body_bytes the body, announced or decoded (413 beyond)
    request_reader(std::size_t max_header_bytes, std::size_t max_body_bytes);

    /// Takes what it can of `data` (everything received and not yet taken, in order).
    /// @return how many bytes of `data` it took: drop them before the next call, keep the rest
    std::size_t feed(std::string_view data);

    state status() const noexcept { return state_; }
    /// True once the head passed (the body may still be on its way).
    bool head_done() const noexcept { return head_.has_value(); }
    /// The head's framing, once `head_done()`.
    const http_framing::head& head() const noexcept { return *head_; }
    /// Why the request was refused (with `state::refused`).
    const http_policy::refusal& refusal() const noexcept { return *refusal_; }
    /// The request (with `state::done`).
    request_t release() { return std::move(request_); }

private:
    std::size_t feed_head(std::string_view data);
    std::size_t feed_body(std::string_view data);
    void refuse(http_policy::refusal r);

    std::size_t max_header_bytes_;
    std::size_t max_body_bytes_;
    state state_ = state::need_more;
    http_framing::head_progress progress_;
    std::optional<http_framing::head> head_;
    std::optional<http_policy::refusal> refusal_;
    request_t request_;
    std::optional<http_framing::chunked_decoder> chunks_;
};

}  // namespace candor::transport::detail
