// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/validation/pipeline.hpp>

#include <candor/envelope/codes.hpp>

#include <algorithm>

namespace candor::validation::detail {

namespace vc = envelope::validation_codes;

namespace {

// The issues of this file are all external, about the call as a whole.
issue make_issue(std::string_view code, std::string message, bool repairable, boost::json::object details = {}) {
    return candor::make_issue(layer::external, code, "", std::move(message), repairable, std::move(details));
}

}  // namespace

pipeline::pipeline(const mcp::tool_info& info, validation_options opts, approval_policy when,
                   approval_options approvals)
    : tool_(info.name), action_(info.action), opts_(std::move(opts)), when_(when) {
    if (!opts_.repairs) opts_.repairs = std::make_shared<repair_budget>();
    if (!opts_.metrics) opts_.metrics = metrics::shared();
    if (approval_applies()) gate_.emplace(tool_, std::move(approvals));
}

bool pipeline::approval_applies() const noexcept {
    return when_ == approval_policy::always ||
           (when_ == approval_policy::irreversible && action_ == mcp::action_class::irreversible_write);
}

bool pipeline::may_run_unverified() const noexcept {
    return action_ == mcp::action_class::read_only ||
           (action_ == mcp::action_class::reversible_write && opts_.allow_unverified_draft);
}

call_tracker pipeline::begin(const mcp::call_context& ctx) const {
    call_tracker t;
    t.key = repair_budget::key(tool_, ctx.session().id, ctx.caller().id);
    t.client = ctx.session().client_name;
    t.action = action_;
    // Shared counts are read only when the call fails or passes validation (`refuse`, `passed`):
    // no round trip here.
    t.observation.first_pass = opts_.repairs->shared() || opts_.repairs->failures(t.key) == 0;
    t.observation.write = action_ != mcp::action_class::read_only;
    return t;
}

void pipeline::record(call_tracker& t) const { opts_.metrics->record(tool_, t.client, t.observation); }

boost::asio::awaitable<envelope::envelope> pipeline::refuse(call_tracker& t, issue_list issues) const {
    // An outage is not the caller's mistake: it does not use up a repair attempt.
    const bool outage_only =
        std::all_of(issues.begin(), issues.end(), [](const issue& i) { return i.code == vc::source_unavailable; });
    auto& budget = *opts_.repairs;
    const std::size_t failures = outage_only ? co_await budget.count_of(t.key) : co_await budget.count_failure(t.key);
    if (budget.shared()) t.observation.first_pass = failures == (outage_only ? 0 : 1);
    const bool exceeded = !outage_only && budget.exceeded(failures);
    const std::size_t remaining = exceeded ? 0 : budget.remaining_after(failures);
    for (auto& i : issues) {
        if (exceeded) i.repairable = false;
        i.details["repairs_remaining"] = remaining;
    }
    if (exceeded) {
        auto limit = make_issue(
            vc::repair_limit_exceeded,
            "These arguments failed validation again and the repair attempts for this tool are used up. Do not "
            "retry with guessed values: ask the user, or report the issues below.",
            false,
            boost::json::object{{"max_repairs", budget.options().max_repairs},
                                {"window_s", budget.options().window.count()},
                                {"repairs_remaining", 0}});
        limit.where = issues.front().where;
        issues.insert(issues.begin(), std::move(limit));
        t.observation.repair_limit_hit = true;
    }
    for (const auto& i : issues) t.observation.issues.emplace_back(i.code, i.where);
    t.observation.valid = false;
    t.observation.stopped_before_write = t.observation.write;
    record(t);
    auto refused = envelope::failure(std::move(issues));
    co_return refused;
}

envelope::envelope pipeline::stop(call_tracker& t, issue_list issues) const {
    for (const auto& i : issues) t.observation.issues.emplace_back(i.code, i.where);
    t.observation.stopped_before_write = t.observation.write;
    record(t);
    return envelope::failure(std::move(issues));
}

boost::asio::awaitable<void> pipeline::passed(call_tracker& t) const {
    const std::size_t had = co_await opts_.repairs->clear(t.key);
    if (opts_.repairs->shared()) t.observation.first_pass = had == 0;
    t.observation.valid = true;
}

issue pipeline::source_unavailable(const std::string& source, bool timed_out) {
    return make_issue(vc::source_unavailable,
                      "The source '" + source + "' " + (timed_out ? "did not answer before its deadline" : "failed") +
                          "; the arguments could not be checked against it. Try again later.",
                      false, boost::json::object{{"source", source}, {"cause", timed_out ? "deadline" : "failure"}});
}

void pipeline::normalized(call_tracker& t, verdict& v, std::vector<substitution> applied) const {
    for (auto& s : applied) {
        ++t.observation.fixed_by_backend;
        v.warnings.push_back(
            {std::string(envelope::warning_codes::value_normalized), std::move(s.message),
             boost::json::object{{"path", s.path}, {"old", std::move(s.old_value)}, {"new", std::move(s.new_value)}}});
    }
}

envelope::envelope pipeline::cannot_narrow(call_tracker& t) const {
    return stop(t, {make_issue(vc::action_not_approved,
                               "The user narrowed the action, but this tool cannot act on a subset. Nothing was done.",
                               false)});
}

boost::asio::awaitable<std::optional<envelope::envelope>> pipeline::approve(call_tracker& t, mcp::call_context& ctx,
                                                                            const action_plan& plan,
                                                                            const std::optional<std::string>& token,
                                                                            const std::string& arguments_fp,
                                                                            plan_use_timing timing, verdict& v) const {
    auto outcome = co_await gate_->approve(ctx, plan, token, arguments_fp, timing);
    if (!outcome.approved()) co_return stop(t, std::move(outcome.refusal));
    v.approval = std::move(outcome);
    v.gate = &*gate_;
    v.approved = true;
    co_return std::nullopt;
}

envelope::envelope pipeline::finish(call_tracker& t, envelope::envelope e, const verdict& v) const {
    if (e.status == envelope::outcome::error) {
        record(t);
        return e;
    }
    for (const auto& w : v.warnings) e.add_warning(w);
    if (v.unverified()) {
        for (const auto& source : v.unavailable_sources)
            e.add_reason({std::string(envelope::reason_codes::source_unavailable),
                          "the source '" + source + "' could not confirm the arguments",
                          boost::json::object{{"source", source}}});
        if (e.status == envelope::outcome::complete) {
            e.status = envelope::outcome::partial;
            e.complete = false;
        }
        if (action_ == mcp::action_class::reversible_write) {
            e.add_warning({std::string(envelope::warning_codes::unverified_draft),
                           "stored as an unverified draft: an external source could not confirm it",
                           {}});
            t.observation.unverified_draft = true;
        }
    }
    record(t);
    return e;
}

}  // namespace candor::validation::detail

namespace candor::validation {

boost::asio::awaitable<boost::system::result<void, issue_list>> verdict::commit(std::shared_ptr<store::sql_database> db,
                                                                                offload::worker& worker,
                                                                                ledger_work work) const {
    if (gate) return gate->run_approved(approval, std::move(db), worker, std::move(work));
    return detail::run_writes(std::move(db), worker, std::move(work), false);
}

}  // namespace candor::validation
