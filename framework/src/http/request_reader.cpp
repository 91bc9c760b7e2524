// SPDX-License-Identifier: BSL-1.0
#include "request_reader.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <algorithm>
#include <climits>
#include <string>
#include <utility>

namespace candor::transport::detail {

namespace http = boost::beast::http;

request_reader::request_reader(std::size_t max_header_bytes, std::size_t max_body_bytes)
    : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {}

std::size_t request_reader::feed(std::string_view data) {
    if (state_ != state::need_more) return 0;
    std::size_t used = 0;
    if (!head_) {
        used = feed_head(data);
        if (!head_ || state_ != state::need_more) return used;
        data.remove_prefix(used);
    }
    return used + feed_body(data);
}

std::size_t request_reader::feed_head(std::string_view data) {
    auto verdict = http_framing::inspect_head(data, max_header_bytes_, progress_);
    if (auto* r = std::get_if<http_policy::refusal>(&verdict)) {
        refuse(std::move(*r));
        return 0;
    }
    const auto* h = std::get_if<http_framing::head>(&verdict);
    if (!h) return 0;
    if (h->body == http_framing::body_framing::content_length && h->content_length > max_body_bytes_) {
        // Answered without reading the body.
        refuse({413, "BODY_TOO_LARGE", "the body is larger than " + std::to_string(max_body_bytes_) + " bytes"});
        return 0;
    }
    // Beast reads the head (method, target, fields); the body is ours to read, as framed above.
    http::request_parser<http::empty_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(h->size + 1, UINT32_MAX)));
    // The body limit is ours, checked above and while the body is read (both framings alike);
    // Beast's own (1 MiB by default) would refuse a valid Content-Length as malformed.
    parser.body_limit(boost::none);
    boost::system::error_code ec;
    parser.put(boost::asio::buffer(data.data(), h->size), ec);
    if (ec || !parser.is_header_done()) {
        refuse({400, "BAD_HTTP_REQUEST",
                "malformed HTTP request: " + (ec ? ec.message() : std::string("the head did not parse"))});
        return 0;
    }
    request_ = request_t(std::move(parser.release().base()));
    head_ = *h;
    switch (h->body) {
        case http_framing::body_framing::none: state_ = state::done; break;
        case http_framing::body_framing::content_length:
            if (h->content_length == 0) state_ = state::done;
            break;
        case http_framing::body_framing::chunked: chunks_.emplace(max_body_bytes_, max_header_bytes_); break;
    }
    return h->size;
}

std::size_t request_reader::feed_body(std::string_view data) {
    auto& body = request_.body();
    if (chunks_) {
        const auto used = chunks_->feed(data, body);
        if (const auto* r = chunks_->refused()) {
            refuse(*r);
        } else if (chunks_->done()) {
            state_ = state::done;
        }
        return used;
    }
    // Content-Length: exactly that many bytes (what follows is the next request's).
    const auto want = static_cast<std::size_t>(head_->content_length - body.size());
    const auto used = std::min(want, data.size());
    body.append(data.data(), used);
    if (body.size() == head_->content_length) state_ = state::done;
    return used;
}

void request_reader::refuse(http_policy::refusal r) {
    refusal_ = std::move(r);
    state_ = state::refused;
}

}  // namespace candor::transport::detail
