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
/// syntax) is left to the HTTP parser that reads it next; a chunked body is decoded here too
/// (`chunked_decoder`).

#include <candor/http/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

/// Decodes a chunked body (RFC 9112 §7.1) as its bytes arrive, one byte's state at a time, so
/// the verdict never depends on how the bytes were cut. Strict: hex sizes, CRLF line ends,
/// chunk extensions of visible characters (read and ignored), trailer fields (read and
/// dropped); anything else is 400 `BAD_CHUNKED_BODY`. Bounded: a size line or the trailer
/// section longer than `max_line_bytes` is 400 `BAD_CHUNKED_BODY`, a body over `max_body_bytes`
/// is 413 `BODY_TOO_LARGE` as soon as a chunk's size shows it.
class chunked_decoder {
public:
    /// @param max_body_bytes decoded bytes allowed
    /// @param max_line_bytes bytes of one chunk-size line, and of the whole trailer section
    chunked_decoder(std::size_t max_body_bytes, std::size_t max_line_bytes) noexcept
        : max_body_(max_body_bytes), max_line_(max_line_bytes) {}

    /// Decodes what it can of `data`, appending the chunks' bytes to `body`.
    /// @return the bytes of `data` used: all of them, unless the body ended (the rest is the
    /// next request's) or was refused
    std::size_t feed(std::string_view data, std::string& body);

    /// The body has ended (its last chunk and trailer section were read).
    bool done() const noexcept { return state_ == state::done; }
    /// Why the body was refused, if it was.
    const http_policy::refusal* refused() const noexcept { return refused_ ? &*refused_ : nullptr; }

private:
    enum class state {
        size,
        size_space,
        extension,
        size_lf,
        data,
        data_cr,
        data_lf,
        trailer,
        trailer_lf,
        done,
        refused
    };
    bool refuse(unsigned status, std::string_view code, std::string message);

    std::size_t max_body_;
    std::size_t max_line_;
    state state_ = state::size;
    std::uint64_t size_ = 0;  // of the chunk being read (its size line, then what is left of it)
    bool digits_ = false;     // the size line has a hex digit
    std::size_t line_ = 0;    // bytes of the size line, or of the whole trailer section
    bool line_empty_ = true;  // the trailer line being read has no bytes yet
    std::size_t decoded_ = 0;
    std::optional<http_policy::refusal> refused_;
};

}  // namespace candor::transport::http_framing
