// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// JSON Web Key Sets (RFC 7517) of an authorization server: the public keys its access tokens
/// are signed with, read strictly (the document comes over the network) and verified with
/// OpenSSL. RSA (RS256/384/512, PS256/384/512, at least 2048 bits), EC P-256/P-384/P-521
/// (ES256/384/512) and OKP Ed25519/Ed448 (EdDSA). Symmetric keys and `none` never verify.

#include <candor/json/intake.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::auth {

/// The JWS algorithms Candor verifies (RFC 7518 §3, RFC 8037).
enum class algorithm { rs256, rs384, rs512, ps256, ps384, ps512, es256, es384, es512, eddsa };

/// "RS256", …, "EdDSA".
std::string_view to_string(algorithm a) noexcept;
/// The algorithm named `name` (case-sensitive, as JOSE spells it), or nothing — `none`,
/// `HS256` and every other name included.
std::optional<algorithm> parse_algorithm(std::string_view name) noexcept;
/// Every algorithm of `algorithm`.
std::vector<algorithm> all_algorithms();

/// Limits on a JWKS document. Each refusal has its code (`key_set_error`).
struct key_set_limits {
    /// Bytes of the document (`JWKS_TOO_LARGE`).
    std::size_t max_bytes = 256 * 1024;
    /// Entries of `keys`, usable or not (`JWKS_TOO_MANY_KEYS`).
    std::size_t max_keys = 32;
    /// Container depth (`JWKS_INVALID`): `{"keys":[{…,"x5c":[…]}]}` is 3 deep.
    std::size_t max_depth = 6;
    /// JSON values (`JWKS_INVALID`).
    std::size_t max_nodes = 4096;
};

/// Why a JWKS document was refused as a whole. A key of a type Candor does not verify with
/// (an encryption key, `oct`, an RSA key under 2048 bits, a malformed key) is skipped, not
/// refused.
enum class key_set_error {
    too_large = 1,  ///< `JWKS_TOO_LARGE`
    invalid,        ///< `JWKS_INVALID`: not JSON, over a limit, or not `{"keys":[objects]}`
    too_many_keys,  ///< `JWKS_TOO_MANY_KEYS`
    no_usable_key,  ///< `JWKS_NO_USABLE_KEY`: every key was skipped
};
/// The error's stable code, e.g. "JWKS_INVALID".
std::string_view to_string(key_set_error e) noexcept;
/// For `result::value()`: throws `std::runtime_error` with the code.
[[noreturn]] void throw_exception_from_error(key_set_error e, const boost::source_location& loc);

/// What verifying a signature with a key set found.
enum class verify_outcome {
    valid,    ///< a key of the set verified the signature
    no_key,   ///< no key has this `kid` (or, without a kid, none fits the algorithm)
    invalid,  ///< the keys that fit did not verify it, or the kid's key does not fit `alg`
};

/// Public keys from one JWKS document. Immutable and cheap to share; thread-safe.
class key_set {
public:
    /// Read a JWKS document strictly (`candor::json` intake with `lim`'s bounds).
    /// @return the usable keys, or why the document is refused
    static boost::system::result<key_set, key_set_error> parse(std::string_view text, const key_set_limits& lim = {});

    /// Usable keys.
    std::size_t size() const noexcept { return keys_.size(); }
    /// Entries skipped as unusable.
    std::size_t skipped() const noexcept { return skipped_; }
    /// The usable keys' ids in document order (for logs; a key without `kid` is "").
    std::vector<std::string> key_ids() const;

    /// Verify a JWS signature. With a `kid`, only keys with that id are tried; without, every
    /// key that fits `alg`. A key fits when its type (and curve) suits `alg` and its own `alg`,
    /// if it has one, is `alg`.
    /// @param kid the JOSE header's `kid`, or nothing
    /// @param signing_input `BASE64URL(header) "." BASE64URL(payload)`, as received
    /// @param signature the decoded signature (for ES*, R || S as JWS encodes it)
    verify_outcome verify(const std::optional<std::string_view>& kid, algorithm alg, std::string_view signing_input,
                          std::string_view signature) const;

    struct key;

private:
    std::vector<std::shared_ptr<const key>> keys_;
    std::size_t skipped_ = 0;
};

}  // namespace candor::auth
