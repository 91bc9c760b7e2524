// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Evidence-gated actions: a destructive tool that runs only on ids a complete inventory
/// delivered.
///
/// The tool's arguments include `snapshot_token` (from the envelope that ended a walk of the
/// required collection) and `ids` (what to act on). Before the handler runs, the framework
/// refuses — fail closed, `isError`, layer `external`, not repairable — with the first that
/// applies: `EVIDENCE_MISSING` (no token), `EVIDENCE_INVALID` (malformed or tampered),
/// `EVIDENCE_EXPIRED` (past the token's expiry, or the evidence set is gone),
/// `EVIDENCE_SCOPE_MISMATCH` (another principal's token, or another collection's),
/// `EVIDENCE_INCOMPLETE` (the walk was not complete; `reasons` lists why) and
/// `EVIDENCE_NOT_COVERED` (ids the walk did not deliver; `ids` lists them). Then `act` runs
/// once per id, where the handler re-checks the object against the current state: an object
/// that no longer qualifies is skipped with a reason. The result envelope's data is
/// `{done: [ids], skipped: [{id, code, message}]}` (with the warning `OBJECTS_SKIPPED` when
/// any was skipped).

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/store.hpp>
#include <candor/evidence/token.hpp>
#include <candor/mcp/tool.hpp>
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
    /// Wall clock for expiry; defaults to `system_clock::now`.
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

class gated_action : public mcp::json_tool {
public:
    /// @param info the tool; `ids` (1..max_ids unique strings) and `snapshot_token` are added to
    ///        its input schema; its action class should be `irreversible_write`
    gated_action(mcp::tool_info info, evidence_requirement req);

    boost::asio::awaitable<envelope::envelope> call(const boost::json::object& arguments, mcp::call_context& ctx) final;

    /// Re-check one object against the current state and act on it.
    /// @return nothing when done, or why it was skipped
    virtual boost::asio::awaitable<boost::system::result<void, skip>> act(const std::string& id,
                                                                          const boost::json::object& arguments,
                                                                          mcp::call_context& ctx) = 0;

    const evidence_requirement& requirement() const noexcept { return req_; }

protected:
    /// What happens once the evidence holds. The default acts on every id (`act_each`);
    /// override it to put an approval step first (return a plan, ask through elicitation)
    /// and call `act_each` once approved. It never runs when the gate refused.
    virtual boost::asio::awaitable<envelope::envelope> run(const verified_evidence& evidence,
                                                           const boost::json::object& arguments,
                                                           mcp::call_context& ctx);

    /// `act` on every id in order; the envelope lists `done` and `skipped` ids.
    boost::asio::awaitable<envelope::envelope> act_each(const verified_evidence& evidence,
                                                        const boost::json::object& arguments, mcp::call_context& ctx);

private:
    evidence_requirement req_;
};

}  // namespace candor::evidence
