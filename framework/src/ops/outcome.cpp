// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/outcome.hpp>

#include <candor/envelope/codes.hpp>

#include <algorithm>
#include <array>

namespace candor::ops {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) noexcept { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string_view to_string(call_outcome o) noexcept {
    static constexpr std::array<std::string_view, 7> names = {"complete", "paged",         "incomplete", "error",
                                                              "content",  "content_error", "refused"};
    return names[static_cast<std::size_t>(o)];
}

bool is_paging_reason(std::string_view code) noexcept { return code == envelope::reason_codes::more_pages_available; }

call_outcome outcome_of(const mcp::call_record& r) noexcept {
    if (r.what == mcp::call_record::kind::protocol_refusal) return call_outcome::refused;
    const std::string_view s = r.status;
    if (s == "complete") return call_outcome::complete;
    if (s == "partial") {
        const bool paged = !r.reason_codes.empty() && std::all_of(r.reason_codes.begin(), r.reason_codes.end(),
                                                                  [](const auto& c) { return is_paging_reason(c); });
        return paged ? call_outcome::paged : call_outcome::incomplete;
    }
    if (s == "content") return call_outcome::content;
    if (s == "content_error") return call_outcome::content_error;
    return call_outcome::error;
}

std::string_view to_string(issue_group g) noexcept {
    static constexpr std::array<std::string_view, 5> names = {"argument", "external", "evidence", "approval", "server"};
    return names[static_cast<std::size_t>(g)];
}

issue_group group_of(std::string_view code, std::string_view layer_name) noexcept {
    namespace vc = envelope::validation_codes;
    namespace ec = envelope::error_codes;
    if (starts_with(code, "EVIDENCE_")) return issue_group::evidence;
    if (starts_with(code, "PLAN_TOKEN_") || code == vc::action_declined || code == vc::action_cancelled ||
        code == vc::action_not_approved)
        return issue_group::approval;
    if (code == ec::internal_error || code == ec::deadline_exceeded || code == ec::too_many_calls_in_flight)
        return issue_group::server;
    if (layer_name == "intake" || layer_name == "contract" || layer_name == "business") return issue_group::argument;
    return issue_group::external;
}

issue_group group_of(std::string_view code, layer where) noexcept { return group_of(code, to_string(where)); }

}  // namespace candor::ops
