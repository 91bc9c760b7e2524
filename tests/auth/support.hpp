// SPDX-License-Identifier: BSL-1.0
#pragma once
// Keys generated with OpenSSL in the test, their public JWKs, and access tokens signed with
// them: the authorization server's side, minimal.

#include <candor/http/auth/base64url.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace candor::test {

struct signing_key {
    std::string kid;
    std::string alg;  // "RS256", "PS256", "ES256", "EdDSA"
    std::shared_ptr<EVP_PKEY> pkey;

    static signing_key generate(std::string kid, std::string alg) {
        EVP_PKEY* p = nullptr;
        if (alg == "RS256" || alg == "PS256") p = EVP_RSA_gen(2048);
        else if (alg == "ES256") p = EVP_EC_gen("P-256");
        else if (alg == "EdDSA") p = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
        if (!p) throw std::runtime_error("key generation failed");
        return signing_key{std::move(kid), std::move(alg), std::shared_ptr<EVP_PKEY>(p, EVP_PKEY_free)};
    }

    static std::string bn_param(EVP_PKEY* p, const char* name) {
        BIGNUM* bn = nullptr;
        if (EVP_PKEY_get_bn_param(p, name, &bn) != 1) throw std::runtime_error("no key parameter");
        std::string out(static_cast<std::size_t>(BN_num_bytes(bn)), '\0');
        BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
        BN_free(bn);
        return out;
    }

    // The public JWK (with "alg" and "use" unless told otherwise).
    boost::json::object jwk(bool with_alg = true) const {
        boost::json::object k;
        if (!kid.empty()) k["kid"] = kid;
        if (with_alg) k["alg"] = alg;
        k["use"] = "sig";
        if (alg == "RS256" || alg == "PS256") {
            k["kty"] = "RSA";
            k["n"] = auth::base64url_encode(bn_param(pkey.get(), OSSL_PKEY_PARAM_RSA_N));
            k["e"] = auth::base64url_encode(bn_param(pkey.get(), OSSL_PKEY_PARAM_RSA_E));
        } else if (alg == "ES256") {
            k["kty"] = "EC";
            k["crv"] = "P-256";
            std::string x = bn_param(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_X);
            std::string y = bn_param(pkey.get(), OSSL_PKEY_PARAM_EC_PUB_Y);
            x.insert(0, 32 - x.size(), '\0');
            y.insert(0, 32 - y.size(), '\0');
            k["x"] = auth::base64url_encode(x);
            k["y"] = auth::base64url_encode(y);
        } else {
            k["kty"] = "OKP";
            k["crv"] = "Ed25519";
            std::string x(32, '\0');
            std::size_t len = x.size();
            EVP_PKEY_get_raw_public_key(pkey.get(), reinterpret_cast<unsigned char*>(x.data()), &len);
            k["x"] = auth::base64url_encode(x);
        }
        return k;
    }

    std::string sign(std::string_view input) const {
        std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
        EVP_PKEY_CTX* pctx = nullptr;
        const char* digest = alg == "EdDSA" ? nullptr : "SHA256";
        if (EVP_DigestSignInit_ex(md.get(), &pctx, digest, nullptr, nullptr, pkey.get(), nullptr) != 1)
            throw std::runtime_error("sign init failed");
        if (alg == "PS256") {
            EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
        }
        std::size_t len = 0;
        const auto* in = reinterpret_cast<const unsigned char*>(input.data());
        EVP_DigestSign(md.get(), nullptr, &len, in, input.size());
        std::string sig(len, '\0');
        if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, in, input.size()) != 1)
            throw std::runtime_error("sign failed");
        sig.resize(len);
        if (alg != "ES256") return sig;
        // DER → R || S, as JWS wants it.
        const auto* der = reinterpret_cast<const unsigned char*>(sig.data());
        ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(sig.size()));
        std::string raw(64, '\0');
        BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
        ECDSA_SIG_free(es);
        return raw;
    }

    // A compact JWS of `claims` with this key (header: alg, typ, kid, plus `extra_header`).
    std::string token(const boost::json::object& claims, boost::json::object extra_header = {}) const {
        boost::json::object header{{"alg", alg}, {"typ", "at+jwt"}};
        if (!kid.empty()) header["kid"] = kid;
        for (const auto& [k, v] : extra_header) header[k] = v;
        const std::string input = auth::base64url_encode(boost::json::serialize(header)) + "." +
                                  auth::base64url_encode(boost::json::serialize(claims));
        return input + "." + auth::base64url_encode(sign(input));
    }
};

inline std::int64_t epoch_seconds(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

constexpr const char* test_issuer = "https://idp.example.com/realms/acme";
constexpr const char* test_resource = "https://mcp.example.com/mcp";

// RFC 9068 claims for `sub`, valid for five minutes from `now`.
inline boost::json::object access_claims(std::string sub, std::string scope,
                                         std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) {
    return boost::json::object{{"iss", test_issuer},
                               {"aud", test_resource},
                               {"sub", std::move(sub)},
                               {"client_id", "agent-app"},
                               {"scope", std::move(scope)},
                               {"iat", epoch_seconds(now)},
                               {"exp", epoch_seconds(now) + 300},
                               {"jti", "t-1"}};
}

inline std::string jwks_of(std::initializer_list<const signing_key*> keys) {
    boost::json::array a;
    for (const auto* k : keys) a.push_back(k->jwk());
    return boost::json::serialize(boost::json::object{{"keys", std::move(a)}});
}

}  // namespace candor::test
