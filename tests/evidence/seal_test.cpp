// SPDX-License-Identifier: BSL-1.0
#include <candor/seal/key_ring.hpp>

#include "paging/support.hpp"

#include <candor/evidence/token.hpp>
#include <candor/paging/cursor.hpp>

#include <cmath>
#include <limits>

#include <openssl/evp.h>
#include <openssl/hmac.h>

using namespace candor::test;

namespace {

pg::cursor_claims sample_cursor() {
    pg::cursor_claims c;
    c.tool = "items";
    c.query = candor::seal::fingerprint("query", "{}");
    c.ordering = "id";
    c.principal = ev::principal_fingerprint("alice");
    c.snapshot = "v42";
    c.issued = std::chrono::system_clock::time_point(std::chrono::hours(500'000));
    c.after = boost::json::array{"i-00003"};
    c.walk = "00112233445566778899aabbccddeeff";
    c.delivered = 3;
    c.pages = 1;
    return c;
}

// Every field of `back` as in `c` (key fields of the same kind as well as equal).
void expect_same_claims(const pg::cursor_claims& back, const pg::cursor_claims& c) {
    EXPECT_EQ(back.tool, c.tool);
    EXPECT_EQ(back.query, c.query);
    EXPECT_EQ(back.ordering, c.ordering);
    EXPECT_EQ(back.principal, c.principal);
    EXPECT_EQ(back.snapshot, c.snapshot);
    EXPECT_EQ(back.issued, c.issued);
    ASSERT_EQ(back.after.size(), c.after.size());
    for (std::size_t i = 0; i < c.after.size(); ++i) {
        EXPECT_EQ(back.after[i].kind(), c.after[i].kind()) << i;
        EXPECT_EQ(back.after[i], c.after[i]) << i;
    }
    EXPECT_EQ(back.walk, c.walk);
    EXPECT_EQ(back.delivered, c.delivered);
    EXPECT_EQ(back.pages, c.pages);
    EXPECT_EQ(back.clean, c.clean);
    EXPECT_EQ(back.taints, c.taints);
}

ev::snapshot_claims sample_token() {
    ev::snapshot_claims t;
    t.resource = "items";
    t.query = candor::seal::fingerprint("query", "{}");
    t.principal = ev::principal_fingerprint("alice");
    t.snapshot = "v42";
    t.walk = "00112233445566778899aabbccddeeff";
    t.complete = true;
    t.expiry = std::chrono::system_clock::time_point(std::chrono::hours(500'001));
    return t;
}

// Every single-bit flip of every character of `text`.
template <class F>
void for_each_bit_flip(const std::string& text, F f) {
    for (std::size_t i = 0; i < text.size(); ++i)
        for (int b = 0; b < 8; ++b) {
            std::string t = text;
            t[i] = static_cast<char>(static_cast<unsigned char>(t[i]) ^ (1u << b));
            f(t, i, b);
        }
}

}  // namespace

TEST(Seal, RoundTripReturnsThePayload) {
    auto keys = test_keys();
    auto sealed = keys->seal("p", "hello");
    EXPECT_EQ(keys->open("p", sealed).value(), "hello");
}

TEST(Seal, TextSealedForOnePurposeDoesNotOpenForAnother) {
    auto keys = test_keys();
    auto cursor = pg::seal_cursor(*keys, sample_cursor());
    EXPECT_FALSE(ev::open_snapshot_token(*keys, cursor));
    auto token = ev::seal_snapshot_token(*keys, sample_token());
    EXPECT_FALSE(pg::open_cursor(*keys, token, sample_cursor().issued, std::chrono::seconds(60)));
}

TEST(Seal, EverySingleBitFlipOfACursorTextIsRejected) {
    auto keys = test_keys();
    const auto c = sample_cursor();
    const auto text = pg::seal_cursor(*keys, c);
    ASSERT_TRUE(pg::open_cursor(*keys, text, c.issued, std::chrono::seconds(60)));
    std::size_t flips = 0;
    for_each_bit_flip(text, [&](const std::string& t, std::size_t i, int b) {
        ++flips;
        auto r = pg::open_cursor(*keys, t, c.issued, std::chrono::seconds(60));
        ASSERT_FALSE(r) << "flip of bit " << b << " at " << i << " accepted";
        EXPECT_EQ(r.error(), pg::cursor_error::invalid);
    });
    EXPECT_EQ(flips, text.size() * 8);
}

TEST(Seal, EverySingleBitFlipOfTheSealedBytesIsRejected) {
    // Flips of the decoded bytes, re-encoded canonically: the MAC, the key id, the version
    // and the payload are each covered.
    auto keys = test_keys();
    const auto text = ev::seal_snapshot_token(*keys, sample_token());
    std::string raw;
    ASSERT_TRUE(candor::seal::detail::base64url_decode(text, raw));
    for_each_bit_flip(raw, [&](const std::string& t, std::size_t i, int b) {
        EXPECT_FALSE(ev::open_snapshot_token(*keys, candor::seal::detail::base64url_encode(t)))
            << "flip of bit " << b << " at byte " << i << " accepted";
    });
}

TEST(Seal, EverySingleBitFlipOfASnapshotTokenIsRejected) {
    auto keys = test_keys();
    const auto text = ev::seal_snapshot_token(*keys, sample_token());
    ASSERT_TRUE(ev::open_snapshot_token(*keys, text));
    for_each_bit_flip(text, [&](const std::string& t, std::size_t i, int b) {
        EXPECT_FALSE(ev::open_snapshot_token(*keys, t)) << "flip of bit " << b << " at " << i << " accepted";
    });
}

TEST(Seal, ASnapshotTokenWithAnExpiryTheClockCannotHoldIsRefused) {
    // Milliseconds that overflow the clock's nanoseconds (found while writing fuzz_token): malformed.
    auto keys = test_keys();
    const std::string claims = R"({"r":"r","q":"q","p":"p","s":"s","w":"w","c":true,"n":[],"x":)";
    for (const char* x : {"9223372036854775807", "9300000000000000", "-1"})
        EXPECT_FALSE(ev::open_snapshot_token(*keys, keys->seal(ev::snapshot_token_purpose, claims + x + "}"))) << x;
    EXPECT_TRUE(ev::open_snapshot_token(*keys, keys->seal(ev::snapshot_token_purpose, claims + "4102444800000}")));
}

TEST(Seal, NonCanonicalBase64IsRefused) {
    std::string out;
    EXPECT_TRUE(candor::seal::detail::base64url_decode("QQ", out));  // "A"
    EXPECT_EQ(out, "A");
    EXPECT_FALSE(candor::seal::detail::base64url_decode("QR", out));  // same byte, non-zero unused bits
    EXPECT_FALSE(candor::seal::detail::base64url_decode("QQ==", out));
    EXPECT_FALSE(candor::seal::detail::base64url_decode("Q", out));
}

TEST(Seal, Base64UrlMatchesRfc4648AndRoundTripsEveryLength) {
    // RFC 4648 section 10, without padding.
    const std::pair<std::string, std::string> vectors[] = {
        {"", ""},           {"f", "Zg"},          {"fo", "Zm8"},         {"foo", "Zm9v"},
        {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
    for (const auto& [bytes, text] : vectors) EXPECT_EQ(candor::seal::detail::base64url_encode(bytes), text);
    EXPECT_EQ(candor::seal::detail::base64url_encode("\xfb\xff"), "-_8");  // the URL-safe letters
    for (std::size_t n = 0; n <= 64; ++n) {
        std::string bytes;
        for (std::size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>((i * 37 + n * 11) & 0xFF));
        const auto text = candor::seal::detail::base64url_encode(bytes);
        EXPECT_EQ(text.size(), (n * 4 + 2) / 3) << n;
        std::string back;
        ASSERT_TRUE(candor::seal::detail::base64url_decode(text, back)) << n;
        EXPECT_EQ(back, bytes) << n;
    }
}

TEST(Seal, RotatedKeysStillOpenAndUnknownKeysDoNot) {
    auto old_ring = candor::seal::key_ring::from_keys({{"old", std::string(32, 'o')}}).value();
    auto rotated =
        candor::seal::key_ring::from_keys({{"new", std::string(32, 'n')}, {"old", std::string(32, 'o')}}).value();
    auto other = candor::seal::key_ring::from_keys({{"new", std::string(32, 'n')}}).value();
    const auto sealed = old_ring.seal("p", "x");
    EXPECT_EQ(rotated.open("p", sealed).value(), "x");
    EXPECT_EQ(other.open("p", sealed).error(), candor::seal::seal_error::unknown_key);
    EXPECT_EQ(rotated.current_key_id(), "new");
}

TEST(Seal, SameKeyIdWithAnotherSecretIsABadMac) {
    auto a = candor::seal::key_ring::from_keys({{"k", std::string(32, 'a')}}).value();
    auto b = candor::seal::key_ring::from_keys({{"k", std::string(32, 'b')}}).value();
    EXPECT_EQ(b.open("p", a.seal("p", "x")).error(), candor::seal::seal_error::bad_mac);
}

TEST(Seal, KeyConfigurationIsParsedAndChecked) {
    const std::string hex64(64, 'a');
    auto ring = candor::seal::key_ring::from_config("k2:" + hex64 + ",k1:" + std::string(64, '0'));
    ASSERT_TRUE(ring);
    EXPECT_EQ(ring->current_key_id(), "k2");
    EXPECT_FALSE(ring->is_ephemeral());
    EXPECT_EQ(candor::seal::key_ring::from_config("").error(), candor::seal::key_error::no_keys);
    EXPECT_EQ(candor::seal::key_ring::from_config("k1:abcd").error(), candor::seal::key_error::short_secret);
    EXPECT_EQ(candor::seal::key_ring::from_config("k1" + hex64).error(), candor::seal::key_error::malformed);
    EXPECT_EQ(candor::seal::key_ring::from_config("k1:" + std::string(63, 'a')).error(),
              candor::seal::key_error::malformed);
    EXPECT_EQ(candor::seal::key_ring::from_config("k1:" + std::string(62, 'a') + "zz").error(),
              candor::seal::key_error::malformed);
    EXPECT_EQ(candor::seal::key_ring::from_config("k 1:" + hex64).error(), candor::seal::key_error::invalid_key_id);
    EXPECT_EQ(candor::seal::key_ring::from_config("k:" + hex64 + ",k:" + hex64).error(),
              candor::seal::key_error::duplicate_id);
}

TEST(Seal, EphemeralKeySaysSoAndDiffersPerRing) {
    std::vector<std::string> lines;
    auto a = candor::seal::key_ring::ephemeral([&](std::string_view l) { lines.emplace_back(l); });
    auto b = candor::seal::key_ring::ephemeral({});
    EXPECT_TRUE(a.is_ephemeral());
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("EPHEMERAL"), std::string::npos);
    EXPECT_FALSE(b.open("p", a.seal("p", "x")));
}

TEST(Seal, CursorClaimsSurviveTheRoundTrip) {
    auto keys = test_keys();
    auto c = sample_cursor();
    c.clean = false;
    c.taints = {"VISIBILITY_RESTRICTED"};
    auto back = pg::open_cursor(*keys, pg::seal_cursor(*keys, c), c.issued, std::chrono::seconds(1)).value();
    EXPECT_EQ(back.tool, c.tool);
    EXPECT_EQ(back.after, c.after);
    EXPECT_EQ(back.delivered, 3u);
    EXPECT_EQ(back.pages, 1u);
    EXPECT_FALSE(back.clean);
    EXPECT_EQ(back.taints, c.taints);
    EXPECT_EQ(back.issued, c.issued);
    EXPECT_FALSE(pg::mismatch(back, c));
}

// Every kind of key field, texts that look like fingerprints and texts that do not: what is
// sealed is what opens, bit for bit.
TEST(Seal, CursorClaimsOfEveryKindRoundTripExactly) {
    auto keys = test_keys();
    pg::cursor_claims c = sample_cursor();
    c.tool = "0123456789ABCDEF0123456789ABCDEF";  // 32 hex digits, but not lowercase: kept as text
    c.principal = "";
    c.snapshot = std::string("v\0\xff", 3);
    c.walk = "0123456789abcdef0123456789abcde";  // 31 digits
    c.after = boost::json::array{
        nullptr, false, true, -5, std::numeric_limits<std::uint64_t>::max(), -0.0, 0.1, "\xc3\xbc-\xd0\xba", ""};
    c.delivered = std::numeric_limits<std::uint64_t>::max();
    c.pages = 0;
    c.clean = false;
    // 32 characters that are hex but for the last one, or the first (a byte above 0x7f); and
    // the extremes of those that are.
    c.taints = {"VISIBILITY_RESTRICTED",
                "TIME_BUDGET_EXCEEDED",
                "0123456789abcdef0123456789abcdeg",
                "\xff"
                "123456789abcdef0123456789abcdef",
                std::string(32, 'f'),
                std::string(32, '0')};
    c.issued = std::chrono::system_clock::time_point{};  // the epoch: the earliest a cursor holds
    auto back = pg::open_cursor(*keys, pg::seal_cursor(*keys, c), c.issued, std::chrono::seconds(1)).value();
    expect_same_claims(back, c);
    EXPECT_TRUE(std::signbit(back.after[5].as_double()));  // -0.0 stays -0.0
}

// Issue times a reader could not subtract from now without overflow — before the epoch, past
// half of what the clock counts — are refused, whoever sealed them.
TEST(Seal, ACursorIssuedOutsideTheClocksRangeIsInvalid) {
    auto keys = test_keys();
    const std::int64_t latest =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::duration::max()).count() / 2;
    for (std::int64_t ms : {std::int64_t{-1}, latest + 1}) {
        auto c = sample_cursor();
        c.issued = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
        auto r = pg::open_cursor(*keys, pg::seal_cursor(*keys, c), c.issued, std::chrono::seconds(1));
        ASSERT_FALSE(r) << ms;
        EXPECT_EQ(r.error(), pg::cursor_error::invalid) << ms;
    }
    auto c = sample_cursor();
    c.issued = std::chrono::system_clock::time_point(std::chrono::milliseconds(latest));
    EXPECT_TRUE(pg::open_cursor(*keys, pg::seal_cursor(*keys, c), c.issued, std::chrono::seconds(1)));
}

TEST(Seal, ACursorKeyFieldMustBeAScalar) {
    auto keys = test_keys();
    auto c = sample_cursor();
    c.after = boost::json::array{boost::json::object{{"a", 1}}};
    EXPECT_THROW(pg::seal_cursor(*keys, c), std::logic_error);
}

// The claims are bytes, not JSON: a page's cursor — which an agent reads and sends back — is at
// least a third shorter than the same claims sealed as JSON (the first format), which still opens.
TEST(Seal, TheCursorIsCompactAndTheJsonFormatStillOpens) {
    auto keys = test_keys();
    const auto c = sample_cursor();
    const std::string json = R"({"t":"items","q":")" + c.query + R"(","o":"id","p":")" + c.principal +
                             R"(","s":"v42","i":)" + std::to_string(candor::seal::to_epoch_ms(c.issued)) +
                             R"(,"a":["i-00003"],"w":")" + c.walk + R"(","d":3,"g":1,"c":true,"n":[]})";
    const auto old_text = keys->seal(pg::cursor_purpose, json);
    const auto text = pg::seal_cursor(*keys, c);
    EXPECT_LE(text.size() * 3, old_text.size() * 2) << text.size() << " against " << old_text.size();
    for (const auto& t : {text, old_text})
        expect_same_claims(pg::open_cursor(*keys, t, c.issued, std::chrono::seconds(1)).value(), c);
}

// Claims that are not what seal_cursor writes — cut short anywhere, a byte too many, an unknown
// format, a number not in its shortest form — are refused even behind a valid MAC.
TEST(Seal, MalformedClaimsBehindAValidMacAreInvalid) {
    auto keys = test_keys();
    auto c = sample_cursor();
    c.taints = {"VISIBILITY_RESTRICTED"};
    const std::string payload = keys->open(pg::cursor_purpose, pg::seal_cursor(*keys, c)).value();
    ASSERT_EQ(payload.front(), '\x02');
    auto opens = [&](const std::string& p) {
        return static_cast<bool>(
            pg::open_cursor(*keys, keys->seal(pg::cursor_purpose, p), c.issued, std::chrono::seconds(1)));
    };
    ASSERT_TRUE(opens(payload));
    for (std::size_t n = 0; n < payload.size(); ++n) EXPECT_FALSE(opens(payload.substr(0, n))) << n;
    EXPECT_FALSE(opens(payload + '\0'));
    EXPECT_FALSE(opens('\x03' + payload.substr(1)));
    // The taints' count (1, one byte) written as 0x81 0x00: the same number in two bytes. The
    // taints are the last 24 bytes: the count, then the text's marker, length and 21 bytes.
    const auto taints = payload.substr(payload.size() - 24);
    ASSERT_EQ(taints.substr(0, 3), std::string("\x01\x00\x15", 3));
    EXPECT_FALSE(opens(payload.substr(0, payload.size() - 24) + "\x81" + '\0' + taints.substr(1)));
}

TEST(Seal, CursorOlderThanItsTtlIsExpired) {
    auto keys = test_keys();
    auto c = sample_cursor();
    auto text = pg::seal_cursor(*keys, c);
    EXPECT_TRUE(pg::open_cursor(*keys, text, c.issued + std::chrono::seconds(60), std::chrono::seconds(60)));
    EXPECT_EQ(pg::open_cursor(*keys, text, c.issued + std::chrono::seconds(61), std::chrono::seconds(60)).error(),
              pg::cursor_error::expired);
}

TEST(Seal, NormalizedQueryIgnoresMemberOrderAndPagingControls) {
    auto a =
        boost::json::parse(R"({"b":{"y":1,"x":[2,{"q":1,"p":2}]},"a":"s","cursor":"c1","page_size":3})").as_object();
    auto b = boost::json::parse(R"({"a":"s","page_size":9,"b":{"x":[2,{"p":2,"q":1}],"y":1}})").as_object();
    auto na = pg::normalize_query(a, {"cursor", "page_size"}).value();
    EXPECT_EQ(na, pg::normalize_query(b, {"cursor", "page_size"}).value());
    EXPECT_EQ(na, R"({"a":"s","b":{"x":[2,{"p":2,"q":1}],"y":1}})");
    auto c = boost::json::parse(R"({"a":"t"})").as_object();
    EXPECT_NE(na, pg::normalize_query(c, {}).value());
}

TEST(Seal, NormalizingAQueryDeeperThanTheCeilingIsAnErrorNotARecursionWithoutBound) {
    boost::json::value v = 1;
    for (std::size_t i = 0; i < candor::json::depth_ceiling + 5; ++i) v = boost::json::array{std::move(v)};
    boost::json::object q{{"deep", std::move(v)}};
    EXPECT_EQ(pg::normalize_query(q, {}).error(), pg::query_error::too_deep);
}

// Known answer: the MAC is HMAC-SHA-256 with the key's secret over
// len(purpose) | purpose | 0 | version | id_len | id | payload, checked against OpenSSL's
// one-shot HMAC (the sealer keeps per-thread contexts; they must agree, key after key).
TEST(Seal, TheMacIsHmacSha256OverThePurposeAndTheBody) {
    for (const std::string& secret : {std::string(32, 'k'), std::string(48, 'q'), std::string(32, 'k')}) {
        auto ring = candor::seal::key_ring::from_keys({{"k1", secret}}).value();
        for (std::string_view payload : {std::string_view("{}"), std::string_view("a longer payload, twice")}) {
            const auto sealed = ring.seal("cursor", payload);
            std::string raw;
            ASSERT_TRUE(candor::seal::detail::base64url_decode(sealed, raw));
            ASSERT_GT(raw.size(), 32u);
            const std::string body = raw.substr(0, raw.size() - 32);
            std::string input;
            input.push_back(static_cast<char>(6));
            input += "cursor";
            input.push_back('\0');
            input += body;
            unsigned char expected[32];
            unsigned int len = 0;
            ASSERT_NE(HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
                           reinterpret_cast<const unsigned char*>(input.data()), input.size(), expected, &len),
                      nullptr);
            ASSERT_EQ(len, 32u);
            EXPECT_EQ(raw.substr(raw.size() - 32), std::string(reinterpret_cast<const char*>(expected), 32));
            EXPECT_EQ(ring.open("cursor", sealed).value(), payload);
        }
    }
}
