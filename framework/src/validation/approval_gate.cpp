// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames here (Asio's frame allocator
// pairs its own operator new and delete; see validation/layers.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <candor/validation/approval_gate.hpp>

#include <candor/envelope/codes.hpp>
#include <candor/evidence/token.hpp>

#include <algorithm>

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
    if (!opts_.plan_ledger) opts_.plan_ledger = std::make_shared<memory_plan_ledger>();
    if (!opts_.plan_keys)
        opts_.plan_keys = std::make_shared<const seal::key_ring>(seal::key_ring::ephemeral([](std::string_view) {}));
}

std::chrono::system_clock::time_point approval_gate::now() const {
    return opts_.wall_clock ? opts_.wall_clock() : std::chrono::system_clock::now();
}

void approval_gate::declare_token(boost::json::object& input_schema) {
    auto& props = input_schema["properties"];
    if (!props.is_object()) props = boost::json::object{};
    props.as_object()[plan_token_argument] = token_schema();
}

boost::json::object approval_gate::token_schema() {
    return boost::json::object{
        {"type", "string"},
        {"maxLength", 4096},
        {"description", "The plan_token of an earlier answer to the same call, once the user approved that plan."}};
}

boost::json::object approval_gate::token_only_schema() {
    boost::json::object schema{{"type", "object"}, {"additionalProperties", false}};
    declare_token(schema);
    return schema;
}

boost::asio::awaitable<approval_outcome> approval_gate::approve(mcp::call_context& ctx, const action_plan& plan,
                                                                const std::optional<std::string>& token,
                                                                const std::string& arguments_fp,
                                                                plan_use_timing timing) const {
    approval_outcome out;
    plan_use use;
    bool by_answer = false;
    if (opts_.approver->available(ctx)) {
        // Named, not a temporary in the co_await expression: GCC 12 destroys such temporaries
        // too early in coroutines.
        const approval_request request{tool_, plan};
        out.decision = co_await opts_.approver->ask(request, ctx);
        using choice = approval_decision::choice;
        if (out.decision.what != choice::proceed && out.decision.what != choice::narrow) {
            out.refusal.push_back(approval_refusal(out.decision));
            co_return out;
        }
        // The answer is used once, like a plan token: a retry that presents it again (a
        // replayed requestState, on this replica or another) finds its use in the ledger. It is
        // kept a minute past the last moment it could be presented (replicas' clocks differ).
        by_answer = true;
        const auto& d = out.decision;
        use.nonce = "answer:" + (d.answer_id.empty() ? seal::random_hex(16) : d.answer_id);
        use.expiry = std::max(d.replayable_until, now()) + std::chrono::minutes(1);
    } else if (auto refused = check_plan_token(ctx, token, arguments_fp, plan, use)) {
        out.refusal.push_back(std::move(*refused));
        co_return out;
    } else {
        out.decision.what = approval_decision::choice::proceed;
    }
    if (timing == plan_use_timing::before_action) {
        auto verdict = co_await opts_.plan_ledger->consume(use, now());
        if (!verdict || *verdict != plan_verdict::fresh) {
            out.refusal.push_back(ledger_refusal(verdict, by_answer));
            co_return out;
        }
    } else {
        out.use = std::move(use);
        out.use_by_answer = by_answer;
    }
    co_return out;
}

boost::asio::awaitable<approval_outcome> approval_gate::approve(mcp::call_context& ctx, const action_plan& plan,
                                                                const boost::json::object& arguments,
                                                                std::size_t max_depth, plan_use_timing timing) const {
    std::optional<std::string> token;
    if (const auto* t = arguments.if_contains(plan_token_argument))
        token = t->is_string() ? std::string(t->get_string()) : std::string();
    const auto fp = arguments_fingerprint(
        canonical_arguments(boost::json::value(arguments), nullptr, plan_token_argument, max_depth));
    co_return co_await approve(ctx, plan, token, fp, timing);
}

std::optional<issue> approval_gate::check_plan_token(const mcp::call_context& ctx,
                                                     const std::optional<std::string>& token,
                                                     const std::string& arguments_fp, const action_plan& plan,
                                                     plan_use& use) const {
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
    use = plan_use{claims->nonce, claims->expiry};
    return std::nullopt;
}

issue approval_gate::ledger_refusal(const boost::system::result<plan_verdict, store::db_error>& verdict,
                                    bool by_answer) {
    if (!verdict)
        return make_issue(vc::source_unavailable,
                          by_answer ? "The database failed; nothing was done. Try again later."
                                    : "The database failed; nothing was done and the plan_token was not used. Try "
                                      "again later.",
                          false);
    if (*verdict == plan_verdict::used && by_answer)
        return make_issue(vc::approval_used,
                          "This approval was already used: the same answer was presented again (a replayed retry), "
                          "and an approval runs its action once. Nothing was done; call again without requestState "
                          "and inputResponses to ask the user again.",
                          false);
    if (*verdict == plan_verdict::used)
        return make_issue(vc::plan_token_used,
                          "This plan_token was already executed; an approval runs its action once. Nothing was done; "
                          "call without plan_token for a new plan.",
                          false);
    return make_issue(vc::action_not_approved,
                      "Too many approved plans are pending on this server; nothing was done. Try again later.", false);
}

boost::asio::awaitable<boost::system::result<void, issue_list>> approval_gate::run_approved(
    const approval_outcome& approved, std::shared_ptr<store::sql_database> db, offload::worker& worker,
    ledger_work work) const {
    // One result object, returned from one place: GCC 12 at -O1 (the sanitizer build) takes a
    // coroutine's `co_return result{}` temporaries for uninitialized vectors.
    boost::system::result<void, issue_list> out;
    if (approved.use && opts_.plan_ledger->database() == db) {
        // The use and the writes commit together, or neither does.
        auto verdict = co_await opts_.plan_ledger->consume_with(*approved.use, now(), std::move(work));
        if (!verdict || *verdict != plan_verdict::fresh)
            out = issue_list{ledger_refusal(verdict, approved.use_by_answer)};
        co_return out;
    }
    if (approved.use) {
        // A ledger elsewhere cannot share the transaction: the use is recorded first.
        auto verdict = co_await opts_.plan_ledger->consume(*approved.use, now());
        if (!verdict || *verdict != plan_verdict::fresh) {
            out = issue_list{ledger_refusal(verdict, approved.use_by_answer)};
            co_return out;
        }
    }
    out = co_await detail::run_writes(std::move(db), worker, std::move(work), approved.use.has_value());
    co_return out;
}

boost::asio::awaitable<boost::system::result<void, issue_list>> detail::run_writes(
    std::shared_ptr<store::sql_database> db, offload::worker& worker, ledger_work work, bool approval_used) {
    boost::system::result<void, issue_list> out;
    auto done = co_await worker.run([&] { return db->transaction(work); });
    if (!done)
        out = issue_list{make_issue(vc::source_unavailable,
                                    approval_used ? "The database failed while acting; nothing was done, but the "
                                                    "approval is used: ask again (call without plan_token for a "
                                                    "new plan)."
                                                  : "The database failed while acting; nothing was done. Try "
                                                    "again later.",
                                    false)};
    co_return out;
}

}  // namespace candor::validation
