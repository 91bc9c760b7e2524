// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Validated tools: typed arguments checked by three layers, in order, before any side effect.
///
/// 1. structure — intake and budget (framework), then the contract (schema + typed conversion);
/// 2. business — invariants across fields, declared by the tool next to its domain code;
/// 3. external — asynchronous checks against current sources of truth, each with its own
///    deadline; a source that fails or misses it is `SOURCE_UNAVAILABLE`, never a pass.
///
/// A layer runs only when the one before it found nothing; all issues of a layer are reported
/// together. External checks may substitute a value the backend knows (a current price): the
/// substitution is applied to the arguments and reported as a `VALUE_NORMALIZED` warning with
/// the old and the new value. Failed attempts are counted per caller (`repair_budget`); after
/// `max_repairs` the answer is `REPAIR_LIMIT_EXCEEDED`. Then, by action class:
/// - read_only: unavailable sources make the result partial (`SOURCE_UNAVAILABLE` reason);
/// - reversible_write: with `allow_unverified_draft`, unavailable sources still let the
///   handler store a draft, flagged `UNVERIFIED_DRAFT`; otherwise refused;
/// - irreversible_write: runs only when every layer passed with no issue, the declared
///   evidence holds, and a human approved (elicitation, or the two-step plan token).
///
/// @code
/// struct archive : candor::validation::validated_tool<archive_args> {
///     archive() : validated_tool(tool_info("archive_notes", "…").with_action(irreversible_write)) {
///         add_invariant([](const archive_args& a) { return issue_list{}; });
///         add_external_check({"notes", 500ms, [this](const archive_args& a, call_context& ctx) { … }});
///     }
///     awaitable<envelope> execute(archive_args a, const verdict& v, call_context& ctx) override;
/// };
/// @endcode

#include <candor/contract/contract.hpp>
#include <candor/envelope/codes.hpp>
#include <candor/mcp/detail/within.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/mcp/typed_tool.hpp>
#include <candor/validation/approval.hpp>
#include <candor/validation/pipeline.hpp>
#include <candor/validation/plan_token.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// GCC 12 reports -Wmismatched-new-delete on the coroutine frame of `invoke` (Asio's frame
// allocator pairs its own operator new/delete; the warning is a known false positive of GCC's
// coroutine lowering, not a mismatch).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace candor::validation {

/// A substitution and how to apply it to the typed arguments.
template <class Args>
struct correction {
    substitution what{};
    std::function<void(Args&)> apply{};
};

/// What one external check found: issues (layer external is set by the framework) and
/// substitutions the backend makes itself.
template <class Args>
struct check_result {
    issue_list issues{};
    std::vector<correction<Args>> corrections{};

    /// Report that the backend replaces the value at `path` (a JSON Pointer) with the truth.
    check_result& normalize(std::string path, boost::json::value old_value, boost::json::value new_value,
                            std::string message, std::function<void(Args&)> apply) {
        corrections.push_back(
            {{std::move(path), std::move(old_value), std::move(new_value), std::move(message)}, std::move(apply)});
        return *this;
    }
};

/// One external check: a named source, its own deadline, and the asynchronous check. The
/// check must honour cancellation (every Asio operation does): at the deadline it is cancelled
/// and the source is reported unavailable. An exception from it counts as unavailable too.
template <class Args>
struct external_check {
    std::string source{};
    std::chrono::milliseconds deadline{2000};
    std::function<boost::asio::awaitable<check_result<Args>>(const Args&, mcp::call_context&)> run{};
};

template <class Args>
class validated_tool : public mcp::tool_handler {
public:
    /// @param info the declaration; its input schema is the contract's (plus `plan_token` when
    ///        approval applies); formats such as `date` are asserted
    explicit validated_tool(mcp::tool_info info, validation_options opts = {}, std::string contract_version = "1")
        : info_(std::move(info)),
          pipeline_(info_, std::move(opts)),
          contract_(contract_version, contract_options_for(info_, pipeline_)) {
        mcp::detail::declare_contract(info_, contract_.schema(), std::move(contract_version));
    }

    const mcp::tool_info& info() const noexcept final { return info_; }

    /// Structure and business layers, offline (no external checks, no approval).
    issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const final {
        auto args = contract_.check_within_budget(arguments, doc);
        if (!args) return std::move(args.error());
        return business(*args);
    }

    boost::asio::awaitable<mcp::tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                     mcp::call_context& ctx) final {
        auto t = pipeline_.begin(ctx);
        // The token is not an argument of the action: the contract declares it (a string) and
        // its conversion passes over it; the arguments' fingerprint leaves it out.
        auto parsed = contract_.check_within_budget(arguments, &doc);
        if (!parsed) co_return co_await pipeline_.refuse(t, std::move(parsed.error()));
        Args args = std::move(*parsed);

        if (auto issues = business(args); !issues.empty()) co_return co_await pipeline_.refuse(t, std::move(issues));

        verdict result;
        issue_list external;
        std::vector<correction<Args>> corrections;
        for (const auto& check : checks_) {
            const auto started = std::chrono::steady_clock::now();
            mcp::detail::timed<check_result<Args>> outcome;
            try {
                outcome = co_await mcp::detail::within(check.run(args, ctx), check.deadline);
            } catch (const std::exception&) {
                // check.run threw before it returned its coroutine: the source failed.
            }
            const auto latency =
                std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
            auto& found = outcome.value;
            t.observation.external_checks.push_back({latency, !found.has_value()});
            if (!found) {
                external.push_back(detail::pipeline::source_unavailable(check.source, outcome.timed_out));
                result.unavailable_sources.push_back(check.source);
                continue;
            }
            for (auto& i : found->issues) {
                i.where = layer::external;
                external.push_back(std::move(i));
            }
            for (auto& c : found->corrections) corrections.push_back(std::move(c));
        }
        const bool only_unavailable = external.size() == result.unavailable_sources.size();
        if (!external.empty() && !(only_unavailable && pipeline_.may_run_unverified()))
            co_return co_await pipeline_.refuse(t, std::move(external));

        // Substitutions change the arguments only once the whole layer has passed.
        std::vector<substitution> applied;
        for (auto& c : corrections) {
            if (c.apply) c.apply(args);
            applied.push_back(std::move(c.what));
        }
        pipeline_.normalized(t, result, std::move(applied));
        co_await pipeline_.passed(t);

        if (info_.action == mcp::action_class::irreversible_write || pipeline_.approval_applies()) {
            action_plan planned = plan(args);
            if (info_.action == mcp::action_class::irreversible_write) {
                auto ev = co_await check_evidence(args, ctx);
                planned.evidence = ev.state;
                if (!ev.issues.empty()) co_return pipeline_.stop(t, std::move(ev.issues));
            }
            if (pipeline_.approval_applies()) {
                const auto fp = arguments_fingerprint(
                    canonical_arguments(arguments, &doc, plan_token_argument, info_.budget.max_depth + 1));
                approval_decision decision;
                std::optional<std::string> token;
                if (const auto* given = arguments.get_object().if_contains(plan_token_argument))
                    token.emplace(given->get_string());
                if (auto refused = co_await pipeline_.approve(t, ctx, planned, token, fp, decision))
                    co_return std::move(*refused);
                if (decision.what == approval_decision::choice::narrow) {
                    if (!narrow(args, decision.ids)) co_return pipeline_.cannot_narrow(t);
                    result.narrowed_to = decision.ids;
                }
                result.approved = true;
            }
        }

        auto e = co_await execute(std::move(args), result, ctx);
        co_return pipeline_.finish(t, std::move(e), result);
    }

    /// The tool's work, on arguments that passed every layer (substitutions applied).
    virtual boost::asio::awaitable<envelope::envelope> execute(Args args, const verdict& v, mcp::call_context& ctx) = 0;

    /// What an approved call would do (irreversible tools): a sentence and the target ids.
    virtual action_plan plan(const Args& args) const {
        (void)args;
        action_plan p;
        p.summary = info_.name;
        return p;
    }

    /// Narrow the arguments to `ids` (a non-empty subset of the plan's targets). Return false
    /// when the tool cannot act on a subset (the call is then refused, nothing done).
    virtual bool narrow(Args& args, const std::vector<std::string>& ids) const {
        (void)args;
        (void)ids;
        return false;
    }

    /// The evidence an irreversible action rests on (e.g. `evidence::verify` on a snapshot
    /// token the arguments carry). Default: none declared.
    virtual boost::asio::awaitable<evidence_result> check_evidence(const Args& args, mcp::call_context& ctx) {
        (void)args;
        (void)ctx;
        co_return evidence_result{};
    }

    const contract::contract<Args>& argument_contract() const noexcept { return contract_; }
    const validation_options& options() const noexcept { return pipeline_.options(); }

protected:
    /// Declare a business invariant (pure, on the typed arguments). Call from the constructor.
    void add_invariant(std::function<issue_list(const Args&)> rule) { invariants_.push_back(std::move(rule)); }
    /// Declare an external check. Call from the constructor.
    void add_external_check(external_check<Args> check) { checks_.push_back(std::move(check)); }

private:
    issue_list business(const Args& args) const {
        issue_list out;
        for (const auto& rule : invariants_) {
            for (auto& i : rule(args)) {
                i.where = layer::business;
                out.push_back(std::move(i));
            }
        }
        return out;
    }

    // The contract's options: the tool's budget, formats asserted, and the plan token beside
    // the arguments when approval applies.
    static contract::contract_options contract_options_for(const mcp::tool_info& info, const detail::pipeline& p) {
        contract::contract_options o{.budget = info.budget, .format_assertion = true};
        if (p.approval_applies()) o.extra_arguments[plan_token_argument] = approval_gate::token_schema();
        return o;
    }

    mcp::tool_info info_;
    detail::pipeline pipeline_;
    contract::contract<Args> contract_;
    std::vector<std::function<issue_list(const Args&)>> invariants_;
    std::vector<external_check<Args>> checks_;
};

}  // namespace candor::validation

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
