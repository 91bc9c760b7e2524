// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// JWT access tokens (RFC 9068) verified locally: a pure function of the token, the issuer's
/// keys, the policy and the time. The token is untrusted input: its size is bounded before
/// anything else, its JSON goes through Candor's strict intake with small limits, and no URL
/// it names (`jku`, `x5u`) is ever fetched.

#include <candor/http/auth/jwk.hpp>
#include <candor/mcp/call_context.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace candor::auth {

/// Limits on one access token. Beyond them the token is refused (its code in parentheses).
struct token_limits {
    /// Characters of the compact token (`TOKEN_TOO_LARGE`).
    std::size_t max_bytes = 8 * 1024;
    /// Container depth of the header and of the claims (`TOKEN_MALFORMED`); Keycloak's
    /// `resource_access.CLIENT.roles` is 3 deep.
    std::size_t max_depth = 8;
    /// JSON values of the header and of the claims (`TOKEN_MALFORMED`).
    std::size_t max_nodes = 1024;
    /// Granted scopes (`TOKEN_CLAIMS_INVALID`).
    std::size_t max_scopes = 128;
    /// Groups from the groups claim (`TOKEN_CLAIMS_INVALID`).
    std::size_t max_groups = 256;
};

/// What a valid access token must be, and how its claims become a principal.
struct token_policy {
    /// `iss` must equal it exactly.
    std::string issuer{};
    /// `aud` (a string, or an array of strings) must contain it — the canonical URI of this
    /// resource (RFC 8707): a token for another resource is refused. Scheme and host compare
    /// case-insensitively.
    std::string audience{};
    /// Accepted `alg` values.
    std::vector<algorithm> algorithms = all_algorithms();
    /// Clock skew allowed on `exp`, `nbf` and `iat`.
    std::chrono::seconds leeway{30};
    /// Require the JOSE `typ` of RFC 9068 (`at+jwt` or `application/at+jwt`). Off by default
    /// because Keycloak, Entra ID and Okta issue `typ: JWT`; then any `typ` but a JWT or
    /// access-token type is still refused (`TOKEN_TYPE_UNSUPPORTED`).
    bool require_at_jwt_type = false;
    /// The claim whose string value becomes `principal::id`.
    std::string principal_claim = "sub";
    /// Dotted path of the claim holding groups or roles (`groups`, `roles`,
    /// `realm_access.roles`): an array of strings or a space-separated string. Empty: none.
    std::string groups_claim{};
    /// Broader scopes and the narrower ones each implies (one level, applied once): a token
    /// granting a key is treated as granting its values too.
    std::map<std::string, std::vector<std::string>, std::less<>> scope_implies{};
    token_limits limits{};
};

/// Why a token was refused. Every one of them is answered 401 `invalid_token`.
enum class token_error {
    too_large = 1,          ///< `TOKEN_TOO_LARGE`
    malformed,              ///< `TOKEN_MALFORMED`: not a compact JWS of JSON objects within the limits
    algorithm_unsupported,  ///< `TOKEN_ALGORITHM_UNSUPPORTED`: `alg` not accepted (`none`, `HS256`, …)
    type_unsupported,       ///< `TOKEN_TYPE_UNSUPPORTED`: `typ` is not an access token's, or `crit` is present
    key_unknown,            ///< `TOKEN_KEY_UNKNOWN`: no key of the issuer has the token's `kid`
    signature_invalid,      ///< `TOKEN_SIGNATURE_INVALID`
    issuer_mismatch,        ///< `TOKEN_ISSUER_MISMATCH`
    audience_mismatch,      ///< `TOKEN_AUDIENCE_MISMATCH`: issued for another resource
    expired,                ///< `TOKEN_EXPIRED`
    not_yet_valid,          ///< `TOKEN_NOT_YET_VALID`: `nbf` or `iat` in the future
    claims_invalid,         ///< `TOKEN_CLAIMS_INVALID`: `exp` or the principal claim missing, a claim of the wrong type
};

/// The error's stable code, e.g. "TOKEN_EXPIRED".
std::string_view to_string(token_error e) noexcept;
/// One sentence for people, e.g. "the access token has expired".
std::string_view describe(token_error e) noexcept;
/// For `result::value()`: throws `std::runtime_error` with the code.
[[noreturn]] void throw_exception_from_error(token_error e, const boost::source_location& loc);

/// The scopes of a space-separated list (`scope` of RFC 6749 §3.3), empty entries skipped.
std::vector<std::string> split_scopes(std::string_view list);

/// Verify an access token and build its principal (`id` from the principal claim, a
/// `credential` with issuer, subject, client id, scopes and groups).
/// @param token the compact JWS from `Authorization: Bearer`
/// @param keys the issuer's current keys
/// @param now the time to check `exp`, `nbf` and `iat` against
/// @return the principal, or the first reason to refuse the token (checks run in the order
///         of `token_error`; the signature is verified before the claims are read)
boost::system::result<mcp::principal, token_error> validate_token(std::string_view token, const key_set& keys,
                                                                  const token_policy& policy,
                                                                  std::chrono::system_clock::time_point now);

}  // namespace candor::auth
