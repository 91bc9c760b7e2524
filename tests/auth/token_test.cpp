// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/token.hpp>

#include "auth/support.hpp"

#include <gtest/gtest.h>

namespace {

namespace auth = candor::auth;
using auth::token_error;
using candor::test::access_claims;
using candor::test::epoch_seconds;
using candor::test::signing_key;
using clock_type = std::chrono::system_clock;

// RSA keys take a while to generate: one of each kind for the whole suite.
const signing_key& shared_key(const std::string& alg) {
    static const signing_key rsa = signing_key::generate("rsa-1", "RS256");
    static const signing_key ec = signing_key::generate("ec-1", "ES256");
    static const signing_key ed = signing_key::generate("ed-1", "EdDSA");
    return alg == "RS256" ? rsa : alg == "ES256" ? ec : ed;
}

struct Tokens : ::testing::Test {
    signing_key rsa = shared_key("RS256");
    signing_key ec = shared_key("ES256");
    signing_key ed = shared_key("EdDSA");
    auth::key_set keys = auth::key_set::parse(candor::test::jwks_of({&rsa, &ec, &ed})).value();
    auth::token_policy policy;
    clock_type::time_point now = clock_type::now();

    Tokens() {
        policy.issuer = candor::test::test_issuer;
        policy.audience = candor::test::test_resource;
    }

    boost::system::result<candor::mcp::principal, token_error> check(const std::string& token) const {
        return auth::validate_token(token, keys, policy, now);
    }
    token_error refusal(const std::string& token) const {
        auto r = check(token);
        EXPECT_FALSE(r) << "accepted: " << token;
        return r ? token_error{} : r.error();
    }
};

TEST_F(Tokens, ValidTokensOfEveryKeyTypeBecomePrincipalsWithTheirGrants) {
    for (const auto* key : {&rsa, &ec, &ed}) {
        auto who = check(key->token(access_claims("alice", "mcp:tools tickets:read", now)));
        ASSERT_TRUE(who) << key->alg << ": " << auth::to_string(who.error());
        EXPECT_EQ(who->id, "alice");
        ASSERT_TRUE(who->credential);
        EXPECT_EQ(who->credential->subject, "alice");
        EXPECT_EQ(who->credential->client_id, "agent-app");
        EXPECT_EQ(who->credential->issuer, candor::test::test_issuer);
        EXPECT_TRUE(who->credential->has_scope("mcp:tools"));
        EXPECT_TRUE(who->credential->has_scope("tickets:read"));
        EXPECT_FALSE(who->credential->has_scope("tickets"));
    }
}

TEST_F(Tokens, RsaPssVerifies) {
    auto ps = signing_key::generate("ps-1", "PS256");
    keys = auth::key_set::parse(candor::test::jwks_of({&ps})).value();
    EXPECT_TRUE(check(ps.token(access_claims("alice", "", now))));
}

TEST_F(Tokens, ExpiryAndNotBeforeAllowTheLeewayAndNoMore) {
    auto claims = access_claims("alice", "", now);
    claims["exp"] = epoch_seconds(now) - 20;  // within the 30 s leeway
    EXPECT_TRUE(check(rsa.token(claims)));
    claims["exp"] = epoch_seconds(now) - 40;
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::expired);
    claims = access_claims("alice", "", now);
    claims["nbf"] = epoch_seconds(now) + 120;
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::not_yet_valid);
    claims = access_claims("alice", "", now);
    claims["iat"] = epoch_seconds(now) + 120;
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::not_yet_valid);
}

TEST_F(Tokens, ATokenForAnotherResourceIsRefused) {
    auto claims = access_claims("alice", "", now);
    claims["aud"] = "https://other.example.com/mcp";
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::audience_mismatch);
    claims["aud"] = "https://mcp.example.com/mcp/";  // the path is compared exactly
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::audience_mismatch);
    claims.erase("aud");
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::audience_mismatch);
    // An array naming this resource, and the scheme and host in another case, are fine.
    claims["aud"] = boost::json::array{"https://other.example.com", "HTTPS://MCP.Example.com/mcp"};
    EXPECT_TRUE(check(rsa.token(claims)));
}

TEST_F(Tokens, ATokenOfAnotherIssuerIsRefused) {
    auto claims = access_claims("alice", "", now);
    claims["iss"] = "https://idp.example.com/realms/other";
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::issuer_mismatch);
}

TEST_F(Tokens, AnAlteredTokenOrAForeignKeyDoesNotVerify) {
    const auto token = rsa.token(access_claims("alice", "", now));
    auto forged = token;
    // Replace the payload with one granting more, keeping the signature.
    const auto dot1 = token.find('.'), dot2 = token.rfind('.');
    const auto more = auth::base64url_encode(boost::json::serialize(access_claims("alice", "admin", now)));
    forged = token.substr(0, dot1 + 1) + more + token.substr(dot2);
    EXPECT_EQ(refusal(forged), token_error::signature_invalid);
    // A key of the same kid that the issuer does not have.
    auto impostor = signing_key::generate("rsa-1", "RS256");
    EXPECT_EQ(refusal(impostor.token(access_claims("alice", "", now))), token_error::signature_invalid);
}

TEST_F(Tokens, AnUnknownKidIsReportedAsSuchSoTheKeysCanBeFetchedAgain) {
    auto rotated = signing_key::generate("rsa-2", "RS256");
    EXPECT_EQ(refusal(rotated.token(access_claims("alice", "", now))), token_error::key_unknown);
}

TEST_F(Tokens, NoneSymmetricAndMismatchedAlgorithmsAreRefused) {
    const auto claims = candor::test::access_claims("alice", "", now);
    const auto body = auth::base64url_encode(boost::json::serialize(claims));
    const auto none = auth::base64url_encode(R"({"alg":"none","typ":"at+jwt"})") + "." + body + ".";
    EXPECT_EQ(refusal(none), token_error::algorithm_unsupported);  // an unsecured JWS: empty signature
    const auto none_sig = auth::base64url_encode(R"({"alg":"none"})") + "." + body + ".AAAA";
    EXPECT_EQ(refusal(none_sig), token_error::algorithm_unsupported);
    const auto hs = auth::base64url_encode(R"({"alg":"HS256","kid":"rsa-1"})") + "." + body + ".AAAA";
    EXPECT_EQ(refusal(hs), token_error::algorithm_unsupported);
    // The RSA key's kid with an EC algorithm: not a reason to fetch keys again.
    auto confused = ec;
    confused.kid = "rsa-1";
    EXPECT_EQ(refusal(confused.token(claims)), token_error::signature_invalid);
    // An algorithm the policy does not accept.
    policy.algorithms = {auth::algorithm::es256};
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::algorithm_unsupported);
}

TEST_F(Tokens, OnlyAccessTokenTypesPassAndCritIsRefused) {
    const auto claims = access_claims("alice", "", now);
    EXPECT_TRUE(check(rsa.token(claims, {{"typ", "JWT"}})));
    EXPECT_EQ(refusal(rsa.token(claims, {{"typ", "dpop+jwt"}})), token_error::type_unsupported);
    EXPECT_EQ(refusal(rsa.token(claims, {{"crit", boost::json::array{"exp"}}})), token_error::type_unsupported);
    policy.require_at_jwt_type = true;
    EXPECT_EQ(refusal(rsa.token(claims, {{"typ", "JWT"}})), token_error::type_unsupported);
    EXPECT_TRUE(check(rsa.token(claims, {{"typ", "application/at+jwt"}})));
}

TEST_F(Tokens, MalformedAndOversizedTokensAreRefusedBeforeAnyKeyIsTried) {
    const auto token = rsa.token(access_claims("alice", "", now));
    EXPECT_EQ(refusal(token.substr(0, token.rfind('.'))), token_error::malformed);
    EXPECT_EQ(refusal(token + ".x"), token_error::malformed);
    EXPECT_EQ(refusal(token + "="), token_error::malformed);    // padding is not base64url
    EXPECT_EQ(refusal("e30.e30.e30"), token_error::malformed);  // {} has no alg
    // An accepted algorithm with its signature left out does not verify.
    EXPECT_EQ(refusal(token.substr(0, token.rfind('.') + 1)), token_error::signature_invalid);
    EXPECT_EQ(refusal("not a token"), token_error::malformed);
    std::string deep = R"({"alg":"RS256","x":)" + std::string(20, '[') + std::string(20, ']') + "}";
    EXPECT_EQ(refusal(auth::base64url_encode(deep) + ".e30.AAAA"), token_error::malformed);
    policy.limits.max_bytes = 100;
    EXPECT_EQ(refusal(token), token_error::too_large);
}

TEST_F(Tokens, RequiredClaimsMustBeThereWithTheirTypes) {
    auto claims = access_claims("alice", "", now);
    claims.erase("exp");
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
    claims = access_claims("alice", "", now);
    claims.erase("sub");
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
    claims = access_claims("alice", "", now);
    claims["scope"] = 7;
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
    claims = access_claims("alice", "", now);
    claims["exp"] = "tomorrow";
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
}

TEST_F(Tokens, ScpArraysScopeImplicationsAndAGroupsClaimAreRead) {
    auto claims = access_claims("alice", "", now);
    claims.erase("scope");
    claims["scp"] = boost::json::array{"tickets:admin", "mcp:tools"};
    claims["realm_access"] = boost::json::object{{"roles", boost::json::array{"team-a", "auditors"}}};
    claims.erase("client_id");
    claims["azp"] = "inspector";
    policy.scope_implies["tickets:admin"] = {"tickets:read", "tickets:archive"};
    policy.groups_claim = "realm_access.roles";
    auto who = check(rsa.token(claims));
    ASSERT_TRUE(who) << auth::to_string(who.error());
    EXPECT_TRUE(who->credential->has_scope("tickets:archive"));
    EXPECT_TRUE(who->credential->has_scope("mcp:tools"));
    EXPECT_TRUE(who->credential->in_group("team-a"));
    EXPECT_FALSE(who->credential->in_group("team-b"));
    EXPECT_EQ(who->credential->client_id, "inspector");
    // Groups of the wrong type are refused, too many as well.
    claims["realm_access"] = boost::json::object{{"roles", 3}};
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
    boost::json::array many;
    for (int i = 0; i < 300; ++i) many.emplace_back("g" + std::to_string(i));
    claims["realm_access"] = boost::json::object{{"roles", many}};
    EXPECT_EQ(refusal(rsa.token(claims)), token_error::claims_invalid);
}

TEST_F(Tokens, ThePrincipalClaimIsConfigurable) {
    auto claims = access_claims("3f9c", "", now);
    claims["preferred_username"] = "alice";
    policy.principal_claim = "preferred_username";
    auto who = check(rsa.token(claims));
    ASSERT_TRUE(who);
    EXPECT_EQ(who->id, "alice");
    EXPECT_EQ(who->credential->subject, "3f9c");
}

TEST(TokenCodes, EveryErrorHasItsCodeAndSentence) {
    for (int e = 1; e <= static_cast<int>(token_error::claims_invalid); ++e) {
        const auto code = auth::to_string(static_cast<token_error>(e));
        EXPECT_EQ(code.substr(0, 6), "TOKEN_") << e;
        EXPECT_FALSE(auth::describe(static_cast<token_error>(e)).empty());
    }
}

}  // namespace
