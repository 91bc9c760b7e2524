// SPDX-License-Identifier: BSL-1.0
#include "http_request_reader.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <climits>
#include <string>
#include <utility>

namespace candor::transport::detail {

namespace http = boost::beast::http;

request_reader::request_reader(std::size_t max_header_bytes, std::size_t max_body_bytes)
    : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {
    // The head is handed over whole, once the framing rules passed it: Beast's own limit must
    // not be the smaller one.
    parser_.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(max_header_bytes + 1, UINT32_MAX)));
    parser_.body_limit(max_body_bytes);
    parser_.eager(true);
}

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
    boost::system::error_code ec;
    const auto used = parser_.put(boost::asio::buffer(data.data(), h->size), ec);
    if (ec || !parser_.is_header_done()) {
        refuse({400, "BAD_HTTP_REQUEST",
                "malformed HTTP request: " + (ec ? ec.message() : std::string("the head did not parse"))});
        return 0;
    }
    head_ = *h;
    if (parser_.is_done()) state_ = state::done;
    return used;
}

std::size_t request_reader::feed_body(std::string_view data) {
    std::size_t used = 0;
    while (!data.empty() && state_ == state::need_more) {
        boost::system::error_code ec;
        const auto n = parser_.put(boost::asio::buffer(data), ec);
        used += n;
        data.remove_prefix(n);
        if (ec == http::error::need_more) break;
        if (ec == http::error::body_limit) {
            refuse({413, "BODY_TOO_LARGE", "the body is larger than " + std::to_string(max_body_bytes_) + " bytes"});
        } else if (ec) {
            refuse({400, "BAD_HTTP_REQUEST", "malformed HTTP request: " + ec.message()});
        } else if (parser_.is_done()) {
            state_ = state::done;
        } else if (n == 0) {
            break;
        }
    }
    // What the parser leaves untaken is a chunk header or trailer line it has not seen the end
    // of: bounded like a head, so a client cannot make the server buffer one without end.
    if (state_ == state::need_more && data.size() >= max_header_bytes_)
        refuse({400, "BAD_HTTP_REQUEST", "a chunk header or trailer longer than the header limit"});
    return used;
}

void request_reader::refuse(http_policy::refusal r) {
    refusal_ = std::move(r);
    state_ = state::refused;
}

}  // namespace candor::transport::detail
