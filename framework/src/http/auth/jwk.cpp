// SPDX-License-Identifier: BSL-1.0
// JWKS intake and signature verification through OpenSSL 3's EVP interface (no cryptography of
// Candor's own: keys are imported with EVP_PKEY_fromdata / EVP_PKEY_new_raw_public_key, which
// check an EC point lies on its curve; signatures are checked with EVP_DigestVerify).
#include <candor/http/auth/jwk.hpp>

#include <candor/http/auth/base64url.hpp>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <boost/json/value.hpp>
#include <boost/throw_exception.hpp>

#include <array>
#include <stdexcept>

namespace candor::auth {

namespace {

struct pkey_free {
    void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};
struct pkey_ctx_free {
    void operator()(EVP_PKEY_CTX* p) const noexcept { EVP_PKEY_CTX_free(p); }
};
struct md_ctx_free {
    void operator()(EVP_MD_CTX* p) const noexcept { EVP_MD_CTX_free(p); }
};
struct bn_free {
    void operator()(BIGNUM* p) const noexcept { BN_free(p); }
};
struct param_bld_free {
    void operator()(OSSL_PARAM_BLD* p) const noexcept { OSSL_PARAM_BLD_free(p); }
};
struct param_free {
    void operator()(OSSL_PARAM* p) const noexcept { OSSL_PARAM_free(p); }
};
struct ecdsa_sig_free {
    void operator()(ECDSA_SIG* p) const noexcept { ECDSA_SIG_free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_free>;

enum class family { rsa, ec, okp };

struct algorithm_info {
    algorithm alg;
    std::string_view name;
    family fam;
    const char* digest;  // null for EdDSA (the message is signed whole)
    bool pss;
    std::string_view curve;  // EC curves by their JWK name
};

constexpr std::array<algorithm_info, 10> algorithms{{
    {algorithm::rs256, "RS256", family::rsa, "SHA256", false, {}},
    {algorithm::rs384, "RS384", family::rsa, "SHA384", false, {}},
    {algorithm::rs512, "RS512", family::rsa, "SHA512", false, {}},
    {algorithm::ps256, "PS256", family::rsa, "SHA256", true, {}},
    {algorithm::ps384, "PS384", family::rsa, "SHA384", true, {}},
    {algorithm::ps512, "PS512", family::rsa, "SHA512", true, {}},
    {algorithm::es256, "ES256", family::ec, "SHA256", false, "P-256"},
    {algorithm::es384, "ES384", family::ec, "SHA384", false, "P-384"},
    {algorithm::es512, "ES512", family::ec, "SHA512", false, "P-521"},
    {algorithm::eddsa, "EdDSA", family::okp, nullptr, false, {}},
}};

const algorithm_info& info_of(algorithm a) noexcept { return algorithms[static_cast<std::size_t>(a)]; }

// Bytes of one coordinate (and of R and S) on each curve.
std::size_t coordinate_bytes(std::string_view curve) noexcept {
    if (curve == "P-256") return 32;
    if (curve == "P-384") return 48;
    if (curve == "P-521") return 66;
    return 0;
}

const boost::json::string* string_member(const boost::json::object& o, std::string_view name) {
    const auto* v = o.if_contains(name);
    return v ? v->if_string() : nullptr;
}

std::optional<std::string> decoded_member(const boost::json::object& o, std::string_view name) {
    const auto* s = string_member(o, name);
    if (!s || s->empty()) return std::nullopt;
    return base64url_decode(*s);
}

BIGNUM* to_bignum(const std::string& bytes) {
    return BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr);
}

pkey_ptr from_params(const char* type, OSSL_PARAM_BLD* bld) {
    std::unique_ptr<OSSL_PARAM, param_free> params(OSSL_PARAM_BLD_to_param(bld));
    std::unique_ptr<EVP_PKEY_CTX, pkey_ctx_free> ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) return nullptr;
    EVP_PKEY* key = nullptr;
    if (EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) return nullptr;
    return pkey_ptr(key);
}

pkey_ptr rsa_key(const boost::json::object& jwk) {
    const auto n = decoded_member(jwk, "n");
    const auto e = decoded_member(jwk, "e");
    if (!n || !e || e->size() > 8) return nullptr;
    std::unique_ptr<BIGNUM, bn_free> bn_n(to_bignum(*n)), bn_e(to_bignum(*e));
    std::unique_ptr<OSSL_PARAM_BLD, param_bld_free> bld(OSSL_PARAM_BLD_new());
    if (!bn_n || !bn_e || !bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1)
        return nullptr;
    auto key = from_params("RSA", bld.get());
    // Shorter RSA keys are breakable (RFC 7518 §3.3 requires 2048 bits).
    if (key && EVP_PKEY_get_bits(key.get()) < 2048) return nullptr;
    return key;
}

pkey_ptr ec_key(const boost::json::object& jwk, std::string_view curve) {
    const std::size_t size = coordinate_bytes(curve);
    const auto x = decoded_member(jwk, "x");
    const auto y = decoded_member(jwk, "y");
    if (!size || !x || !y || x->size() != size || y->size() != size) return nullptr;
    std::string point;
    point.reserve(1 + 2 * size);
    point.push_back('\x04');  // uncompressed: 04 || X || Y
    point.append(*x).append(*y);
    std::unique_ptr<OSSL_PARAM_BLD, param_bld_free> bld(OSSL_PARAM_BLD_new());
    const std::string group(curve);
    if (!bld || OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group.c_str(), 0) != 1 ||
        OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1)
        return nullptr;
    return from_params("EC", bld.get());
}

pkey_ptr okp_key(const boost::json::object& jwk, std::string_view curve) {
    const auto x = decoded_member(jwk, "x");
    if (!x) return nullptr;
    int type = 0;
    if (curve == "Ed25519" && x->size() == 32) type = EVP_PKEY_ED25519;
    else if (curve == "Ed448" && x->size() == 57) type = EVP_PKEY_ED448;
    else return nullptr;
    return pkey_ptr(
        EVP_PKEY_new_raw_public_key(type, nullptr, reinterpret_cast<const unsigned char*>(x->data()), x->size()));
}

// The DER form OpenSSL verifies of a JWS ECDSA signature (R || S, each `size` bytes).
std::optional<std::string> ecdsa_der(std::string_view raw, std::size_t size) {
    if (raw.size() != 2 * size) return std::nullopt;
    std::unique_ptr<ECDSA_SIG, ecdsa_sig_free> sig(ECDSA_SIG_new());
    const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
    BIGNUM* r = BN_bin2bn(bytes, static_cast<int>(size), nullptr);
    BIGNUM* s = BN_bin2bn(bytes + size, static_cast<int>(size), nullptr);
    if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
        BN_free(r);
        BN_free(s);
        return std::nullopt;
    }
    const int len = i2d_ECDSA_SIG(sig.get(), nullptr);
    if (len <= 0) return std::nullopt;
    std::string der(static_cast<std::size_t>(len), '\0');
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    if (i2d_ECDSA_SIG(sig.get(), &out) != len) return std::nullopt;
    return der;
}

}  // namespace

struct key_set::key {
    std::string kid;
    std::optional<algorithm> alg;  // the JWK's own "alg", if any
    family fam;
    std::string curve;  // EC and OKP
    pkey_ptr pkey;

    bool fits(algorithm a) const noexcept {
        const auto& i = info_of(a);
        if (alg && *alg != a) return false;
        if (i.fam != fam) return false;
        return fam != family::ec || i.curve == curve;
    }

    bool verifies(algorithm a, std::string_view input, std::string_view signature) const {
        const auto& i = info_of(a);
        std::string der;
        if (fam == family::ec) {
            auto d = ecdsa_der(signature, coordinate_bytes(curve));
            if (!d) return false;
            der = std::move(*d);
            signature = der;
        }
        std::unique_ptr<EVP_MD_CTX, md_ctx_free> md(EVP_MD_CTX_new());
        EVP_PKEY_CTX* pctx = nullptr;  // owned by md
        if (!md || EVP_DigestVerifyInit_ex(md.get(), &pctx, i.digest, nullptr, nullptr, pkey.get(), nullptr) != 1)
            return false;
        if (i.pss && (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
                      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1))
            return false;
        return EVP_DigestVerify(md.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                                reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    }
};

std::string_view to_string(algorithm a) noexcept { return info_of(a).name; }

std::optional<algorithm> parse_algorithm(std::string_view name) noexcept {
    for (const auto& i : algorithms)
        if (i.name == name) return i.alg;
    return std::nullopt;
}

std::vector<algorithm> all_algorithms() {
    std::vector<algorithm> all;
    for (const auto& i : algorithms) all.push_back(i.alg);
    return all;
}

void throw_exception_from_error(key_set_error e, const boost::source_location& loc) {
    boost::throw_exception(std::runtime_error(std::string(to_string(e))), loc);
}

std::string_view to_string(key_set_error e) noexcept {
    switch (e) {
        case key_set_error::too_large: return "JWKS_TOO_LARGE";
        case key_set_error::invalid: return "JWKS_INVALID";
        case key_set_error::too_many_keys: return "JWKS_TOO_MANY_KEYS";
        case key_set_error::no_usable_key: return "JWKS_NO_USABLE_KEY";
    }
    return "JWKS_INVALID";
}

boost::system::result<key_set, key_set_error> key_set::parse(std::string_view text, const key_set_limits& lim) {
    if (text.size() > lim.max_bytes) return key_set_error::too_large;
    auto doc = json::parse(text, json::limits{lim.max_bytes, lim.max_depth, lim.max_nodes});
    if (!doc) return key_set_error::invalid;
    const auto* root = doc->root().if_object();
    const auto* keys = root ? root->if_contains("keys") : nullptr;
    if (!keys || !keys->is_array()) return key_set_error::invalid;
    if (keys->get_array().size() > lim.max_keys) return key_set_error::too_many_keys;
    key_set set;
    for (const auto& entry : keys->get_array()) {
        const auto* jwk = entry.if_object();
        if (!jwk) return key_set_error::invalid;
        const auto* kty = string_member(*jwk, "kty");
        const auto* use = string_member(*jwk, "use");
        const auto* kid = string_member(*jwk, "kid");
        const auto* alg = string_member(*jwk, "alg");
        const auto* crv = string_member(*jwk, "crv");
        bool usable = kty && (!use || *use == "sig") && (!jwk->contains("use") || use) &&
                      (!jwk->contains("kid") || kid) && (!jwk->contains("alg") || alg);
        // key_ops, when present, must allow verifying.
        if (const auto* ops = jwk->if_contains("key_ops")) {
            bool verify = false;
            if (const auto* a = ops->if_array())
                for (const auto& op : *a) verify = verify || (op.is_string() && op.get_string() == "verify");
            usable = usable && verify;
        }
        auto k = std::make_shared<key>();
        if (usable && alg) {
            k->alg = parse_algorithm(*alg);
            usable = k->alg.has_value();  // a key for another algorithm (HS256, RSA-OAEP, …)
        }
        if (usable) {
            if (*kty == "RSA") {
                k->fam = family::rsa;
                k->pkey = rsa_key(*jwk);
            } else if (*kty == "EC" && crv) {
                k->fam = family::ec;
                k->curve = std::string(*crv);
                k->pkey = ec_key(*jwk, k->curve);
            } else if (*kty == "OKP" && crv) {
                k->fam = family::okp;
                k->curve = std::string(*crv);
                k->pkey = okp_key(*jwk, k->curve);
            }
        }
        if (!usable || !k->pkey || (k->alg && !k->fits(*k->alg))) {
            ++set.skipped_;
            continue;
        }
        if (kid) k->kid = std::string(*kid);
        set.keys_.push_back(std::move(k));
    }
    if (set.keys_.empty()) return key_set_error::no_usable_key;
    return set;
}

std::vector<std::string> key_set::key_ids() const {
    std::vector<std::string> ids;
    for (const auto& k : keys_) ids.push_back(k->kid);
    return ids;
}

verify_outcome key_set::verify(const std::optional<std::string_view>& kid, algorithm alg,
                               std::string_view signing_input, std::string_view signature) const {
    // A known kid whose key does not fit the algorithm is a bad token, not an unknown key:
    // only an unknown kid may send the caller to fetch the keys again.
    bool known = false;
    for (const auto& k : keys_) {
        if (kid && k->kid != *kid) continue;
        if (kid) known = true;
        if (!k->fits(alg)) continue;
        known = true;
        if (k->verifies(alg, signing_input, signature)) return verify_outcome::valid;
    }
    return known ? verify_outcome::invalid : verify_outcome::no_key;
}

}  // namespace candor::auth
