// SPDX-License-Identifier: BSL-1.0
// Fuzzes how the HTTP transport reads a request: the framing rules (http_framing::inspect_head,
// http_framing::chunked_decoder) and the request reader that joins them with Beast's head parser
// (framework/src/http/request_reader.hpp), the very class the server feeds from its
// sockets. Driving the real
// reader over bytes in memory, rather than a copy of its rules or a server on a socket, tests
// what runs in production at the speed fuzzing needs: the reader does no I/O, so any bytes can
// reach it, cut anywhere. The first byte chooses where the bytes are cut in two, the second the
// limits; the rest is what the client sent. Checked on every input: no crash, no hang, and —
//  * the verdict is a request, a refusal with a documented status and an UPPER_SNAKE code, or
//    "more bytes needed"; never anything else;
//  * it does not depend on where the bytes were cut (nor on the pieces they came in);
//  * a request handed on has the framing its head announced: no body, exactly Content-Length
//    bytes, or a chunked body (decoded); never more than the body limit;
//  * the head alone (inspect_head) gives the reader's verdict on it.
#include "http/request_reader.hpp"

#include <candor/http/framing.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

namespace framing = candor::transport::http_framing;
using candor::transport::detail::request_reader;

void check(bool ok) {
    if (!ok) std::abort();
}

struct outcome {
    request_reader::state state = request_reader::state::need_more;
    std::string code;      // of a refusal
    std::string body;      // of a request
    std::size_t left = 0;  // bytes not taken (the next request's)
};

// Feeds `pieces` as a socket would bring them: what the reader leaves untaken stays in front of
// what arrives next.
template <class... Pieces>
outcome read(std::size_t max_header, std::size_t max_body, Pieces... pieces) {
    request_reader reader(max_header, max_body);
    std::string pending;
    for (std::string_view piece : {std::string_view(pieces)...}) {
        pending.append(piece);
        if (reader.status() == request_reader::state::need_more) pending.erase(0, reader.feed(pending));
    }
    outcome out;
    out.state = reader.status();
    out.left = pending.size();
    if (out.state == request_reader::state::refused) {
        const auto& r = reader.refusal();
        check(r.status == 400 || r.status == 413 || r.status == 431 || r.status == 501);
        check(!r.code.empty());
        for (char c : r.code) check((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
        out.code = std::string(r.code);
    } else if (out.state == request_reader::state::done) {
        const auto head = reader.head();
        auto req = reader.release();
        check(req.body().size() <= max_body);
        switch (head.body) {
            case framing::body_framing::none: check(req.body().empty()); break;
            case framing::body_framing::content_length: check(req.body().size() == head.content_length); break;
            case framing::body_framing::chunked: check(req.chunked()); break;
        }
        out.body = std::move(req.body());
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::string_view bytes(reinterpret_cast<const char*>(data + 2), size - 2);
    const std::size_t cut = bytes.size() * data[0] / 255;
    constexpr std::size_t header_limits[] = {64, 512, 16 * 1024};
    constexpr std::size_t body_limits[] = {8, 1024, 1 << 20};
    const std::size_t max_header = header_limits[data[1] % 3];
    const std::size_t max_body = body_limits[data[1] / 3 % 3];

    const auto whole = read(max_header, max_body, bytes);
    const auto cut_in_two = read(max_header, max_body, bytes.substr(0, cut), bytes.substr(cut));
    check(whole.state == cut_in_two.state);
    check(whole.code == cut_in_two.code);
    check(whole.body == cut_in_two.body);
    check(whole.left == cut_in_two.left);

    // The head's own verdict agrees with the reader's on a refusal of the head.
    const auto head = framing::inspect_head(bytes, max_header);
    if (const auto* r = std::get_if<candor::transport::http_policy::refusal>(&head)) {
        check(whole.state == request_reader::state::refused && whole.code == r->code);
    } else if (std::holds_alternative<framing::need_more>(head)) {
        check(whole.state == request_reader::state::need_more);
    }
    return 0;
}
