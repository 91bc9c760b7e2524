// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames here (Asio's frame allocator
// pairs its own operator new and delete; see validation/validated_tool.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <candor/validation/approval_gate.hpp>

#include <candor/envelope/codes.hpp>
#include <candor/evidence/token.hpp>

namespace candor::validation {

namespace vc = envelope::validation_codes;

namespace {

// The issues of this file are all external, about the call as a whole.
issue make_issue(std::string_view code, std::string message, bool repairable, boost::json::object details = {}) {
    return candor::make_issue(layer::external, code, "", std::move(message), repairable, std::move(details));
}

issue approval_refusal(const approval_decision& d) {
    using choice = approval_decision::choice;
    switch (d.what) {
        case choice::declined:
            return make_issue(vc::action_declined, "The user declined the action. Nothing was done.", false);
        case choice::cancelled:
            return make_issue(vc::action_cancelled, "The user cancelled the action. Nothing was done.", false);
        default:
            return make_issue(
                vc::action_not_approved,
                "No usable approval (" + (d.why.empty() ? std::string("no answer") : d.why) + "). Nothing was done.",
                false);
    }
}

}  // namespace

approval_gate::approval_gate(std::string tool, approval_options opts) : tool_(std::move(tool)), opts_(std::move(opts)) {
    if (!opts_.approver) opts_.approver = std::make_shared<elicitation_approver>();
    if (!opts_.plan_ledger) opts_.plan_ledger = std::make_shared<plan_ledger>();
    if (!opts_.plan_keys)
        opts_.plan_keys =
            std::make_shared<const evidence::key_ring>(evidence::key_ring::ephemeral([](std::string_view) {}));
}

std::chrono::system_clock::time_point approval_gate::now() const {
    return opts_.wall_clock ? opts_.wall_clock() : std::chrono::system_clock::now();
}

void approval_gate::declare_token(boost::json::object& input_schema) {
    auto& props = input_schema["properties"];
    if (!props.is_object()) props = boost::json::object{};
    props.as_object()[plan_token_argument] = boost::json::object{
        {"type", "string"},
        {"maxLength", 4096},
        {"description", "The plan_token of an earlier answer to the same call, once the user approved that plan."}};
}

boost::asio::awaitable<approval_outcome> approval_gate::approve(mcp::call_context& ctx, const action_plan& plan,
                                                                const std::optional<std::string>& token,
                                                                const std::string& arguments_fp) const {
    approval_outcome out;
    if (opts_.approver->available(ctx)) {
        // Named, not a temporary in the co_await expression: GCC 12 destroys such temporaries
        // too early in coroutines.
        const approval_request request{tool_, plan};
        out.decision = co_await opts_.approver->ask(request, ctx);
        using choice = approval_decision::choice;
        if (out.decision.what != choice::proceed && out.decision.what != choice::narrow)
            out.refusal.push_back(approval_refusal(out.decision));
        co_return out;
    }
    if (auto refused = check_plan_token(ctx, token, arguments_fp, plan)) {
        out.refusal.push_back(std::move(*refused));
        co_return out;
    }
    out.decision.what = approval_decision::choice::proceed;
    co_return out;
}

boost::asio::awaitable<approval_outcome> approval_gate::approve(mcp::call_context& ctx, const action_plan& plan,
                                                                const boost::json::object& arguments,
                                                                std::size_t max_depth) const {
    std::optional<std::string> token;
    if (const auto* t = arguments.if_contains(plan_token_argument))
        token = t->is_string() ? std::string(t->get_string()) : std::string();
    const auto fp = arguments_fingerprint(
        canonical_arguments(boost::json::value(arguments), nullptr, plan_token_argument, max_depth));
    co_return co_await approve(ctx, plan, token, fp);
}

std::optional<issue> approval_gate::check_plan_token(const mcp::call_context& ctx,
                                                     const std::optional<std::string>& token,
                                                     const std::string& arguments_fp, const action_plan& plan) const {
    const auto principal = evidence::principal_fingerprint(ctx.caller().id);
    const auto targets = targets_fingerprint(plan.targets);
    const auto at = now();
    if (!token) {
        plan_claims claims{tool_, principal, arguments_fp, targets, at + opts_.plan_ttl};
        return make_issue(vc::plan_token_required,
                          "Nothing was done: this action needs the user's approval. Show the plan to the user; if "
                          "they approve, call again with the same arguments and this plan_token.",
                          true,
                          boost::json::object{{"plan", plan.to_json()},
                                              {"plan_token", seal_plan_token(*opts_.plan_keys, claims)},
                                              {"expires_in_s", opts_.plan_ttl.count()}});
    }
    auto claims = open_plan_token(*opts_.plan_keys, *token);
    if (!claims)
        return make_issue(vc::plan_token_invalid,
                          "The plan_token is malformed or was altered. Nothing was done; call without plan_token to "
                          "get a new plan and ask the user again.",
                          false);
    if (claims->expiry <= at)
        return make_issue(vc::plan_token_expired,
                          "The plan_token has expired. Nothing was done; call without plan_token to get a new plan "
                          "and ask the user again.",
                          false);
    std::string_view mismatch;
    if (claims->tool != tool_) mismatch = "tool";
    else if (claims->principal != principal) mismatch = "caller";
    else if (claims->targets != targets) mismatch = "targets";
    else if (claims->arguments != arguments_fp) mismatch = "arguments";
    if (!mismatch.empty())
        return make_issue(vc::plan_token_mismatch,
                          "The plan_token was approved for other " + std::string(mismatch) +
                              ". Nothing was done; a plan is approved only for its exact targets and arguments.",
                          false, boost::json::object{{"mismatch", mismatch}});
    switch (opts_.plan_ledger->consume(claims->nonce, claims->expiry, at)) {
        case plan_ledger::verdict::fresh: return std::nullopt;
        case plan_ledger::verdict::used:
            return make_issue(
                vc::plan_token_used,
                "This plan_token was already executed; an approval runs its action once. Nothing was done; "
                "call without plan_token for a new plan.",
                false);
        case plan_ledger::verdict::full: break;
    }
    return make_issue(vc::action_not_approved,
                      "Too many approved plans are pending on this server; nothing was done. Try again later.", false);
}

}  // namespace candor::validation
