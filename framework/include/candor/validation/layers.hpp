// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Layers: what a typed tool checks before it acts, passed to `add_tool` as values.
///
/// @code
/// namespace cv = candor::validation;
/// cv::add_tool(srv, tool_info("withdraw_books", "…").with_action(action_class::irreversible_write),
///              [&](withdraw_args a, const cv::verdict& v, call_context& ctx) -> awaitable<envelope> { … },
///              cv::invariant<withdraw_args>{[](const withdraw_args& a) { return issue_list{}; }},
///              evidence::evidence_requirement{.resource = "search_books", .keys = keys, .store = store},
///              cv::approval<withdraw_args>{.plan = …}).value();
/// @endcode
///
/// The layers run in order, each only when the one before it found nothing, and all issues of a
/// layer are reported together:
/// 1. structure — intake and budget (framework), then the contract (schema + typed conversion);
/// 2. business — `invariant`s across fields, pure, on the typed arguments;
/// 3. external — `external_check`s against current sources of truth, each with its own deadline;
///    a source that fails or misses it is `SOURCE_UNAVAILABLE`, never a pass. A check may
///    substitute a value the backend knows (a current price): applied to the arguments once the
///    whole layer passed, and reported as a `VALUE_NORMALIZED` warning with the old and new value;
/// 4. evidence — with an `evidence::evidence_requirement`, the arguments gain `ids` and
///    `snapshot_token`, and the tool runs only on ids a complete walk delivered (evidence/gate.hpp;
///    refusals `EVIDENCE_*`, not counted as repair attempts);
/// 5. approval — an `irreversible_write` (or any tool given an `approval` layer) runs only once a
///    human approved: elicitation when the client can be asked, else the two-step plan token
///    (`PLAN_TOKEN_REQUIRED`, then a second call with `plan_token`).
///
/// Failed attempts in layers 1–3 are counted per caller (`validation_options::repairs`); after
/// `max_repairs` the answer is `REPAIR_LIMIT_EXCEEDED`. Then, by action class: a `read_only`
/// tool runs on unavailable sources with a partial result (`SOURCE_UNAVAILABLE` reason); a
/// `reversible_write` with `allow_unverified_draft` runs as an unverified draft
/// (`UNVERIFIED_DRAFT`), otherwise it is refused; an `irreversible_write` runs only when every
/// layer passed with no issue.
///
/// The tool is a callable taking `(Args)`, `(Args, call_context&)` or `(Args, const verdict&,
/// call_context&)` and returning `envelope::envelope` or `awaitable<envelope::envelope>`; the
/// verdict says what the layers found (substitutions, unavailable sources, the evidence and the
/// ids to act on, the approval). A tool without layers is `mcp::add_tool`.

#include <candor/contract/contract.hpp>
#include <candor/envelope/codes.hpp>
#include <candor/evidence/gate.hpp>
#include <candor/mcp/detail/within.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/mcp/typed_tool.hpp>
#include <candor/validation/approval.hpp>
#include <candor/validation/approval_gate.hpp>
#include <candor/validation/pipeline.hpp>
#include <candor/validation/plan_token.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <concepts>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// Layer 2: a business invariant across fields — pure, on the typed arguments. Its issues get
/// layer `business`. (A callable `issue_list(const Args&)` passed as a layer is one too.)
template <class Args>
struct invariant {
    std::function<issue_list(const Args&)> rule{};
};

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

/// Layer 3: an external check — a named source, its own deadline, and the asynchronous check.
/// The check must honour cancellation (every Asio operation does): at the deadline it is
/// cancelled and the source is reported unavailable. An exception from it counts as unavailable
/// too.
template <class Args>
struct external_check {
    std::string source{};
    std::chrono::milliseconds deadline{2000};
    std::function<boost::asio::awaitable<check_result<Args>>(const Args&, mcp::call_context&)> run{};
};

/// Layer 5: approval before the tool runs: what is approved, when, and how it is asked and
/// remembered. Without this layer an `irreversible_write` is approved all the same (fail
/// closed), with the default plan and options.
template <class Args>
struct approval {
    /// What an approved call would do: a sentence and the target ids. Default: the tool's name,
    /// and with an evidence layer the ids to act on.
    std::function<action_plan(const Args&, const verdict&)> plan{};
    /// Narrow the arguments to `ids`, a non-empty subset of the plan's targets; false when the
    /// tool cannot act on a subset (the call is then refused, nothing done). Default: with an
    /// evidence layer the verdict's `targets` become `ids`; without one, narrowing is refused.
    std::function<bool(Args&, const std::vector<std::string>&)> narrow{};
    /// When the approval's use is recorded: before the tool runs, or by the tool with its own
    /// writes (`with_action`: the tool must call `verdict::commit`).
    plan_use_timing use = plan_use_timing::before_action;
    /// When approval is asked (`never` lets an irreversible write through: the approval happens
    /// elsewhere).
    approval_policy when = approval_policy::always;
    /// The approver, the keys and lifetime of plan tokens, the ledger of executed ones, the wall
    /// clock (defaults: elicitation, an ephemeral key ring, a ledger in memory; a server with
    /// several replicas or restarts configures keys and a `state::sql_plan_ledger`).
    approval_options options{};
};

namespace detail {

template <class>
inline constexpr bool not_a_layer = false;

/// The layers of one tool, gathered from `add_tool`'s arguments.
template <class Args>
struct layer_set {
    validation_options options{};
    std::vector<std::function<issue_list(const Args&)>> invariants{};
    std::vector<external_check<Args>> checks{};
    std::optional<evidence::evidence_requirement> evidence{};
    std::optional<approval<Args>> approve{};

    void add(invariant<Args> l) { invariants.push_back(std::move(l.rule)); }
    void add(external_check<Args> l) { checks.push_back(std::move(l)); }
    void add(validation_options o) { options = std::move(o); }
    void add(evidence::evidence_requirement r) {
        if (evidence) throw std::invalid_argument("add_tool: two evidence layers");
        if (!r.keys || !r.store) throw std::invalid_argument("add_tool: an evidence layer needs keys and a store");
        evidence = std::move(r);
    }
    void add(approval<Args> a) {
        if (approve) throw std::invalid_argument("add_tool: two approval layers");
        approve = std::move(a);
    }
    template <class L>
    void add(L l) {
        if constexpr (std::is_invocable_r_v<issue_list, L&, const Args&>) {
            invariants.emplace_back(std::move(l));
        } else {
            static_assert(not_a_layer<L>,
                          "add_tool: a layer is an invariant<Args> (or a callable issue_list(const Args&)), an "
                          "external_check<Args>, an evidence::evidence_requirement, an approval<Args> or "
                          "validation_options");
        }
    }
};

/// A typed tool with its layers (see the file's comment): the one route to a validated, an
/// evidence-gated or an approved action.
template <class Args, class F>
class layered_tool final : public mcp::tool_handler {
    using sig = mcp::detail::tool_signature_of<F>;
    static constexpr bool takes_verdict = !std::is_void_v<typename sig::verdict>;
    static_assert(!takes_verdict || std::same_as<typename sig::verdict, verdict>,
                  "add_tool: a tool's second parameter of three is const candor::validation::verdict&");

public:
    layered_tool(mcp::tool_info info, F fn, layer_set<Args> layers)
        : info_(std::move(info)),
          fn_(std::move(fn)),
          layers_(std::move(layers)),
          pipeline_(info_, layers_.options, layers_.approve ? layers_.approve->when : approval_policy::irreversible,
                    layers_.approve ? layers_.approve->options : approval_options{}),
          contract_(mcp::detail::contract_version_of(info_), contract_options_for(info_, pipeline_, layers_)) {
        mcp::detail::declare_contract(info_, contract_.schema(), contract_.version());
        if constexpr (!takes_verdict)
            if (layers_.approve && layers_.approve->use == plan_use_timing::with_action)
                throw std::invalid_argument("add_tool: '" + info_.name +
                                            "' records its approval's use with its writes (with_action), so it "
                                            "must take the verdict and call verdict::commit");
    }

    const mcp::tool_info& info() const noexcept override { return info_; }

    /// Structure and business layers, offline (no external checks, evidence or approval).
    issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const override {
        auto args = contract_.check_within_budget(arguments, doc);
        if (!args) return std::move(args.error());
        return business(*args);
    }

    boost::asio::awaitable<mcp::tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                     mcp::call_context& ctx) override {
        auto t = pipeline_.begin(ctx);
        // The extra arguments (`plan_token`, `ids`, `snapshot_token`) are declared by the
        // contract and passed over by its conversion; they are read from `arguments` below.
        auto parsed = contract_.check_within_budget(arguments, &doc);
        if (!parsed) co_return co_await pipeline_.refuse(t, std::move(parsed.error()));
        Args args = std::move(*parsed);

        if (auto issues = business(args); !issues.empty()) co_return co_await pipeline_.refuse(t, std::move(issues));

        verdict result;
        issue_list external;
        std::vector<correction<Args>> corrections;
        for (const auto& check : layers_.checks) {
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
                external.push_back(pipeline::source_unavailable(check.source, outcome.timed_out));
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

        const auto& members = arguments.get_object();
        if (layers_.evidence) {
            std::optional<std::string> token;
            if (const auto* given = members.if_contains("snapshot_token"); given && given->is_string())
                token.emplace(given->get_string());
            std::vector<std::string> ids;
            if (const auto* given = members.if_contains("ids"); given && given->is_array())
                for (const auto& id : given->get_array())
                    if (id.is_string()) ids.emplace_back(id.get_string());
            auto verified =
                co_await evidence::verify(*layers_.evidence, token ? &*token : nullptr, ids, ctx.caller().id);
            if (!verified) co_return pipeline_.stop(t, std::move(verified.error()));
            result.targets = verified->ids;
            result.evidence = std::move(*verified);
        }

        if (pipeline_.approval_applies()) {
            action_plan planned = plan(args, result);
            if (result.evidence) planned.evidence = {.declared = true, .complete = result.evidence->claims.complete};
            const auto fp = arguments_fingerprint(
                canonical_arguments(arguments, &doc, plan_token_argument, info_.budget.max_depth + 1));
            std::optional<std::string> token;
            if (const auto* given = members.if_contains(plan_token_argument)) token.emplace(given->get_string());
            const auto timing = layers_.approve ? layers_.approve->use : plan_use_timing::before_action;
            if (auto refused = co_await pipeline_.approve(t, ctx, planned, token, fp, timing, result))
                co_return std::move(*refused);
            if (result.approval.decision.what == approval_decision::choice::narrow) {
                if (!narrow(args, result)) co_return pipeline_.cannot_narrow(t);
                result.narrowed_to = result.approval.decision.ids;
            }
        }

        auto e = co_await run(args, result, ctx);
        co_return pipeline_.finish(t, std::move(e), result);
    }

private:
    boost::asio::awaitable<envelope::envelope> run(Args& args, const verdict& v, mcp::call_context& ctx) {
        using R = typename sig::result;
        constexpr bool coroutine = std::same_as<R, boost::asio::awaitable<envelope::envelope>>;
        static_assert(coroutine || std::same_as<R, envelope::envelope>,
                      "add_tool: the tool must return candor::envelope::envelope, or "
                      "boost::asio::awaitable<candor::envelope::envelope> when it is a coroutine");
        if constexpr (takes_verdict) {
            if constexpr (coroutine) co_return co_await fn_(std::move(args), v, ctx);
            else co_return fn_(std::move(args), v, ctx);
        } else {
            co_return co_await mcp::detail::run_tool<sig>(fn_, args, ctx);
        }
    }

    issue_list business(const Args& args) const {
        issue_list out;
        for (const auto& rule : layers_.invariants) {
            for (auto& i : rule(args)) {
                i.where = layer::business;
                out.push_back(std::move(i));
            }
        }
        return out;
    }

    action_plan plan(const Args& args, const verdict& v) const {
        if (layers_.approve && layers_.approve->plan) return layers_.approve->plan(args, v);
        action_plan p;
        p.summary = info_.name;
        p.targets = v.targets;
        return p;
    }

    bool narrow(Args& args, verdict& v) const {
        const auto& ids = v.approval.decision.ids;
        if (layers_.approve && layers_.approve->narrow) return layers_.approve->narrow(args, ids);
        if (!v.evidence) return false;
        v.targets = ids;
        return true;
    }

    // The contract's options: the tool's budget, formats asserted, and the arguments beside the
    // typed ones — `plan_token` when approval applies, `ids` and `snapshot_token` with evidence.
    static contract::contract_options contract_options_for(const mcp::tool_info& info, const pipeline& p,
                                                           const layer_set<Args>& l) {
        contract::contract_options o{.budget = info.budget, .format_assertion = true};
        if (p.approval_applies()) o.extra_arguments[plan_token_argument] = approval_gate::token_schema();
        if (l.evidence) {
            for (auto& kv : evidence::gate_arguments(*l.evidence)) o.extra_arguments[kv.key()] = std::move(kv.value());
            o.extra_required.emplace_back("ids");
        }
        return o;
    }

    mcp::tool_info info_;
    F fn_;
    layer_set<Args> layers_;
    pipeline pipeline_;
    contract::contract<Args> contract_;
};

}  // namespace detail

/// A typed tool with layers (see the file's comment), as a handler to register.
/// @throws std::invalid_argument when a layer is malformed (an evidence layer without keys or
///         store, two evidence or approval layers, an approval whose use is recorded with the
///         action by a function that does not take the verdict)
template <class F, class... Layers>
std::shared_ptr<mcp::tool_handler> make_tool(mcp::tool_info info, F&& fn, Layers&&... layers) {
    using fn_type = std::decay_t<F>;
    using args_type = typename mcp::detail::tool_signature_of<fn_type>::args;
    detail::layer_set<args_type> set;
    (set.add(std::forward<Layers>(layers)), ...);
    return std::make_shared<detail::layered_tool<args_type, fn_type>>(std::move(info), fn_type(std::forward<F>(fn)),
                                                                      std::move(set));
}

/// Register a typed tool with layers (see the file's comment). With no layer it is
/// `mcp::add_tool`.
/// @return nothing, or why the server refused the tool (see `server::add_tool`)
/// @throws std::invalid_argument as `make_tool` does
template <class F, class Layer, class... Layers>
boost::system::result<void, mcp::registration_error> add_tool(mcp::server& srv, mcp::tool_info info, F&& fn,
                                                              Layer&& layer, Layers&&... layers) {
    return srv.add_tool(
        make_tool(std::move(info), std::forward<F>(fn), std::forward<Layer>(layer), std::forward<Layers>(layers)...));
}

}  // namespace candor::validation

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
