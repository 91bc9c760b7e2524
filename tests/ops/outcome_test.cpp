// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/outcome.hpp>

#include <gtest/gtest.h>

namespace {

using namespace candor;
using ops::call_outcome;
using ops::issue_group;

mcp::call_record partial(std::vector<std::string> reasons) {
    mcp::call_record r;
    r.status = "partial";
    r.complete = false;
    r.reason_codes = std::move(reasons);
    return r;
}

TEST(Outcome, APageThatMorePagesFollowIsPagedNotIncomplete) {
    EXPECT_EQ(ops::outcome_of(partial({"MORE_PAGES_AVAILABLE"})), call_outcome::paged);
}

TEST(Outcome, EveryOtherReasonIsARealGapEvenBesidePaging) {
    for (const char* gap : {"VISIBILITY_RESTRICTED", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED", "CLIENT_PAGE_LIMIT",
                            "RESULT_LIMIT_REACHED", "RATE_LIMITED", "CANCELLED", "A_TOOL_OWN_REASON"}) {
        EXPECT_EQ(ops::outcome_of(partial({gap})), call_outcome::incomplete) << gap;
        EXPECT_EQ(ops::outcome_of(partial({"MORE_PAGES_AVAILABLE", gap})), call_outcome::incomplete) << gap;
    }
}

TEST(Outcome, APartialResultWithoutReasonsIsNotPassedOffAsPaged) {
    EXPECT_EQ(ops::outcome_of(partial({})), call_outcome::incomplete);
}

TEST(Outcome, OtherStatusesKeepTheirMeaning) {
    mcp::call_record r;
    for (auto [status, outcome] : {std::pair{"complete", call_outcome::complete},
                                   {"error", call_outcome::error},
                                   {"content", call_outcome::content},
                                   {"content_error", call_outcome::content_error}}) {
        r.status = status;
        EXPECT_EQ(ops::outcome_of(r), outcome) << status;
        EXPECT_EQ(ops::to_string(outcome), status);
    }
    r.what = mcp::call_record::kind::protocol_refusal;
    r.status = "refused";
    EXPECT_EQ(ops::outcome_of(r), call_outcome::refused);
    EXPECT_EQ(ops::to_string(call_outcome::paged), "paged");
    EXPECT_EQ(ops::to_string(call_outcome::incomplete), "incomplete");
}

TEST(IssueGroup, ArgumentLayersAreApartFromExternalChecks) {
    EXPECT_EQ(ops::group_of("TYPE_MISMATCH", layer::contract), issue_group::argument);
    EXPECT_EQ(ops::group_of("DEPTH_LIMIT", layer::intake), issue_group::argument);
    EXPECT_EQ(ops::group_of("TOTAL_MISMATCH", layer::business), issue_group::argument);
    EXPECT_EQ(ops::group_of("UNKNOWN_SKU", layer::external), issue_group::external);
    EXPECT_EQ(ops::group_of("SOURCE_UNAVAILABLE", "external"), issue_group::external);
}

TEST(IssueGroup, GatesAndServerFailuresAreNotArgumentIssuesWhateverTheirLayer) {
    for (const char* code : {"EVIDENCE_MISSING", "EVIDENCE_INCOMPLETE", "EVIDENCE_SCOPE_MISMATCH"})
        EXPECT_EQ(ops::group_of(code, layer::external), issue_group::evidence) << code;
    for (const char* code :
         {"PLAN_TOKEN_REQUIRED", "PLAN_TOKEN_EXPIRED", "ACTION_DECLINED", "ACTION_CANCELLED", "ACTION_NOT_APPROVED"})
        EXPECT_EQ(ops::group_of(code, layer::external), issue_group::approval) << code;
    // INTERNAL_ERROR is reported in layer business; it is still not the caller's mistake.
    for (const char* code : {"INTERNAL_ERROR", "DEADLINE_EXCEEDED", "TOO_MANY_CALLS_IN_FLIGHT"})
        EXPECT_EQ(ops::group_of(code, layer::business), issue_group::server) << code;
    EXPECT_EQ(ops::to_string(issue_group::approval), "approval");
}

}  // namespace
