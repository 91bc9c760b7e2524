// SPDX-License-Identifier: BSL-1.0
#include <candor/http/framing.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

namespace framing = candor::transport::http_framing;
using candor::transport::http_policy::refusal;

constexpr std::size_t limit = 16 * 1024;

std::string post_with(const std::string& fields, const std::string& version = "HTTP/1.1") {
    return "POST /mcp " + version + "\r\nHost: 127.0.0.1\r\n" + fields + "\r\n";
}

// The refusal's status and code, or "ok" / "more".
std::string judge(const framing::verdict& v) {
    if (std::holds_alternative<framing::need_more>(v)) return "more";
    if (const auto* r = std::get_if<refusal>(&v)) return std::to_string(r->status) + " " + std::string(r->code);
    return "ok";
}

// The same bytes, arriving in two pieces cut at every position: the verdict must not depend on
// where the network cut them.
std::string judge_in_pieces(const std::string& text) {
    const std::string whole = judge(framing::inspect_head(text, limit));
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        framing::head_progress progress;
        auto first = framing::inspect_head(std::string_view(text).substr(0, cut), limit, progress);
        const std::string verdict = std::holds_alternative<framing::need_more>(first)
                                        ? judge(framing::inspect_head(text, limit, progress))
                                        : judge(first);
        if (verdict != whole) return "cut at " + std::to_string(cut) + ": " + verdict + ", whole: " + whole;
    }
    return whole;
}

}  // namespace

TEST(HttpFraming, AHeadEndsAtTheEmptyLineAndSaysHowTheBodyIsDelimited) {
    const std::string head = post_with("Content-Length: 5\r\n");
    auto v = framing::inspect_head(head + "hello", limit);
    ASSERT_TRUE(std::holds_alternative<framing::head>(v)) << judge(v);
    const auto& h = std::get<framing::head>(v);
    EXPECT_EQ(h.size, head.size());
    EXPECT_EQ(h.version, 11u);
    EXPECT_EQ(h.body, framing::body_framing::content_length);
    EXPECT_EQ(h.content_length, 5u);

    auto chunked = framing::inspect_head(post_with("Transfer-Encoding: Chunked\r\n"), limit);
    ASSERT_TRUE(std::holds_alternative<framing::head>(chunked)) << judge(chunked);
    EXPECT_EQ(std::get<framing::head>(chunked).body, framing::body_framing::chunked);

    auto none = framing::inspect_head("GET /healthz HTTP/1.0\r\n\r\n", limit);
    ASSERT_TRUE(std::holds_alternative<framing::head>(none)) << judge(none);
    EXPECT_EQ(std::get<framing::head>(none).body, framing::body_framing::none);
    EXPECT_EQ(std::get<framing::head>(none).version, 10u);

    EXPECT_EQ(judge(framing::inspect_head("POST /mcp HTTP/1.1\r\nHost: 1\r\n", limit)), "more");
}

TEST(HttpFraming, TransferCodingsOtherThanOneChunkedAreRefused) {
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: gzip, chunked\r\n")), "501 UNSUPPORTED_TRANSFER_CODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: chunked, gzip\r\n")), "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: gzip\r\n")), "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: chunked, chunked\r\n")), "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: , chunked\r\n")), "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding:\r\n")), "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n")),
              "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n")),
              "400 BAD_TRANSFER_ENCODING");
    EXPECT_EQ(judge_in_pieces(post_with("Transfer-Encoding: chunked\r\n", "HTTP/1.0")),
              "400 TRANSFER_ENCODING_IN_HTTP10");
}

TEST(HttpFraming, ContentLengthIsOneDecimalNumberGivenOnce) {
    EXPECT_EQ(judge_in_pieces(post_with("Content-Length: 5, 5\r\n")), "400 BAD_CONTENT_LENGTH");
    EXPECT_EQ(judge_in_pieces(post_with("Content-Length: 5\r\nContent-Length: 5\r\n")), "400 BAD_CONTENT_LENGTH");
    for (const std::string bad : {"+5", "-1", "5.0", "0x5", "5 5", ""})
        EXPECT_EQ(judge(framing::inspect_head(post_with("Content-Length: " + bad + "\r\n"), limit)),
                  "400 BAD_CONTENT_LENGTH")
            << bad;
    EXPECT_EQ(judge_in_pieces(post_with("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")),
              "400 CONFLICTING_FRAMING");
    EXPECT_EQ(judge_in_pieces(post_with("transfer-encoding: chunked\r\ncontent-length: 5\r\n")),
              "400 CONFLICTING_FRAMING");
    // A length past 2^64 is not malformed but too large: it saturates, for the body limit to refuse.
    auto huge = framing::inspect_head(post_with("Content-Length: 99999999999999999999999\r\n"), limit);
    ASSERT_TRUE(std::holds_alternative<framing::head>(huge)) << judge(huge);
    EXPECT_EQ(std::get<framing::head>(huge).content_length, UINT64_MAX);
}

TEST(HttpFraming, LineBreaksAreCrLfAndNothingElse) {
    EXPECT_EQ(judge_in_pieces(post_with("X-A: 1\r\n  continued\r\n")), "400 OBSOLETE_LINE_FOLDING");
    EXPECT_EQ(judge_in_pieces(post_with("X-A: 1\r\n\tcontinued\r\n")), "400 OBSOLETE_LINE_FOLDING");
    EXPECT_EQ(judge_in_pieces("POST /mcp HTTP/1.1\r\n Host: 1\r\n\r\n"), "400 OBSOLETE_LINE_FOLDING");
    EXPECT_EQ(judge_in_pieces("POST /mcp HTTP/1.1\nHost: 1\r\n\r\n"), "400 BARE_LINE_BREAK");
    EXPECT_EQ(judge_in_pieces("GET / HTTP/1.1\n\n"), "400 BARE_LINE_BREAK");
    EXPECT_EQ(judge_in_pieces(post_with("X-A: 1\rX-B: 2\r\n")), "400 BARE_LINE_BREAK");
    EXPECT_EQ(judge_in_pieces(post_with(std::string("X-A: a\0b\r\n", 10))), "400 INVALID_HEADER_BYTE");
    EXPECT_EQ(judge_in_pieces(post_with("X-A: a\x1b[0m\r\n")), "400 INVALID_HEADER_BYTE");
    EXPECT_EQ(judge_in_pieces(post_with("X-A: caf\xc3\xa9\tok\r\n")), "ok") << "obs-text and HTAB are allowed";
}

TEST(HttpFraming, AHeadThatDoesNotEndWithinTheLimitIs431) {
    const std::string endless = "POST /mcp HTTP/1.1\r\nX-A: " + std::string(100, 'a');
    EXPECT_EQ(judge(framing::inspect_head(endless, 64)), "431 HEADERS_TOO_LARGE");
    EXPECT_EQ(judge(framing::inspect_head(endless, 1000)), "more");
    const std::string exact = post_with("");
    EXPECT_EQ(judge(framing::inspect_head(exact, exact.size())), "ok");
}

TEST(HttpFraming, ABodyIsNeverLookedAt) {
    // What follows the head may be anything: the body (or the next request) is not the head's.
    EXPECT_EQ(judge(framing::inspect_head(post_with("Content-Length: 4\r\n") + std::string("\0\n\r ", 4), limit)),
              "ok");
}

namespace {

// Decodes `text` fed in two pieces cut at `cut`: the body, or the refusal's status and code;
// `used` the bytes taken.
std::string decode(const std::string& text, std::size_t cut, std::size_t& used, std::size_t max_body = 1000,
                   std::size_t max_line = 64) {
    framing::chunked_decoder d(max_body, max_line);
    std::string body;
    used = d.feed(std::string_view(text).substr(0, cut), body);
    if (!d.done() && !d.refused()) used += d.feed(std::string_view(text).substr(cut), body);
    if (const auto* r = d.refused()) return std::to_string(r->status) + " " + std::string(r->code);
    return d.done() ? body : "more";
}

// The verdict whole, checked to be the same for every cut.
std::string decode_in_pieces(const std::string& text, std::size_t max_body = 1000, std::size_t max_line = 64) {
    std::size_t used_whole = 0;
    const auto whole = decode(text, text.size(), used_whole, max_body, max_line);
    for (std::size_t cut = 0; cut < text.size(); ++cut) {
        std::size_t used = 0;
        const auto v = decode(text, cut, used, max_body, max_line);
        if (v != whole || used != used_whole) return "cut at " + std::to_string(cut) + ": " + v + ", whole: " + whole;
    }
    return whole;
}

}  // namespace

TEST(HttpFraming, AChunkedBodyIsDecodedWithExtensionsAndTrailersDropped) {
    EXPECT_EQ(decode_in_pieces("5\r\nhello\r\n6;name=\"v a\"\r\n world\r\n0\r\n\r\n"), "hello world");
    EXPECT_EQ(decode_in_pieces("A \t;x\r\n0123456789\r\n000\r\nX-Sum: 1\r\nY: 2\r\n\r\n"), "0123456789");
    EXPECT_EQ(decode_in_pieces("0\r\n\r\n"), "");
    // The bytes after the body are not taken: they are the next request's.
    std::size_t used = 0;
    const std::string body = "3\r\nabc\r\n0\r\n\r\n";
    EXPECT_EQ(decode(body + "GET / HTTP/1.1\r\n", body.size() + 16, used), "abc");
    EXPECT_EQ(used, body.size());
    EXPECT_EQ(decode("3\r\nab", 5, used), "more");
}

TEST(HttpFraming, AChunkedBodyIsStrictAndBounded) {
    EXPECT_EQ(decode_in_pieces("x\r\n"), "400 BAD_CHUNKED_BODY") << "no hex digit";
    EXPECT_EQ(decode_in_pieces("5x\r\nhello\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY");
    EXPECT_EQ(decode_in_pieces("5 x\r\nhello\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY");
    EXPECT_EQ(decode_in_pieces("5\nhello\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY") << "bare LF";
    EXPECT_EQ(decode_in_pieces("5\r\nhelloX\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY") << "data longer than its size";
    EXPECT_EQ(decode_in_pieces("5;a\x01\r\nhello\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY") << "control byte";
    EXPECT_EQ(decode_in_pieces("0\r\nX: 1\n\r\n"), "400 BAD_CHUNKED_BODY") << "bare LF in a trailer";
    EXPECT_EQ(decode_in_pieces("5;" + std::string(80, 'e') + "\r\nhello\r\n0\r\n\r\n"), "400 BAD_CHUNKED_BODY")
        << "a size line over the line limit";
    EXPECT_EQ(decode_in_pieces("0\r\nX: " + std::string(40, 't') + "\r\nY: " + std::string(40, 't') + "\r\n\r\n"),
              "400 BAD_CHUNKED_BODY")
        << "a trailer section over the line limit";
    // Over the body limit as soon as a size shows it, without reading the chunk.
    EXPECT_EQ(decode_in_pieces("800\r\n", 1000), "413 BODY_TOO_LARGE");
    EXPECT_EQ(decode_in_pieces("200\r\n" + std::string(512, 'a') + "\r\n200\r\n", 1000), "413 BODY_TOO_LARGE");
    EXPECT_EQ(decode_in_pieces("FFFFFFFFFFFFFFFFF\r\n"), "413 BODY_TOO_LARGE") << "past 2^64";
}
