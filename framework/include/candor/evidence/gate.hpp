// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The evidence gate: a destructive action runs only on ids a complete inventory delivered.
///
/// An action declares it by passing an `evidence_requirement` as a layer to
/// `validation::add_tool` (validation/layers.hpp). Its arguments then include `snapshot_token`
/// (from the envelope that ended a walk of the required collection) and `ids` (what to act on).
/// Before the tool runs, the gate refuses — fail closed, `isError`, layer `external`, not
/// repairable — with the first that applies: `EVIDENCE_MISSING` (no token), `EVIDENCE_INVALID`
/// (malformed or tampered), `EVIDENCE_EXPIRED` (past the token's expiry, or the evidence set is
/// gone), `EVIDENCE_SCOPE_MISMATCH` (another principal's token, or another collection's),
/// `EVIDENCE_INCOMPLETE` (the walk was not complete; `reasons` lists why) and
/// `EVIDENCE_NOT_COVERED` (ids the walk did not deliver; `ids` lists them). The tool then
/// re-checks each object against the current state as it acts (`act_on_each`): an object that
/// no longer qualifies is skipped with a reason, and the result's data is
/// `{done: [ids], skipped: [{id, code, message}]}` (with the warning `OBJECTS_SKIPPED` when any
/// was skipped).

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/store.hpp>
#include <candor/evidence/token.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::evidence {

/// Codes this module adds (documented in docs/envelope.md).
namespace codes {
inline constexpr std::string_view evidence_missing = "EVIDENCE_MISSING";
inline constexpr std::string_view evidence_invalid = "EVIDENCE_INVALID";
inline constexpr std::string_view evidence_expired = "EVIDENCE_EXPIRED";
inline constexpr std::string_view evidence_incomplete = "EVIDENCE_INCOMPLETE";
inline constexpr std::string_view evidence_scope_mismatch = "EVIDENCE_SCOPE_MISMATCH";
inline constexpr std::string_view evidence_not_covered = "EVIDENCE_NOT_COVERED";
inline constexpr std::string_view objects_skipped = "OBJECTS_SKIPPED";
/// A skip code: the object changed (or went) since the walk behind the token delivered it, so
/// the action left it alone (`sql_collection::changed_since_walk` finds such objects).
inline constexpr std::string_view target_changed = "TARGET_CHANGED";
}  // namespace codes

/// What evidence an action accepts.
struct evidence_requirement {
    /// The collection tool whose walks count as inventory (`scope.resource` of the token).
    std::string resource{};
    std::shared_ptr<const seal::key_ring> keys{};
    std::shared_ptr<evidence_store> store{};
    /// At most this many ids per call.
    std::size_t max_ids = 100;
    /// Wall clock for expiry; unset: `system_clock::now`.
    std::function<seal::wall_time()> wall_clock{};
};

/// The accepted evidence (what `verify` found).
struct verified_evidence {
    snapshot_claims claims{};
    std::vector<std::string> ids{};
};

/// Check a token and ids against a requirement without running anything (the gate itself).
/// @param token the `snapshot_token` argument, or null when absent
/// @param ids the requested ids (already schema-checked: strings)
/// @param principal_id the caller's principal
/// @return the evidence, or the issue that refuses it (a list of one; `SOURCE_UNAVAILABLE` when
///         the evidence store failed)
/// @complexity one store lookup per id, on the store's worker when it has one
boost::asio::awaitable<boost::system::result<verified_evidence, issue_list>> verify(const evidence_requirement& req,
                                                                                    const std::string* token,
                                                                                    const std::vector<std::string>& ids,
                                                                                    std::string principal_id);

/// Why one object was skipped at execution.
struct skip {
    std::string code{};
    std::string message{};
};

/// The arguments the gate adds to an action's input schema: `ids` (1..`max_ids` unique,
/// non-empty strings; required) and `snapshot_token` (a non-empty string).
boost::json::object gate_arguments(const evidence_requirement& req);

/// The check of one object as the action reaches it: nothing when done, or why it was skipped.
using object_action = std::function<boost::asio::awaitable<boost::system::result<void, skip>>(const std::string& id)>;

/// Act on `ids` in order, one at a time. The envelope's data is `{done: [ids], skipped:
/// [{id, code, message}]}`, with the warning `OBJECTS_SKIPPED` when any was skipped.
boost::asio::awaitable<envelope::envelope> act_on_each(const std::vector<std::string>& ids, object_action act);

}  // namespace candor::evidence
