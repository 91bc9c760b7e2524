// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/plan_token.hpp>

#include <candor/evidence/token.hpp>
#include <candor/json/intake.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace {

namespace cv = candor::validation;

candor::seal::key_ring ring(char fill, std::string id = "k1") {
    return candor::seal::key_ring::from_keys({{std::move(id), std::string(32, fill)}}).value();
}

std::string canonical(std::string_view text, std::string_view exclude = {}) {
    auto doc = candor::json::parse(text).value();
    return cv::canonical_arguments(doc.root(), &doc, exclude);
}

TEST(PlanToken, CanonicalArgumentsIgnoreKeyOrderAndKeepNumberTexts) {
    EXPECT_EQ(canonical(R"({"b": [1, {"y": 2, "x": 1}], "a": "s"})"), R"({"a":"s","b":[1,{"x":1,"y":2}]})");
    EXPECT_EQ(canonical(R"({"price": 19.90, "big": 123456789012345678901})"),
              R"({"big":123456789012345678901,"price":19.90})");
    EXPECT_EQ(canonical(R"({"plan_token": "t", "a": 1, "n": {"plan_token": 2}})", "plan_token"),
              R"({"a":1,"n":{"plan_token":2}})");
    EXPECT_NE(canonical(R"({"a": 1})"), canonical(R"({"a": 1.0})"));
}

TEST(PlanToken, CanonicalArgumentsRefuseDepthBeyondTheBound) {
    auto doc = candor::json::parse(R"({"a": {"b": {"c": 1}}})").value();
    EXPECT_TRUE(cv::canonical_arguments(doc.root(), &doc, {}, 2).empty());
    EXPECT_FALSE(cv::canonical_arguments(doc.root(), &doc, {}, 3).empty());
}

TEST(PlanToken, TargetFingerprintIgnoresOrderAndDuplicates) {
    EXPECT_EQ(cv::targets_fingerprint({"b", "a"}), cv::targets_fingerprint({"a", "b", "a"}));
    EXPECT_NE(cv::targets_fingerprint({"a", "b"}), cv::targets_fingerprint({"a"}));
    EXPECT_NE(cv::targets_fingerprint({"a,b"}), cv::targets_fingerprint({"a", "b"}));
}

TEST(PlanToken, SealsAndOpensClaims) {
    auto keys = ring('a');
    cv::plan_claims c{"archive", candor::evidence::principal_fingerprint("alice"), cv::arguments_fingerprint("{}"),
                      cv::targets_fingerprint({"n1"}),
                      std::chrono::system_clock::time_point(std::chrono::seconds(1'900'000'000))};
    auto token = cv::seal_plan_token(keys, c);
    auto back = cv::open_plan_token(keys, token);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->tool, c.tool);
    EXPECT_EQ(back->principal, c.principal);
    EXPECT_EQ(back->arguments, c.arguments);
    EXPECT_EQ(back->targets, c.targets);
    EXPECT_EQ(back->expiry, c.expiry);
    EXPECT_NE(cv::seal_plan_token(keys, c), token);  // a fresh nonce each time
}

TEST(PlanToken, RefusesOtherKeysAndOtherPurposes) {
    auto keys = ring('a');
    cv::plan_claims c{"t", "p", "a", "g", std::chrono::system_clock::now()};
    auto token = cv::seal_plan_token(keys, c);
    EXPECT_FALSE(cv::open_plan_token(ring('b'), token));
    EXPECT_FALSE(cv::open_plan_token(ring('a', "k2"), token));
    auto snapshot_like = keys.seal("candor.snapshot.v1", R"({"t":"t","p":"p","a":"a","g":"g","e":1})");
    EXPECT_FALSE(cv::open_plan_token(keys, snapshot_like));
    auto wrong_shape = keys.seal(cv::plan_token_purpose, R"({"t":"t"})");
    EXPECT_FALSE(cv::open_plan_token(keys, wrong_shape));
    EXPECT_FALSE(cv::open_plan_token(keys, "not a token"));
}

TEST(PlanToken, RefusesAnEmptyNonce) {
    // Found by fuzz_token: such a payload opened, and sealing its claims again wrote a fresh
    // nonce (a token the sealer never writes, whose single use the ledger cannot key).
    auto keys = ring('a');
    auto token = keys.seal(cv::plan_token_purpose, R"({"t":"t","p":"p","a":"","g":"","e":1780,"n":""})");
    EXPECT_FALSE(cv::open_plan_token(keys, token));
    auto with_nonce = keys.seal(cv::plan_token_purpose, R"({"t":"t","p":"p","a":"","g":"","e":1780,"n":"0f"})");
    EXPECT_TRUE(cv::open_plan_token(keys, with_nonce));
}

TEST(PlanToken, RefusesAnExpiryTheClockCannotHold) {
    // Seconds that overflow the clock's nanoseconds (found while writing fuzz_token): malformed, never an
    // expiry that wrapped around.
    auto keys = ring('a');
    for (const char* e : {"9223372036854775807", "9300000000", "-1", "-9223372036854775807"}) {
        auto token = keys.seal(cv::plan_token_purpose,
                               std::string(R"({"t":"t","p":"p","a":"a","g":"g","n":"n","e":)") + e + "}");
        EXPECT_FALSE(cv::open_plan_token(keys, token)) << e;
    }
    auto fine = keys.seal(cv::plan_token_purpose, R"({"t":"t","p":"p","a":"a","g":"g","n":"n","e":4102444800})");
    EXPECT_TRUE(cv::open_plan_token(keys, fine));
}

}  // namespace
