// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Plan tokens: the two-step approval of an irreversible action when the client cannot ask
/// its user (no elicitation).
///
/// The first call returns the plan (what would be done, to which targets) and a sealed
/// `plan_token`; the caller shows the plan to its user and calls again with the same
/// arguments plus the token. The token binds the tool, the caller (fingerprint of the
/// principal), the exact arguments (a fingerprint of their canonical form, `plan_token`
/// itself excluded) and the exact target ids, and it expires. Sealing reuses the evidence
/// module's key ring (HMAC-SHA-256, its own purpose label, so a cursor or a snapshot token can
/// never pass for a plan token).

#include <candor/envelope/envelope.hpp>
#include <candor/json/document.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace candor::validation {

/// Purpose label of plan tokens in the MAC.
inline constexpr std::string_view plan_token_purpose = "candor.plan.v1";
/// The argument that carries the token.
inline constexpr std::string_view plan_token_argument = "plan_token";

/// What a plan token says.
struct plan_claims {
    std::string tool{};
    std::string principal{};  ///< `evidence::principal_fingerprint` of the caller
    std::string arguments{};  ///< `arguments_fingerprint` of the call
    std::string targets{};    ///< `targets_fingerprint` of the target ids
    std::chrono::system_clock::time_point expiry{};
    /// Random per plan (filled in by `seal_plan_token` when empty); what makes a token
    /// single-use (`plan_ledger`, plan_ledger.hpp).
    std::string nonce{};
};

std::string seal_plan_token(const seal::key_ring& keys, const plan_claims& claims);

/// Any encoding, key or MAC failure, or a payload of the wrong shape, is a `seal_error`.
boost::system::result<plan_claims, seal::seal_error> open_plan_token(const seal::key_ring& keys,
                                                                     std::string_view token);

/// The canonical text of tool arguments: object keys sorted, no whitespace, numbers in their
/// exact source text when `doc` knows it, members named `exclude` (at the top level) left out.
/// Two calls with the same arguments in another key order have the same canonical text.
/// @param max_depth containers nested deeper are refused with an empty result (the budget
///        has already bounded the arguments; this guards the recursion regardless)
std::string canonical_arguments(const boost::json::value& arguments, const json::document* doc,
                                std::string_view exclude = {}, std::size_t max_depth = 64);

std::string arguments_fingerprint(std::string_view canonical);

/// Order and duplicates do not matter: the ids are sorted and made unique first.
std::string targets_fingerprint(std::vector<std::string> ids);

}  // namespace candor::validation
