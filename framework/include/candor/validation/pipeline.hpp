// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The type-independent half of `validated_tool` (validated_tool.hpp): repair budget,
/// metrics, fail-closed decisions, approval and plan tokens, and the finishing of envelopes.
/// Tool authors do not use it directly.

#include <candor/envelope/envelope.hpp>
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
    irreversible,  ///< irreversible_write tools (the default)
    always,        ///< every call of this tool (e.g. restricted visibility)
};

struct validation_options {
    /// Shared between tools if you like (keys include the tool name); default: one per tool.
    std::shared_ptr<repair_budget> repairs{};
    /// Default: `metrics::shared()`.
    std::shared_ptr<validation::metrics> metrics{};
    /// reversible_write only: run the handler with an unverified draft when the only issues
    /// are unavailable sources (the envelope says so: `UNVERIFIED_DRAFT`, `SOURCE_UNAVAILABLE`).
    bool allow_unverified_draft = false;
    approval_policy approval = approval_policy::irreversible;
    /// How approval is asked for and remembered when `approval` applies: the approver, the
    /// keys and lifetime of plan tokens, the ledger of executed ones, the wall clock. After
    /// construction `options().approvals` holds the defaults the gate filled in.
    approval_options approvals{};
};

/// A value the backend replaced with the truth it knows (`VALUE_NORMALIZED`).
struct substitution {
    std::string path{};  ///< JSON Pointer into the arguments
    boost::json::value old_value{};
    boost::json::value new_value{};
    std::string message{};
};

/// What the pipeline hands to the tool's `execute` besides the arguments.
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

    bool unverified() const noexcept { return !unavailable_sources.empty(); }
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
    pipeline(const mcp::tool_info& info, validation_options opts);

    const validation_options& options() const noexcept { return opts_; }
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

    /// The approval step (`approval_gate::approve`); empty when approved, and then `decision`
    /// holds proceed or narrow. Only when `approval_applies()`.
    boost::asio::awaitable<std::optional<envelope::envelope>> approve(call_tracker& t, mcp::call_context& ctx,
                                                                      const action_plan& plan,
                                                                      const std::optional<std::string>& token,
                                                                      const std::string& arguments_fp,
                                                                      approval_decision& decision) const;

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
    std::optional<approval_gate> gate_;
    void record(call_tracker& t) const;
};

}  // namespace detail

}  // namespace candor::validation
