// SPDX-License-Identifier: BSL-1.0
#include <candor/agent/decide.hpp>

#include <candor/envelope/envelope.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ag = candor::agent;
namespace ce = candor::envelope;
using ag::decision;
using ag::intent;

namespace {

// The wire form of a partial envelope with one reason, on a full or an empty page.
boost::json::value partial(std::string code, bool empty, std::optional<ce::continuation> c = {}) {
    boost::json::array data;
    if (!empty) data = {1, 2, 3};
    auto e = ce::partial(std::move(data), {std::move(code), "why", {}});
    if (c) e.continue_with(*c);
    return ce::seal(e, "t").value();
}

boost::json::value error(std::string code, std::optional<ce::continuation> c = {}) {
    auto e = ce::failure({candor::issue{std::move(code), "", "msg", true}});
    if (c) e.continue_with(*c);
    return ce::seal(e, "t").value();
}

struct reason_case {
    const char* code;
    std::optional<ce::continuation> cont;
    decision read;
    decision report;
};

// Every reason code of the catalogue, with the continuation the framework gives it.
std::vector<reason_case> reason_cases() {
    using c = ce::continuation;
    return {
        {"MORE_PAGES_AVAILABLE", c::next_cursor("cur"), decision::continue_search, decision::continue_search},
        {"RESULT_LIMIT_REACHED", c::narrow_query("add a filter"), decision::continue_search, decision::continue_search},
        {"TIME_BUDGET_EXCEEDED", c::next_cursor("cur"), decision::continue_search, decision::continue_search},
        {"TIME_BUDGET_EXCEEDED", std::nullopt, decision::retry_later, decision::retry_later},
        {"SOURCE_UNAVAILABLE", std::nullopt, decision::retry_later, decision::retry_later},
        {"SOURCE_UNAVAILABLE", c::next_cursor("cur"), decision::continue_search, decision::continue_search},
        {"VISIBILITY_RESTRICTED", std::nullopt, decision::proceed, decision::refuse_or_request_review},
        {"RATE_LIMITED", c::retry_after(3), decision::retry_later, decision::retry_later},
        {"CLIENT_PAGE_LIMIT", c::next_cursor("cur"), decision::continue_search, decision::continue_search},
        {"CANCELLED", std::nullopt, decision::retry_later, decision::retry_later},
        {"SOMETHING_NEW", std::nullopt, decision::proceed, decision::refuse_or_request_review},
    };
}

}  // namespace

TEST(Decide, DangerousEmptyPageWithMorePagesMeansContinueSearch) {
    auto env = partial("MORE_PAGES_AVAILABLE", true, ce::continuation::next_cursor("abc"));
    EXPECT_FALSE(ag::may_infer_absence(env));
    EXPECT_EQ(ag::decide(env, intent::read), decision::continue_search);
    EXPECT_EQ(ag::decide(env, intent::report), decision::continue_search);
    EXPECT_EQ(ag::decide(env, intent::destructive_change), decision::refuse_or_request_review);
}

TEST(Decide, EveryReasonOnAFullAndAnEmptyPageFollowsTheRules) {
    for (const auto& rc : reason_cases()) {
        for (bool empty : {false, true}) {
            SCOPED_TRACE(std::string(rc.code) + (empty ? " empty page" : " full page"));
            auto env = partial(rc.code, empty, rc.cont);
            EXPECT_FALSE(ag::may_infer_absence(env));
            EXPECT_EQ(ag::decide(env, intent::read), rc.read);
            EXPECT_EQ(ag::decide(env, intent::report), rc.report);
            EXPECT_EQ(ag::decide(env, intent::destructive_change), decision::refuse_or_request_review);
        }
    }
}

TEST(Decide, DestructiveIntentAfterAnyIncompleteEnvelopeIsRefuseOrReview) {
    for (const auto& rc : reason_cases())
        EXPECT_EQ(ag::decide(partial(rc.code, false, rc.cont), intent::destructive_change),
                  decision::refuse_or_request_review)
            << rc.code;
}

TEST(Decide, CompleteEnvelopeProceedsAndAllowsAbsence) {
    for (bool empty : {false, true}) {
        auto env = ce::seal(ce::complete(empty ? boost::json::array{} : boost::json::array{1}), "t").value();
        EXPECT_TRUE(ag::may_infer_absence(env));
        EXPECT_EQ(ag::decide(env, intent::read), decision::proceed);
        EXPECT_EQ(ag::decide(env, intent::report), decision::proceed);
        EXPECT_EQ(ag::decide(env, intent::destructive_change), decision::proceed);
    }
}

TEST(Decide, CompleteLiveViewIsNoGroundForADestructiveChange) {
    auto e = ce::complete(boost::json::array{});
    e.add_warning({"LIVE_VIEW", "live", {}});
    auto env = ce::seal(e, "t").value();
    EXPECT_TRUE(ag::may_infer_absence(env));
    EXPECT_EQ(ag::decide(env, intent::read), decision::proceed);
    EXPECT_EQ(ag::decide(env, intent::destructive_change), decision::refuse_or_request_review);
}

TEST(Decide, CursorErrorsRestartTheSearchNeverAnInventedCursor) {
    for (const char* code : {"CURSOR_INVALID", "CURSOR_MISMATCH", "CURSOR_EXPIRED", "SNAPSHOT_EXPIRED"}) {
        auto env = error(code, ce::continuation::restart("start over"));
        EXPECT_FALSE(ag::may_infer_absence(env));
        EXPECT_EQ(ag::decide(env, intent::read), decision::continue_search) << code;
        EXPECT_EQ(ag::decide(env, intent::destructive_change), decision::refuse_or_request_review) << code;
    }
}

TEST(Decide, TransientErrorsMeanRetryLater) {
    for (const char* code : {"DEADLINE_EXCEEDED", "TOO_MANY_CALLS_IN_FLIGHT"})
        EXPECT_EQ(ag::decide(error(code), intent::read), decision::retry_later) << code;
}

TEST(Decide, OtherErrorsMeanRefuseOrReview) {
    for (const char* code : {"EVIDENCE_MISSING", "EVIDENCE_NOT_COVERED", "TYPE_MISMATCH", "INTERNAL_ERROR"})
        EXPECT_EQ(ag::decide(error(code), intent::read), decision::refuse_or_request_review) << code;
}

TEST(Decide, UnreadableEnvelopesAreNeverEvidenceNorAGoAhead) {
    const char* texts[] = {
        "null",
        "[]",
        R"({"items":[]})",
        R"({"complete":"true","status":"complete"})",
        R"({"complete":true,"status":"partial"})",  // contradictory
        R"({"complete":false,"status":"partial","incomplete_reasons":[]})",
        R"({"complete":false,"status":"partial"})",
        R"({"complete":false,"status":"error","errors":[]})",
    };
    for (const char* t : texts) {
        auto v = boost::json::parse(t);
        EXPECT_FALSE(ag::may_infer_absence(v)) << t;
        for (auto i : {intent::read, intent::report, intent::destructive_change})
            EXPECT_EQ(ag::decide(v, i), decision::refuse_or_request_review) << t << " " << ag::to_string(i);
    }
}

TEST(Decide, NextCursorWithoutACursorIsUnreadableNotAContinuation) {
    auto v = boost::json::parse(
        R"({"complete":false,"status":"partial","incomplete_reasons":[{"code":"MORE_PAGES_AVAILABLE","message":""}],
            "continuation":{"kind":"next_cursor","cursor":""}})");
    EXPECT_EQ(ag::decide(v, intent::read), decision::refuse_or_request_review);
    EXPECT_EQ(ag::decide(v, intent::report), decision::refuse_or_request_review);
}

TEST(Decide, NamesAreStable) {
    EXPECT_EQ(ag::to_string(decision::continue_search), "continue_search");
    EXPECT_EQ(ag::to_string(decision::proceed), "proceed");
    EXPECT_EQ(ag::to_string(decision::refuse_or_request_review), "refuse_or_request_review");
    EXPECT_EQ(ag::to_string(decision::retry_later), "retry_later");
    EXPECT_EQ(ag::to_string(intent::destructive_change), "destructive_change");
}
