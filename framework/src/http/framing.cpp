// SPDX-License-Identifier: BSL-1.0
#include <candor/http/framing.hpp>

#include "ascii.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace candor::transport::http_framing {

namespace {

using http_policy::refusal;

using detail::iequals;
using detail::trim_ows;

refusal bad(std::string_view code, std::string message) { return refusal{400, code, std::move(message)}; }

// A control byte other than HTAB, CR and LF (which the line rules judge), or DEL. RFC 9110
// §5.5: field values must not hold NUL, and nothing in a head needs the others.
bool is_control(unsigned char c) noexcept { return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7F; }

// Content-Length: one decimal number, nothing else (RFC 9110 §8.6; a list, even of equal
// values, is refused rather than reconciled). Saturates: a length past 2^64 is refused later as
// too large, not as malformed.
bool parse_length(std::string_view value, std::uint64_t& out) noexcept {
    if (value.empty()) return false;
    std::uint64_t n = 0;
    constexpr auto max = std::numeric_limits<std::uint64_t>::max();
    for (char c : value) {
        if (c < '0' || c > '9') return false;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        n = n > (max - digit) / 10 ? max : n * 10 + digit;
    }
    out = n;
    return true;
}

// Transfer-Encoding: the codings in order; the server decodes `chunked` only, and only as the
// one coding (RFC 9112 §6.1, §6.3).
std::optional<refusal> check_codings(std::string_view value) {
    std::size_t codings = 0;
    std::size_t chunked = 0;
    bool last_chunked = false;
    for (;;) {
        const auto comma = value.find(',');
        const auto coding = trim_ows(value.substr(0, comma));
        if (coding.empty()) return bad("BAD_TRANSFER_ENCODING", "Transfer-Encoding has an empty element");
        ++codings;
        last_chunked = iequals(coding, "chunked");
        chunked += last_chunked ? 1 : 0;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    if (!last_chunked || chunked > 1)
        return bad("BAD_TRANSFER_ENCODING",
                   "chunked must be the final transfer coding, once: the body's length cannot be determined");
    if (codings > 1)
        return refusal{501, "UNSUPPORTED_TRANSFER_CODING", "only the chunked transfer coding is supported"};
    return std::nullopt;
}

// The field rules, once the head is complete (`text` ends with the empty line).
verdict check_fields(std::string_view text) {
    head h;
    h.size = text.size();
    auto line_end = text.find("\r\n");
    const auto request_line = text.substr(0, line_end);
    constexpr std::string_view http10 = " HTTP/1.0";
    if (request_line.size() >= http10.size() && request_line.substr(request_line.size() - http10.size()) == http10)
        h.version = 10;

    std::size_t lengths = 0;
    std::size_t encodings = 0;
    std::string_view length_value;
    std::string_view encoding_value;
    for (auto at = line_end + 2; at < text.size();) {
        line_end = text.find("\r\n", at);
        const auto line = text.substr(at, line_end - at);
        at = line_end + 2;
        const auto colon = line.find(':');
        // A line without a colon, or a name the parser will refuse, is the parser's to judge.
        if (colon == std::string_view::npos) continue;
        const auto name = line.substr(0, colon);
        if (iequals(name, "content-length")) {
            ++lengths;
            length_value = trim_ows(line.substr(colon + 1));
        } else if (iequals(name, "transfer-encoding")) {
            ++encodings;
            encoding_value = trim_ows(line.substr(colon + 1));
        }
    }

    if (encodings > 1) return bad("BAD_TRANSFER_ENCODING", "Transfer-Encoding is given on more than one line");
    if (lengths > 1) return bad("BAD_CONTENT_LENGTH", "Content-Length is given more than once");
    if (lengths == 1 && !parse_length(length_value, h.content_length))
        return bad("BAD_CONTENT_LENGTH", "Content-Length must be one decimal number");
    if (encodings == 1 && lengths == 1)
        return bad("CONFLICTING_FRAMING", "a request must not have both Content-Length and Transfer-Encoding");
    if (encodings == 1 && h.version == 10)
        return bad("TRANSFER_ENCODING_IN_HTTP10", "an HTTP/1.0 request cannot have a Transfer-Encoding");
    if (encodings == 1) {
        if (auto r = check_codings(encoding_value)) return std::move(*r);
        h.body = body_framing::chunked;
    } else if (lengths == 1) {
        h.body = body_framing::content_length;
    }
    return h;
}

}  // namespace

verdict inspect_head(std::string_view received, std::size_t max_header_bytes, head_progress& progress) {
    // The byte rules, on what was not looked at before; each byte is judged with the one before
    // it, so a head cut anywhere gets the same verdict as the head whole.
    const std::size_t end = std::min(received.size(), max_header_bytes);
    for (std::size_t i = progress.scanned; i < end; ++i) {
        const char c = received[i];
        const char before = i > 0 ? received[i - 1] : '\0';
        if (before == '\r' && c != '\n') return bad("BARE_LINE_BREAK", "a CR not followed by LF in the request head");
        if (c == '\n') {
            if (before != '\r') return bad("BARE_LINE_BREAK", "a LF not preceded by CR in the request head");
            // An empty line ends the head (one at the very start is an empty request line).
            if (i == 1 || (i >= 3 && received[i - 3] == '\r' && received[i - 2] == '\n')) {
                progress.scanned = i + 1;
                return check_fields(received.substr(0, i + 1));
            }
        } else if ((c == ' ' || c == '\t') && before == '\n') {
            return bad("OBSOLETE_LINE_FOLDING", "a header line continues on the next line (obsolete line folding)");
        } else if (is_control(static_cast<unsigned char>(c))) {
            return bad("INVALID_HEADER_BYTE", "a NUL or another control byte in the request head");
        }
    }
    progress.scanned = end;
    if (received.size() >= max_header_bytes)
        return refusal{431, "HEADERS_TOO_LARGE",
                       "request headers are larger than " + std::to_string(max_header_bytes) + " bytes"};
    return need_more{};
}

namespace {

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

bool chunked_decoder::refuse(unsigned status, std::string_view code, std::string message) {
    refused_ = refusal{status, code, std::move(message)};
    state_ = state::refused;
    return false;
}

std::size_t chunked_decoder::feed(std::string_view data, std::string& body) {
    std::size_t i = 0;
    while (i < data.size()) {
        if (state_ == state::done || state_ == state::refused) return i;
        if (state_ == state::data) {
            // Chunk data is taken as it comes, whatever it holds.
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(size_, data.size() - i));
            body.append(data.data() + i, n);
            i += n;
            size_ -= n;
            decoded_ += n;
            if (size_ == 0) state_ = state::data_cr;
            continue;
        }
        const char c = data[i++];
        const bool in_size_line = state_ == state::size || state_ == state::size_space || state_ == state::extension ||
                                  state_ == state::size_lf;
        if ((in_size_line || state_ == state::trailer || state_ == state::trailer_lf) && ++line_ > max_line_) {
            refuse(400, "BAD_CHUNKED_BODY",
                   in_size_line ? "a chunk-size line is longer than " + std::to_string(max_line_) + " bytes"
                                : "the trailer section is longer than " + std::to_string(max_line_) + " bytes");
            return i;
        }
        switch (state_) {
            case state::size:
                if (const int v = hex_value(c); v >= 0) {
                    if (size_ > (std::numeric_limits<std::uint64_t>::max() >> 4)) {
                        refuse(413, "BODY_TOO_LARGE", "a chunk is larger than " + std::to_string(max_body_) + " bytes");
                        return i;
                    }
                    size_ = size_ * 16 + static_cast<std::uint64_t>(v);
                    digits_ = true;
                } else if (!digits_) {
                    refuse(400, "BAD_CHUNKED_BODY", "a chunk must start with its size in hex digits");
                } else if (c == ';') {
                    state_ = state::extension;
                } else if (c == ' ' || c == '\t') {
                    state_ = state::size_space;
                } else if (c == '\r') {
                    state_ = state::size_lf;
                } else {
                    refuse(400, "BAD_CHUNKED_BODY", "a chunk size is followed by something other than an extension");
                }
                break;
            case state::size_space:
                if (c == ';') {
                    state_ = state::extension;
                } else if (c != ' ' && c != '\t') {
                    refuse(400, "BAD_CHUNKED_BODY", "a chunk size is followed by something other than an extension");
                }
                break;
            case state::extension:
                // Extensions are read and ignored; they may hold anything but control bytes.
                if (c == '\r') {
                    state_ = state::size_lf;
                } else if (is_control(static_cast<unsigned char>(c)) || c == '\n') {
                    refuse(400, "BAD_CHUNKED_BODY", "a control byte or a bare LF in a chunk extension");
                }
                break;
            case state::size_lf:
                if (c != '\n') {
                    refuse(400, "BAD_CHUNKED_BODY", "a CR not followed by LF after a chunk size");
                } else if (size_ == 0) {
                    state_ = state::trailer;  // the last chunk: its trailer section follows
                    line_ = 0;
                } else if (size_ > max_body_ - decoded_) {
                    refuse(413, "BODY_TOO_LARGE", "the body is larger than " + std::to_string(max_body_) + " bytes");
                } else {
                    state_ = state::data;
                }
                break;
            case state::data_cr:
                if (c == '\r') {
                    state_ = state::data_lf;
                } else {
                    refuse(400, "BAD_CHUNKED_BODY", "chunk data is not followed by CRLF");
                }
                break;
            case state::data_lf:
                if (c == '\n') {
                    state_ = state::size;
                    digits_ = false;
                    line_ = 0;
                } else {
                    refuse(400, "BAD_CHUNKED_BODY", "chunk data is not followed by CRLF");
                }
                break;
            case state::trailer:
                // Trailer fields are read and dropped: the request has what its head said.
                if (c == '\r') {
                    state_ = state::trailer_lf;
                } else if (is_control(static_cast<unsigned char>(c)) || c == '\n') {
                    refuse(400, "BAD_CHUNKED_BODY", "a control byte or a bare LF in the trailer section");
                } else {
                    line_empty_ = false;
                }
                break;
            case state::trailer_lf:
                if (c != '\n') {
                    refuse(400, "BAD_CHUNKED_BODY", "a CR not followed by LF in the trailer section");
                } else if (line_empty_) {
                    state_ = state::done;
                } else {
                    state_ = state::trailer;
                    line_empty_ = true;
                }
                break;
            case state::data:
            case state::done:
            case state::refused: break;
        }
    }
    return i;
}

}  // namespace candor::transport::http_framing
