// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The approval step on its own: ask the user through the approver (elicitation) when the
/// client can be asked, else the two-step plan flow (a plan and a sealed `plan_token`, then a
/// second call carrying it). A typed tool gets it as a layer (`validation::approval`, or by
/// being an irreversible write; layers.hpp); a plain `json_tool` calls it itself before it
/// acts.

#include <candor/error/issue.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/offload/worker.hpp>
#include <candor/seal/key_ring.hpp>
#include <candor/store/database.hpp>
#include <candor/validation/approval.hpp>
#include <candor/validation/plan_ledger.hpp>
#include <candor/validation/plan_token.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace candor::validation {

struct approval_options {
    /// Default: `elicitation_approver`.
    std::shared_ptr<validation::approver> approver{};
    /// Keys that seal plan tokens. Default: an ephemeral ring (tokens die with the process;
    /// harmless for tokens that live minutes, but configure a ring for several replicas).
    std::shared_ptr<const seal::key_ring> plan_keys{};
    std::chrono::seconds plan_ttl{600};
    /// Executed plan tokens (single use). Default: a `memory_plan_ledger` per gate (forgotten at
    /// a restart); a server that keeps its state on disk passes a `sql_plan_ledger`.
    std::shared_ptr<validation::plan_ledger> plan_ledger{};
    /// Wall clock for plan expiry; defaults to `system_clock::now`.
    std::function<std::chrono::system_clock::time_point()> wall_clock{};
};

/// When `approval_gate::approve` records the use of an approval (a plan token, or the answer
/// that approved) in the ledger.
enum class plan_use_timing {
    /// Before it returns: the action runs after (a crash in between leaves the approval used and
    /// the action undone).
    before_action,
    /// Not at all: the outcome carries the use (`approval_outcome::use`), and the caller records
    /// it with the action's own writes (`approval_gate::run_approved`).
    with_action,
};

/// What `approval_gate::approve` decided.
struct approval_outcome {
    /// Non-empty: do nothing and answer `envelope::failure(refusal)`. One issue: the plan
    /// waiting for approval (`PLAN_TOKEN_REQUIRED`, repairable, with `details.plan` and
    /// `details.plan_token`), or why the action is not approved (`ACTION_DECLINED`,
    /// `ACTION_CANCELLED`, `ACTION_NOT_APPROVED`, `APPROVAL_USED`, `PLAN_TOKEN_*`).
    issue_list refusal{};
    /// When approved: `proceed`, or `narrow` with the ids (a non-empty subset of the plan's
    /// targets) to act on instead.
    approval_decision decision{};
    /// The approval's use, still to be recorded (`with_action` only): the plan token's, or the
    /// answer's when the user was asked (every approval is used once, however it was given).
    std::optional<plan_use> use{};
    /// `use` names an answer, not a plan token (a replay is refused `APPROVAL_USED`).
    bool use_by_answer = false;

    bool approved() const noexcept { return refusal.empty(); }
};

namespace detail {
/// Run `work` in one transaction of `db` on `worker`.
/// @param approval_used an approval's use was recorded before (said in the refusal)
/// @return nothing when committed, else `SOURCE_UNAVAILABLE` (nothing was done)
boost::asio::awaitable<boost::system::result<void, issue_list>> run_writes(std::shared_ptr<store::sql_database> db,
                                                                           offload::worker& worker, ledger_work work,
                                                                           bool approval_used);
}  // namespace detail

class approval_gate {
public:
    /// @param tool the tool's name (bound into plan tokens)
    explicit approval_gate(std::string tool, approval_options opts = {});

    /// Ask the user when the approver is available for this call, else check `token` (absent:
    /// issue a plan token for `plan`). Either way the approval is used once: its use (the plan
    /// token's nonce, or the approving answer's id) goes to the plan ledger, at `timing`, and a
    /// use found there refuses (`PLAN_TOKEN_USED`, `APPROVAL_USED`), on every replica that
    /// shares the ledger.
    /// @param arguments_fp `arguments_fingerprint` of the call's arguments without `plan_token`
    /// @param timing when the token's use is recorded (a ledger that fails refuses with
    ///        `SOURCE_UNAVAILABLE`, nothing done)
    boost::asio::awaitable<approval_outcome> approve(mcp::call_context& ctx, const action_plan& plan,
                                                     const std::optional<std::string>& token,
                                                     const std::string& arguments_fp,
                                                     plan_use_timing timing = plan_use_timing::before_action) const;

    /// The same for a JSON tool: the token is the `plan_token` member of `arguments` (a
    /// non-string token is a tampered one), the fingerprint is taken over the others.
    /// @param max_depth nesting bound for the canonical form (the tool's argument budget)
    boost::asio::awaitable<approval_outcome> approve(mcp::call_context& ctx, const action_plan& plan,
                                                     const boost::json::object& arguments, std::size_t max_depth = 64,
                                                     plan_use_timing timing = plan_use_timing::before_action) const;

    /// Run an approved action's writes in one transaction of `db` on `worker` (never on the
    /// I/O thread), with the use of its plan token (`approved.use`, if any) recorded in the same
    /// transaction when the ledger's database is `db`: a crash before the commit leaves both
    /// undone, a commit both done. With a ledger elsewhere the use is recorded first.
    /// @param approved an outcome of `approve(..., plan_use_timing::with_action)` that approved
    /// @param work the action's writes; a failure rolls the transaction back
    /// @return nothing when committed, else the refusal (one issue): `PLAN_TOKEN_USED`,
    ///         `APPROVAL_USED`, `ACTION_NOT_APPROVED` (ledger full), `SOURCE_UNAVAILABLE` (the
    ///         database failed; nothing was done)
    boost::asio::awaitable<boost::system::result<void, issue_list>> run_approved(
        const approval_outcome& approved, std::shared_ptr<store::sql_database> db, offload::worker& worker,
        ledger_work work) const;

    /// The JSON Schema of the `plan_token` argument: a string of at most 4,096 characters.
    static boost::json::object token_schema();
    /// Add the optional `plan_token` string property to an object input schema.
    static void declare_token(boost::json::object& input_schema);
    /// The input schema of an action whose only argument of its own is `plan_token`: an object
    /// that refuses unknown members (a gated action adds `ids` and `snapshot_token`).
    static boost::json::object token_only_schema();

    const approval_options& options() const noexcept { return opts_; }

private:
    /// @param use set to the token's use when it is accepted
    std::optional<issue> check_plan_token(const mcp::call_context& ctx, const std::optional<std::string>& token,
                                          const std::string& arguments_fp, const action_plan& plan,
                                          plan_use& use) const;
    /// Why a use the ledger did not accept (`used`, `full`) or could not record refuses.
    static issue ledger_refusal(const boost::system::result<plan_verdict, store::db_error>& verdict, bool by_answer);
    std::chrono::system_clock::time_point now() const;

    std::string tool_;
    approval_options opts_;
};

}  // namespace candor::validation
