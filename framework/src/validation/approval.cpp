// SPDX-License-Identifier: BSL-1.0
#include <candor/validation/approval.hpp>

#include <boost/json/array.hpp>

#include <algorithm>
#include <string_view>

namespace candor::validation {

boost::json::object action_plan::to_json() const {
    boost::json::array ids;
    for (const auto& t : targets) ids.emplace_back(t);
    boost::json::array why;
    for (const auto& r : evidence.reasons) why.emplace_back(r);
    return boost::json::object{{"action", summary},
                               {"targets", std::move(ids)},
                               {"count", targets.size()},
                               {"evidence", boost::json::object{{"declared", evidence.declared},
                                                                {"complete", evidence.complete},
                                                                {"reasons", std::move(why)}}}};
}

bool elicitation_approver::available(const mcp::call_context& ctx) const { return ctx.can_elicit(); }

std::string elicitation_approver::message(const approval_request& request) {
    const auto& p = request.plan;
    std::string m = "Approve this action? " + p.summary + "\n";
    m += "Targets (" + std::to_string(p.targets.size()) + "): ";
    constexpr std::size_t shown = 20;
    for (std::size_t i = 0; i < p.targets.size() && i < shown; ++i) {
        if (i != 0) m += ", ";
        m += p.targets[i];
    }
    if (p.targets.size() > shown) m += ", … (" + std::to_string(p.targets.size() - shown) + " more)";
    m += "\n";
    if (p.evidence.declared) {
        if (p.evidence.complete) {
            m += "Evidence: complete (every target comes from a complete inventory).\n";
        } else {
            m += "Evidence: INCOMPLETE (";
            for (std::size_t i = 0; i < p.evidence.reasons.size(); ++i) {
                if (i != 0) m += ", ";
                m += p.evidence.reasons[i];
            }
            m += ").\n";
        }
    }
    m += "Choose proceed, narrow (list the ids to keep) or cancel. This cannot be undone.";
    return m;
}

boost::json::object elicitation_approver::requested_schema() {
    return boost::json::object{
        {"type", "object"},
        {"properties",
         boost::json::object{
             {"decision", boost::json::object{{"type", "string"},
                                              {"title", "Decision"},
                                              {"enum", boost::json::array{"proceed", "narrow", "cancel"}}}},
             {"ids",
              boost::json::object{{"type", "string"}, {"title", "Ids to keep (narrow only, comma-separated)"}}}}},
        {"required", boost::json::array{"decision"}}};
}

approval_decision elicitation_approver::interpret(const mcp::elicitation_result& answer, const action_plan& plan) {
    using choice = approval_decision::choice;
    approval_decision d;
    if (answer.action == mcp::elicitation_action::decline) {
        d.what = choice::declined;
        return d;
    }
    if (answer.action == mcp::elicitation_action::cancel) {
        d.what = choice::cancelled;
        return d;
    }
    const auto* decision = answer.content.if_contains("decision");
    const std::string_view value =
        decision != nullptr && decision->is_string() ? std::string_view(decision->get_string()) : std::string_view();
    if (value == "proceed") {
        d.what = choice::proceed;
        return d;
    }
    if (value == "cancel") {
        d.what = choice::cancelled;
        return d;
    }
    if (value != "narrow") {
        d.why = "the answer has no decision";
        return d;
    }
    const auto* ids = answer.content.if_contains("ids");
    if (ids == nullptr || !ids->is_string()) {
        d.why = "narrow without ids";
        return d;
    }
    std::string_view rest = ids->get_string();
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        std::string_view id = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
        while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
        if (id.empty()) continue;
        if (std::find(plan.targets.begin(), plan.targets.end(), id) == plan.targets.end()) {
            d.ids.clear();
            d.why = "narrow to an id outside the plan";
            return d;
        }
        if (std::find(d.ids.begin(), d.ids.end(), id) == d.ids.end()) d.ids.emplace_back(id);
    }
    if (d.ids.empty()) {
        d.why = "narrow without ids";
        return d;
    }
    d.what = choice::narrow;
    return d;
}

boost::asio::awaitable<approval_decision> elicitation_approver::ask(const approval_request& request,
                                                                    mcp::call_context& ctx) {
    auto answer = co_await ctx.elicit(message(request), requested_schema(), timeout_);
    approval_decision d;
    if (!answer) {
        d.why = std::string("elicitation failed: ") + std::string(mcp::to_string(answer.error()));
        co_return d;
    }
    if (answer->answer_id.empty() && answer->action == mcp::elicitation_action::accept) {
        // Sent with the request, before the question was asked: no user saw this plan, and
        // nothing would tell the answer from its replay.
        d.why =
            "the approval was sent before it was asked; call again without inputResponses and answer the "
            "question the server asks";
        co_return d;
    }
    d = interpret(*answer, request.plan);
    d.answer_id = std::move(answer->answer_id);
    d.replayable_until = answer->replayable_until;
    co_return d;
}

}  // namespace candor::validation
