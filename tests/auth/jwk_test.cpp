// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/jwk.hpp>

#include "auth/support.hpp"

#include <gtest/gtest.h>

namespace {

namespace auth = candor::auth;
using candor::test::signing_key;

std::string document(boost::json::array keys) {
    return boost::json::serialize(boost::json::object{{"keys", std::move(keys)}});
}

TEST(KeySet, KeysCandorCannotVerifyWithAreSkippedNotFatal) {
    auto rsa = signing_key::generate("rsa-1", "RS256");
    auto small = EVP_RSA_gen(1024);
    signing_key weak{"weak", "RS256", std::shared_ptr<EVP_PKEY>(small, EVP_PKEY_free)};
    auto enc = rsa.jwk();
    enc["kid"] = "enc";
    enc["use"] = "enc";
    auto wrong_curve = signing_key::generate("ec-1", "ES256").jwk();
    wrong_curve["crv"] = "P-384";  // coordinates of P-256 on P-384: not a key
    auto off_curve = signing_key::generate("ec-2", "ES256").jwk();
    auto y = auth::base64url_decode(off_curve["y"].as_string()).value();
    y.back() = static_cast<char>(y.back() ^ 1);  // a point that is not on the curve
    off_curve["y"] = auth::base64url_encode(y);
    const auto set = auth::key_set::parse(document(
        {rsa.jwk(), weak.jwk(), enc, wrong_curve, off_curve, boost::json::object{{"kty", "oct"}, {"k", "AAAA"}},
         boost::json::object{{"kty", "RSA"}, {"kid", "no-n"}, {"e", "AQAB"}}}));
    ASSERT_TRUE(set);
    EXPECT_EQ(set->size(), 1u);
    EXPECT_EQ(set->skipped(), 6u);
    EXPECT_EQ(set->key_ids(), std::vector<std::string>{"rsa-1"});
}

TEST(KeySet, DocumentsOverTheirLimitsOrOfAnotherShapeAreRefused) {
    auto rsa = signing_key::generate("rsa-1", "RS256");
    EXPECT_EQ(auth::key_set::parse("{").error(), auth::key_set_error::invalid);
    EXPECT_EQ(auth::key_set::parse(R"({"keys":{}})").error(), auth::key_set_error::invalid);
    EXPECT_EQ(auth::key_set::parse(R"({"keys":[1]})").error(), auth::key_set_error::invalid);
    EXPECT_EQ(auth::key_set::parse(R"({"keys":[],"keys":[]})").error(), auth::key_set_error::invalid);
    EXPECT_EQ(auth::key_set::parse(R"({"keys":[]})").error(), auth::key_set_error::no_usable_key);
    boost::json::array many;
    for (int i = 0; i < 33; ++i) many.push_back(rsa.jwk());
    EXPECT_EQ(auth::key_set::parse(document(many)).error(), auth::key_set_error::too_many_keys);
    auth::key_set_limits small;
    small.max_bytes = 64;
    EXPECT_EQ(auth::key_set::parse(document({rsa.jwk()}), small).error(), auth::key_set_error::too_large);
    EXPECT_EQ(auth::to_string(auth::key_set_error::too_many_keys), "JWKS_TOO_MANY_KEYS");
}

TEST(KeySet, AKeysOwnAlgorithmRestrictsWhatItVerifies) {
    auto rsa = signing_key::generate("rsa-1", "RS256");
    const auto set = auth::key_set::parse(document({rsa.jwk()})).value();
    const std::string input = "header.payload";
    const auto sig = rsa.sign(input);
    EXPECT_EQ(set.verify(std::string_view("rsa-1"), auth::algorithm::rs256, input, sig), auth::verify_outcome::valid);
    EXPECT_EQ(set.verify(std::nullopt, auth::algorithm::rs256, input, sig), auth::verify_outcome::valid);
    EXPECT_EQ(set.verify(std::string_view("rsa-1"), auth::algorithm::rs384, input, sig), auth::verify_outcome::invalid);
    EXPECT_EQ(set.verify(std::string_view("rsa-9"), auth::algorithm::rs256, input, sig), auth::verify_outcome::no_key);
    EXPECT_EQ(set.verify(std::string_view("rsa-1"), auth::algorithm::rs256, "header.other", sig),
              auth::verify_outcome::invalid);
}

TEST(Algorithms, OnlyAsymmetricNamesParse) {
    EXPECT_EQ(auth::parse_algorithm("ES256"), auth::algorithm::es256);
    EXPECT_EQ(auth::parse_algorithm("EdDSA"), auth::algorithm::eddsa);
    EXPECT_FALSE(auth::parse_algorithm("none"));
    EXPECT_FALSE(auth::parse_algorithm("HS256"));
    EXPECT_FALSE(auth::parse_algorithm("rs256"));
    for (auto a : auth::all_algorithms()) EXPECT_EQ(auth::parse_algorithm(auth::to_string(a)), a);
}

TEST(Base64url, DecodingIsStrictAndRoundTrips) {
    for (const auto& s :
         std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\xff\x00\xfe", 3)})
        EXPECT_EQ(auth::base64url_decode(auth::base64url_encode(s)), s);
    EXPECT_EQ(auth::base64url_encode("\xfb\xff"), "-_8");
    EXPECT_FALSE(auth::base64url_decode("Zg=="));  // padding
    EXPECT_FALSE(auth::base64url_decode("Zm+v"));  // the standard alphabet
    EXPECT_FALSE(auth::base64url_decode("Z"));     // a length no encoding has
    EXPECT_FALSE(auth::base64url_decode("Zh"));    // non-zero unused bits: "Zg" is the one encoding of "f"
    EXPECT_FALSE(auth::base64url_decode("Zm 9v"));
}

}  // namespace
