// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The options and the verdict of a tool with validation layers (layers.hpp), and the
/// type-independent half of its pipeline: repair budget, metrics, fail-closed decisions,
/// approval and plan tokens, and the finishing of envelopes (`detail::pipeline`, which tool
/// authors do not use directly).

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/gate.hpp>
#include <candor/json/document.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/seal/key_ring.hpp>
#include <candor/validation/approval.hpp>
#include <candor/validation/approval_gate.hpp>
#include <candor/validation/metrics.hpp>
#include <candor/validation/plan_token.hpp>
#include <candor/validation/repair_budget.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace candor::validation {

/// When a human must approve before the action runs. Approval is asked only at these policy
/// boundaries, never for routine continuation (reads, pages, drafts).
enum class approval_policy {
    never,         ///< no approval (the tool is its own boundary, or approval happens elsewhere)
    irreversible,  ///< irreversible_write tools (without an approval layer, the rule)
    always,        ///< every call of this tool (an approval layer's default)
};

struct validation_options {
    /// Shared between tools if you like (keys include the tool name); default: one per tool.
    std::shared_ptr<repair_budget> repairs{};
    /// Default: `metrics::shared()`.
    std::shared_ptr<validation::metrics> metrics{};
    /// reversible_write only: run the handler with an unverified draft when the only issues
    /// are unavailable sources (the envelope says so: `UNVERIFIED_DRAFT`, `SOURCE_UNAVAILABLE`).
    bool allow_unverified_draft = false;
};

/// A value the backend replaced with the truth it knows (`VALUE_NORMALIZED`).
struct substitution {
    std::string path{};  ///< JSON Pointer into the arguments
    boost::json::value old_value{};
    boost::json::value new_value{};
    std::string message{};
};

/// What the layers found, handed to the tool besides the arguments.
struct verdict {
    /// `VALUE_NORMALIZED` warnings for the substitutions already applied to the arguments.
    std::vector<envelope::warning> warnings{};
    /// Sources that could not confirm the arguments (only for read_only tools and
    /// unverified drafts; empty otherwise). The framework marks the envelope accordingly.
    std::vector<std::string> unavailable_sources{};
    /// True when a human approved (elicitation or plan token).
    bool approved = false;
    /// The ids the user narrowed the action to (empty: as planned).
    std::vector<std::string> narrowed_to{};
    /// With an evidence layer: the evidence accepted (its claims, and the ids it covers).
    std::optional<evidence::verified_evidence> evidence{};
    /// With an evidence layer: the ids to act on — the evidence's, or the subset the user
    /// narrowed the action to.
    std::vector<std::string> targets{};
    /// The approval, when its use is recorded with the action's writes
    /// (`plan_use_timing::with_action`): `commit` records it.
    approval_outcome approval{};
    /// The gate that approved (null without approval).
    const approval_gate* gate = nullptr;

    bool unverified() const noexcept { return !unavailable_sources.empty(); }

    /// Run the action's writes in one transaction of `db` on `worker` (never on the I/O
    /// thread), with the approval's use when it is recorded with the action: a crash before the
    /// commit leaves both undone, a commit both done (`approval_gate::run_approved`).
    /// @return nothing when committed, else the refusal (one issue; nothing was done)
    boost::asio::awaitable<boost::system::result<void, issue_list>> commit(std::shared_ptr<store::sql_database> db,
                                                                           offload::worker& worker,
                                                                           ledger_work work) const;
};

/// What `check_evidence` found.
struct evidence_result {
    evidence_state state{};
    /// Refusals (e.g. the evidence module's `verify` issues); any one stops an irreversible write.
    issue_list issues{};
};

namespace detail {

/// One call's bookkeeping.
struct call_tracker {
    std::string key;
    std::string client;
    call_observation observation;
    mcp::action_class action = mcp::action_class::read_only;
};

class pipeline {
public:
    /// @param when when approval applies
    /// @param approvals how it is asked and remembered (defaults filled in by the gate)
    pipeline(const mcp::tool_info& info, validation_options opts, approval_policy when, approval_options approvals);

    const validation_options& options() const noexcept { return opts_; }
    /// The approval gate, when approval applies (else null).
    const approval_gate* gate() const noexcept { return gate_ ? &*gate_ : nullptr; }
    bool approval_applies() const noexcept;

    call_tracker begin(const mcp::call_context& ctx) const;

    /// A validation layer refused: count the attempt, apply the repair budget, record.
    boost::asio::awaitable<envelope::envelope> refuse(call_tracker& t, issue_list issues) const;
    /// Refused after validation (evidence, approval, plan token): no repair attempt counted.
    envelope::envelope stop(call_tracker& t, issue_list issues) const;
    /// Every layer passed: the caller's failures are forgotten.
    boost::asio::awaitable<void> passed(call_tracker& t) const;
    /// How unavailable sources are handled: true when the handler may run on them.
    bool may_run_unverified() const noexcept;

    /// The approval step (`approval_gate::approve`); empty when approved, and then `v` holds
    /// the outcome (proceed or narrow, and the use still to record with `with_action`) and the
    /// gate. Only when `approval_applies()`.
    boost::asio::awaitable<std::optional<envelope::envelope>> approve(call_tracker& t, mcp::call_context& ctx,
                                                                      const action_plan& plan,
                                                                      const std::optional<std::string>& token,
                                                                      const std::string& arguments_fp,
                                                                      plan_use_timing timing, verdict& v) const;

    /// Mark the handler's envelope (unverified sources, normalized values) and record.
    envelope::envelope finish(call_tracker& t, envelope::envelope e, const verdict& v) const;

    /// The issue for a check that failed or missed its deadline.
    static issue source_unavailable(const std::string& source, bool timed_out);
    /// Turn applied substitutions into `VALUE_NORMALIZED` warnings on the verdict.
    void normalized(call_tracker& t, verdict& v, std::vector<substitution> applied) const;
    /// The user narrowed, but the tool cannot act on a subset.
    envelope::envelope cannot_narrow(call_tracker& t) const;

private:
    std::string tool_;
    mcp::action_class action_;
    validation_options opts_;
    approval_policy when_;
    std::optional<approval_gate> gate_;
    void record(call_tracker& t) const;
};

}  // namespace detail

}  // namespace candor::validation
