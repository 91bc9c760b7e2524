// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The framing rules of an HTTP/1.1 request head as a pure function, testable (and fuzzed)
/// without a socket: where the head ends, and how the body that follows it is delimited.
///
/// Strict by design (RFC 9112): a request has one framing or none, else it is refused and the
/// connection closed, because a server and a proxy in front of it that disagree on where a
/// request ends can be made to read a second request hidden in the first (request smuggling).
/// Refused: a bare CR or LF, a NUL or other control byte, obsolete line folding, a
/// `Content-Length` that is not one decimal number (also `5, 5`) or comes twice, both
/// `Content-Length` and `Transfer-Encoding`, `Transfer-Encoding` on several lines, on HTTP/1.0,
/// or anything but a single `chunked` (`gzip, chunked` is 501: the coding is not supported).
/// The codes are in docs/http.md. Everything else about the head (method, target, field
/// syntax) is left to the HTTP parser that reads it next.

#include <candor/transport/http_policy.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

namespace candor::transport::http_framing {

/// How the body after a head is delimited.
enum class body_framing {
    none,            ///< no body
    content_length,  ///< exactly `content_length` bytes
    chunked,         ///< `Transfer-Encoding: chunked`
};

/// A complete head that passed the framing rules.
struct head {
    /// Bytes of the head: the request line, the fields and the empty line that ends them.
    std::size_t size = 0;
    /// 10 for HTTP/1.0, else 11 (the parser that reads the head next refuses other versions'
    /// syntax).
    unsigned version = 11;
    body_framing body = body_framing::none;
    /// With `body_framing::content_length`: the body's size (saturates at the largest value).
    std::uint64_t content_length = 0;
};

/// The head has not ended yet; look again when more bytes arrived.
struct need_more {};

/// What `inspect_head` found.
using verdict = std::variant<need_more, head, http_policy::refusal>;

/// How far `inspect_head` has looked, so that a head arriving a byte at a time is looked at once
/// (linear in its size, not quadratic). Start with a fresh one for each request.
struct head_progress {
    std::size_t scanned = 0;
};

/// Inspects the request head at the start of `received` (everything received so far for this
/// request, from its first byte).
/// @param received the bytes so far; bytes after the head (the body) are not looked at
/// @param max_header_bytes a head that has not ended within this many bytes is refused (431)
/// @param progress carried from one call to the next while the head is incomplete
/// @return `need_more`; the `head`; or the refusal (400 or 501 with a code from docs/http.md, or
/// 431 `HEADERS_TOO_LARGE`), after which the connection must be closed
/// @complexity linear in the bytes not looked at before, plus the head's size once it ends
verdict inspect_head(std::string_view received, std::size_t max_header_bytes, head_progress& progress);

/// `inspect_head` on bytes that are all there is (tests, fuzzing).
inline verdict inspect_head(std::string_view received, std::size_t max_header_bytes) {
    head_progress progress;
    return inspect_head(received, max_header_bytes, progress);
}

}  // namespace candor::transport::http_framing
