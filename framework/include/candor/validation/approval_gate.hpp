// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The approval step on its own: ask the user through the approver (elicitation) when the
/// client can be asked, else the two-step plan flow (a plan and a sealed `plan_token`, then a
/// second call carrying it). `validated_tool` runs it for its irreversible writes; tools built
/// otherwise (an `evidence::gated_action`, a plain `json_tool`) call it themselves before they
/// act.

#include <candor/error/issue.hpp>
#include <candor/evidence/seal.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/validation/approval.hpp>
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
    std::shared_ptr<validation::approver> approver;
    /// Keys that seal plan tokens. Default: an ephemeral ring (tokens die with the process;
    /// harmless for tokens that live minutes, but configure a ring for several replicas).
    std::shared_ptr<const evidence::key_ring> plan_keys;
    std::chrono::seconds plan_ttl{600};
    /// Executed plan tokens (single use). Default: one per gate.
    std::shared_ptr<validation::plan_ledger> plan_ledger;
    /// Wall clock for plan expiry; defaults to `system_clock::now`.
    std::function<std::chrono::system_clock::time_point()> wall_clock;
};

/// What `approval_gate::approve` decided.
struct approval_outcome {
    /// Non-empty: do nothing and answer `envelope::failure(refusal)`. One issue: the plan
    /// waiting for approval (`PLAN_TOKEN_REQUIRED`, repairable, with `details.plan` and
    /// `details.plan_token`), or why the action is not approved (`ACTION_DECLINED`,
    /// `ACTION_CANCELLED`, `ACTION_NOT_APPROVED`, `PLAN_TOKEN_*`).
    issue_list refusal;
    /// When approved: `proceed`, or `narrow` with the ids (a non-empty subset of the plan's
    /// targets) to act on instead.
    approval_decision decision;

    bool approved() const noexcept { return refusal.empty(); }
};

class approval_gate {
public:
    /// @param tool the tool's name (bound into plan tokens)
    explicit approval_gate(std::string tool, approval_options opts = {});

    /// Ask the user when the approver is available for this call, else check `token` (absent:
    /// issue a plan token for `plan`).
    /// @param arguments_fp `arguments_fingerprint` of the call's arguments without `plan_token`
    boost::asio::awaitable<approval_outcome> approve(mcp::call_context& ctx, const action_plan& plan,
                                                     const std::optional<std::string>& token,
                                                     const std::string& arguments_fp) const;

    /// The same for a JSON tool: the token is the `plan_token` member of `arguments` (a
    /// non-string token is a tampered one), the fingerprint is taken over the others.
    /// @param max_depth nesting bound for the canonical form (the tool's argument budget)
    boost::asio::awaitable<approval_outcome> approve(mcp::call_context& ctx, const action_plan& plan,
                                                     const boost::json::object& arguments,
                                                     std::size_t max_depth = 64) const;

    /// Add the optional `plan_token` string property to an object input schema.
    static void declare_token(boost::json::object& input_schema);

    const approval_options& options() const noexcept { return opts_; }

private:
    std::optional<issue> check_plan_token(const mcp::call_context& ctx, const std::optional<std::string>& token,
                                          const std::string& arguments_fp, const action_plan& plan) const;
    std::chrono::system_clock::time_point now() const;

    std::string tool_;
    approval_options opts_;
};

}  // namespace candor::validation
