// SPDX-License-Identifier: BSL-1.0
#include <candor/json/write.hpp>

#include <candor/json/intake.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

TEST(Write, RoundTripsThroughTheIntake) {
    const std::string text =
        R"({"a":[1,-2,18446744073709551615,0.5,1e+300,true,false,null],"s":"q\"\\\n\u0001\u00e9","e":{},"x":[]})";
    auto doc = candor::json::parse(text);
    ASSERT_TRUE(doc);
    auto out = candor::json::to_string(doc->root());
    ASSERT_TRUE(out);
    auto again = candor::json::parse(*out);
    ASSERT_TRUE(again) << *out;
    EXPECT_EQ(again->root(), doc->root());
}

TEST(Write, RefusesNonFiniteNumbers) {
    boost::json::value v = {{"x", std::numeric_limits<double>::infinity()}};
    std::string out = "keep";
    auto r = candor::json::write(v, out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), candor::json::write_error::non_finite_number);
    EXPECT_EQ(out, "keep");
    EXPECT_FALSE(candor::json::to_string(boost::json::value(std::nan(""))));
}

TEST(Write, RefusesInvalidUtf8) {
    boost::json::value v = {{"x", "\xc3"}};
    auto r = candor::json::to_string(v);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), candor::json::write_error::invalid_utf8);
}

TEST(Write, KeepsIntegralDoublesDouble) {
    auto out = candor::json::to_string(boost::json::value(3.0));
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, "3.0");
}

TEST(Write, DeepValueIsRefusedNotOverflowed) {
    boost::json::value v = boost::json::array{};
    boost::json::value* cur = &v;
    for (int i = 0; i < 2000; ++i) {
        cur->as_array().emplace_back(boost::json::array{});
        cur = &cur->as_array().back();
    }
    auto r = candor::json::to_string(v, 512);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), candor::json::write_error::too_deep);
    EXPECT_TRUE(candor::json::to_string(v, 5000));
}

TEST(Write, EscapesExactlyWhatJsonRequires) {
    // Plain runs between escapes, at the start and at the end; UTF-8 passes through unescaped.
    boost::json::value v = "\"a\\b/\x01\x1f\n\r\t\b\f\xc3\xa9z\x7f\"";
    auto out = candor::json::to_string(v);
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, R"("\"a\\b/\u0001\u001f\n\r\t\b\f)"
                    "\xc3\xa9z\x7f"
                    R"(\"")");
    auto plain = candor::json::to_string(boost::json::value("plain text, no escapes"));
    ASSERT_TRUE(plain);
    EXPECT_EQ(*plain, "\"plain text, no escapes\"");
}

TEST(Write, RefusesInvalidUtf8AfterAPlainRun) {
    EXPECT_FALSE(candor::json::to_string(boost::json::value("abc\"def\xe2\x82")));
    EXPECT_FALSE(candor::json::to_string(boost::json::value("abcdef\xed\xa0\x80")));  // a surrogate
}

TEST(Write, WriteStringEscapesAsAJsonStringLiteral) {
    std::string out = "x=";
    ASSERT_TRUE(candor::json::write_string("{\"a\":\"b\\c\"}\n\t\x01é", out));
    EXPECT_EQ(out, R"(x="{\"a\":\"b\\c\"}\n\t\u0001é")");
    // It parses back to the same text.
    auto doc = candor::json::parse(out.substr(2));
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->root().as_string(), "{\"a\":\"b\\c\"}\n\t\x01é");
}

TEST(Write, WriteStringLeavesTheOutputAsItWasOnInvalidUtf8) {
    std::string out = "keep";
    auto r = candor::json::write_string("ok\xc3", out);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), candor::json::write_error::invalid_utf8);
    EXPECT_EQ(out, "keep");
}

// Long strings are escaped with AVX2 or SSSE3 where the CPU has them, else with SSE2: the
// escaping tests run each path this CPU has (the names of the instances say which ran).
using candor::json::detail::escaper;
constexpr escaper every_escaper[] = {escaper::portable, escaper::ssse3, escaper::avx2};

std::vector<escaper> escapers_this_cpu_has() {
    std::vector<escaper> has;
    for (const auto e : every_escaper)
        if (candor::json::detail::use_escaper(e) == e) has.push_back(e);
    candor::json::detail::use_escaper(escaper::avx2);
    return has;
}

TEST(Write, AnEscaperTheCpuLacksFallsBackToTheBestBelowIt) {
    for (const auto e : every_escaper) {
        const auto used = candor::json::detail::use_escaper(e);
        EXPECT_LE(used, e);
        EXPECT_EQ(candor::json::detail::use_escaper(used), used) << "the fallback is one the CPU has";
    }
    candor::json::detail::use_escaper(escaper::avx2);
    EXPECT_EQ(escapers_this_cpu_has().front(), escaper::portable) << "every CPU has the portable path";
}

class WritePaths : public ::testing::TestWithParam<escaper> {
protected:
    void SetUp() override { ASSERT_EQ(candor::json::detail::use_escaper(GetParam()), GetParam()); }
    void TearDown() override { candor::json::detail::use_escaper(escaper::avx2); }
};
INSTANTIATE_TEST_SUITE_P(Escaper, WritePaths, ::testing::ValuesIn(escapers_this_cpu_has()), [](const auto& p) {
    return p.param == escaper::avx2    ? std::string("avx2")
           : p.param == escaper::ssse3 ? std::string("ssse3")
                                       : std::string("portable");
});

// Short strings are checked 8 bytes at a time, long ones 8 or 16: every special byte at every
// offset of strings around those boundaries, and plain bytes whose arithmetic could trip the
// word test.
TEST_P(WritePaths, EscapesEverySpecialByteAtEveryOffset) {
    const std::string specials[] = {"\"",       "\\",  "\n", std::string(1, '\x01'), std::string(1, '\x1f'),
                                    "\xc3\xa9", "\x7f"};
    for (std::size_t len = 0; len <= 48; ++len) {
        for (const auto& special : specials) {
            for (std::size_t at = 0; at <= len; ++at) {
                std::string s(len, 'a');
                // Neighbours just above the thresholds (0x20 space, 0x21, 0x23, 0x5d).
                for (std::size_t k = 0; k < len; ++k) s[k] = " !#]a~"[k % 6];
                s.insert(at, special);
                std::string out;
                ASSERT_TRUE(candor::json::write_string(s, out)) << len << " " << at;
                auto doc = candor::json::parse(out);
                ASSERT_TRUE(doc) << out;
                ASSERT_EQ(doc->root().as_string(), s) << out;
                for (char c : out) ASSERT_GE(static_cast<unsigned char>(c), 0x20u) << out;
            }
        }
    }
    std::string out;
    EXPECT_FALSE(candor::json::write_string(std::string(17, 'a') + "\xff" + std::string(9, 'b'), out));
    ASSERT_TRUE(candor::json::write_string(std::string_view(), out));  // no data pointer at all
    EXPECT_EQ(out, "\"\"");
}

namespace {
// The escaping of a string whose only specials are quotes and backslashes.
std::string quotes_escaped(std::string_view s) {
    std::string r = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') r.push_back('\\');
        r.push_back(c);
    }
    return r + "\"";
}
TEST(ValidUtf8, InvalidBytesBecomeReplacementCharactersAndValidTextStaysAsItIs) {
    std::string out;
    EXPECT_EQ(candor::json::append_valid_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80", out), 10u);
    EXPECT_EQ(out, "caf\xC3\xA9 \xF0\x9F\x98\x80");
    out.clear();
    // A lone continuation byte, a truncated sequence, an overlong form, a surrogate.
    EXPECT_EQ(candor::json::append_valid_utf8("a\x80"
                                              "b\xE2\x82"
                                              "c\xC0\xAF"
                                              "d\xED\xA0\x80",
                                              out),
              12u);
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(out, "a" + r + "b" + r + r + "c" + r + r + "d" + r + r + r);
    std::string quoted;
    EXPECT_TRUE(candor::json::write_string(out, quoted));
}

TEST(ValidUtf8, ACutNeverSplitsASequence) {
    std::string out;
    EXPECT_EQ(candor::json::append_valid_utf8("ab\xC3\xA9", out, 3), 2u);
    EXPECT_EQ(out, "ab");
    out.clear();
    EXPECT_EQ(candor::json::append_valid_utf8("ab\xC3\xA9", out, 4), 4u);
    EXPECT_EQ(out, "ab\xC3\xA9");
}

}  // namespace

// Many quotes and backslashes at once, at every length around the 16-byte blocks, next to
// prefixes that move them across block boundaries: the output is exactly the reference escaping.
TEST_P(WritePaths, DenseQuotesAndBackslashesAreEscapedExactly) {
    std::uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    const char alphabet[] = "\"\\ab:{},[]0 ~";
    for (std::size_t len = 0; len <= 100; ++len) {
        for (int round = 0; round < 20; ++round) {
            std::string s(len, 'x');
            const unsigned density = round % 5;  // from none to nearly all escaped
            for (auto& c : s)
                c = (next() >> 16) % 5 < density ? "\"\\"[(next() >> 8) & 1]
                                                 : alphabet[(next() >> 12) % (sizeof alphabet - 1)];
            std::string out = "prefix";
            ASSERT_TRUE(candor::json::write_string(s, out)) << s;
            ASSERT_EQ(out, "prefix" + quotes_escaped(s)) << "length " << len << ", round " << round;
        }
    }
}

// Long strings are escaped a block (1 KiB) at a time: specials before, at and after block
// boundaries, and one that only the last block holds (the whole string falls back to the
// general path, nothing of the first blocks left twice), next to text already in the sink.
TEST_P(WritePaths, LongStringsAreEscapedExactlyAcrossBlocks) {
    for (std::size_t len : {1023u, 1024u, 1025u, 2047u, 2048u, 2049u, 5000u}) {
        for (std::size_t at : {std::size_t{0}, std::size_t{1023}, std::size_t{1024}, len / 2, len - 1}) {
            if (at >= len) continue;
            std::string s(len, 'a');
            for (std::size_t k = 0; k < len; k += 7) s[k] = '"';
            std::string quoted = s;
            quoted[at] = '\\';
            std::string out = "prefix";
            ASSERT_TRUE(candor::json::write_string(quoted, out)) << len << " " << at;
            ASSERT_EQ(out, "prefix" + quotes_escaped(quoted)) << len << " " << at;

            std::string control = s;
            control[at] = '\x01';  // only the general path writes it (\u0001)
            out = "prefix";
            ASSERT_TRUE(candor::json::write_string(control, out)) << len << " " << at;
            ASSERT_EQ(out.rfind("prefix", 0), 0u);
            auto doc = candor::json::parse(std::string_view(out).substr(6));
            ASSERT_TRUE(doc) << len << " " << at;
            ASSERT_EQ(doc->root().as_string(), control) << len << " " << at;

            std::string bad = s;
            bad[at] = '\xff';  // not UTF-8: nothing written
            out = "prefix";
            EXPECT_FALSE(candor::json::write_string(bad, out)) << len << " " << at;
            EXPECT_EQ(out, "prefix") << len << " " << at;
        }
    }
}

TEST(Write, ObjectsAndArraysWriteAsTheirValuesDo) {
    const boost::json::object o{{"a", boost::json::array{1, "x", boost::json::object{{"b", nullptr}}}}, {"c", true}};
    EXPECT_EQ(candor::json::to_string(o).value(), candor::json::to_string(boost::json::value(o)).value());
    const boost::json::array a{1, boost::json::array{2, boost::json::array{3}}};
    EXPECT_EQ(candor::json::to_string(a).value(), "[1,[2,[3]]]");
    EXPECT_EQ(candor::json::to_string(a, 2).error(), candor::json::write_error::too_deep);
    const boost::json::object bad{{"k", std::numeric_limits<double>::quiet_NaN()}};
    std::string out = "keep";
    EXPECT_EQ(candor::json::write(bad, out).error(), candor::json::write_error::non_finite_number);
    EXPECT_EQ(out, "keep");
}

TEST(Write, ASinkTakesSeveralValuesAndCutsOnceAtTheEnd) {
    std::string out = "prefix:";
    {
        candor::json::text_sink sink(out);
        sink.put('[');
        EXPECT_TRUE(candor::json::write_string("a \"b\"", sink));
        sink.put(',');
        EXPECT_TRUE(candor::json::write(boost::json::value{{"k", 1.5}}, sink));
        sink.put(',');
        // A failed value leaves nothing behind, and the sink goes on.
        EXPECT_FALSE(candor::json::write_string("\xFF", sink));
        EXPECT_EQ(candor::json::write(boost::json::value(std::nan("")), sink).error(),
                  candor::json::write_error::non_finite_number);
        EXPECT_TRUE(candor::json::write(boost::json::value(nullptr), sink));
        sink.put(']');
        EXPECT_EQ(sink.size(), std::string_view(R"(prefix:["a \"b\"",{"k":1.5},null])").size());
    }
    EXPECT_EQ(out, R"(prefix:["a \"b\"",{"k":1.5},null])");
}

TEST(Write, RawBytesOfEveryLengthArriveWholeAndInOrder) {
    // put(string_view) copies short texts inline with overlapping moves: every length, at
    // every offset, must land byte for byte and nothing past its end.
    const std::string source = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
    for (std::size_t offset = 0; offset < 3; ++offset) {
        std::string out = std::string(offset, '-');
        std::string expected = out;
        {
            candor::json::text_sink sink(out);
            for (std::size_t n = 0; n <= 40; ++n) {
                sink.put(std::string_view(source).substr(n % 5, n));
                sink.put('|');
                expected += source.substr(n % 5, n) + "|";
            }
            EXPECT_EQ(sink.size(), expected.size());
        }
        EXPECT_EQ(out, expected);
    }
}

TEST(Write, ASinkWritesIntoTheCapacityReservedBeforeReallocating) {
    // A page's text is reserved at the size pages had so far: the sink's doubling must not
    // reallocate (and copy) a text that fits its reserve — not even for the room an escaped
    // string asks for up front.
    std::string out;
    out.reserve(3000);  // doubling from 256 bytes would reallocate at 1,792
    ASSERT_LT(out.capacity(), 3840u);
    const char* const reserved = out.data();
    const std::string plain(100, 'x'), quoted = std::string(100, 'y') + "\"";
    {
        candor::json::text_sink sink(out);
        sink.put('[');
        for (int i = 0; i < 25; ++i) {  // 25 × 103 bytes
            EXPECT_TRUE(candor::json::write_string(plain, sink));
            sink.put(',');
        }
        EXPECT_TRUE(candor::json::write_string(quoted, sink));  // asks for about 2 × 101 bytes
        sink.put(']');
        EXPECT_EQ(out.data(), reserved);
    }
    EXPECT_EQ(out.data(), reserved);
    EXPECT_EQ(out.size(), 1 + 25 * 103 + 104 + 1u);
    EXPECT_EQ(out.substr(out.size() - 5), R"(y\"")"
                                          "]");

    // Past the reserve it grows as before, and keeps what was written.
    {
        candor::json::text_sink sink(out);
        for (int i = 0; i < 20; ++i) EXPECT_TRUE(candor::json::write_string(plain, sink));
    }
    EXPECT_EQ(out.size(), 1 + 25 * 103 + 104 + 1 + 20 * 102u);
    EXPECT_EQ(out.substr(0, 3), "[\"x");
}

TEST(Write, WrittenTextReadsBackExactlyAndRefusesWhatItsWritersDidNotWrite) {
    boost::json::value v = {
        {"d", 0.1}, {"big", 1e300}, {"n", -7}, {"s", "é\n"}, {"deep", boost::json::array{{1, {2, {3}}}}}};
    const auto w = candor::json::written::adopt(candor::json::to_string(v).value());
    EXPECT_EQ(w.to_value(), v);
    EXPECT_THROW((void)candor::json::written::adopt("{\"a\":").to_value(), std::logic_error);
    EXPECT_THROW((void)candor::json::written::adopt(R"({"a":1,"a":2})").to_value(), std::logic_error);
}
