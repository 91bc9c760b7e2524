// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/aggregate.hpp>

#include "paging/support.hpp"

#include <candor/agent/decide.hpp>

#include <set>

using namespace candor::test;
namespace ce = candor::envelope;
namespace ag = candor::agent;

namespace {

boost::json::value wire(const ce::envelope& e) { return ce::seal(e, "walk").value(); }

std::vector<std::string> ids(const ce::envelope& e) {
    std::vector<std::string> out;
    for (const auto& i : e.data->as_array()) out.emplace_back(i.at("id").as_string());
    return out;
}

std::vector<std::string> codes(const ce::envelope& e) {
    std::vector<std::string> out;
    for (const auto& r : e.incomplete_reasons) out.push_back(r.code);
    return out;
}

class Aggregate : public ::testing::Test {
protected:
    collection_harness h;
    boost::asio::io_context ioc;

    ce::envelope walk(pg::walk_limits lim, std::optional<std::string> cursor = {}, std::string who = "alice",
                      boost::json::object query = {}) {
        pg::walk_request r;
        r.query = std::move(query);
        r.cursor = std::move(cursor);
        r.caller = {std::move(who)};
        r.limits = lim;
        return run(ioc, pg::walk_all(*h.tool, std::move(r)));
    }
};

}  // namespace

TEST_F(Aggregate, WalkWithinTheLimitsIsCompleteAndCarriesTheToken) {
    h.fill(10);
    auto e = walk({10, 100, 3});
    EXPECT_EQ(e.complete, true);
    EXPECT_EQ(ids(e).size(), 10u);
    EXPECT_TRUE(e.extensions.contains("snapshot_token"));
    EXPECT_EQ(e.extensions.at("walk").at("pages"), 4);
    EXPECT_TRUE(ag::may_infer_absence(wire(e)));
}

TEST_F(Aggregate, StoppingAtMaxPagesIsClientPageLimitAndTheContinuationResumesExactly) {
    h.fill(10);
    auto first = walk({2, 100, 3});
    EXPECT_EQ(first.complete, false);
    EXPECT_EQ(codes(first), std::vector<std::string>{"CLIENT_PAGE_LIMIT"});
    ASSERT_TRUE(first.continuation);
    EXPECT_EQ(first.continuation->what, ce::continuation::kind::next_cursor);
    EXPECT_EQ(ag::decide(wire(first), ag::intent::read), ag::decision::continue_search);
    EXPECT_EQ(ag::decide(wire(first), ag::intent::destructive_change), ag::decision::refuse_or_request_review);
    auto rest = walk({10, 100, 3}, first.continuation->text);
    EXPECT_EQ(rest.complete, true);
    auto all = ids(first);
    for (auto& i : ids(rest)) all.push_back(i);
    ASSERT_EQ(all.size(), 10u);
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 10u) << "no item twice";
}

TEST_F(Aggregate, StoppingAtMaxItemsShrinksTheLastPageAndIsClientPageLimit) {
    h.fill(10);
    auto e = walk({10, 4, 3});
    EXPECT_EQ(ids(e).size(), 4u);
    EXPECT_EQ(codes(e), std::vector<std::string>{"CLIENT_PAGE_LIMIT"});
}

TEST_F(Aggregate, ExactlyReachingMaxItemsAtTheEndIsComplete) {
    h.fill(6);
    EXPECT_EQ(walk({10, 6, 3}).complete, true);
}

TEST_F(Aggregate, InnerVisibilityReasonReachesTheOuterEnvelopeOnce) {
    h.fill(10);
    h.source->set_visibility(
        [](const boost::json::object& i, const mcp::principal&) { return i.at("n").as_int64() != 2; });
    auto e = walk({10, 100, 3});
    EXPECT_EQ(e.complete, false);
    EXPECT_EQ(codes(e), std::vector<std::string>{"VISIBILITY_RESTRICTED"});
    EXPECT_EQ(ids(e).size(), 9u);
    EXPECT_FALSE(e.continuation) << "nothing more to fetch: the gap is not one a continuation closes";
}

TEST_F(Aggregate, RateLimitMidWalkKeepsTheItemsAndSaysRateLimited) {
    h.fill(10);
    h.source->set_fault([](std::size_t call) {
        return call == 2 ? std::optional<pg::source_error>(pg::source_error{pg::source_error::kind::rate_limited, "",
                                                                            std::chrono::milliseconds(1500)})
                         : std::nullopt;
    });
    auto e = walk({10, 100, 3});
    EXPECT_EQ(ids(e).size(), 6u);
    EXPECT_EQ(codes(e), std::vector<std::string>{"RATE_LIMITED"});
    ASSERT_TRUE(e.continuation);
    EXPECT_EQ(e.continuation->what, ce::continuation::kind::retry_after);
    EXPECT_EQ(ag::decide(wire(e), ag::intent::read), ag::decision::retry_later);
}

TEST_F(Aggregate, FailingSourceMidWalkKeepsTheItemsAndResumesFromItsPosition) {
    h.fill(10);
    h.source->set_fault([](std::size_t call) {
        return call == 1
                   ? std::optional<pg::source_error>(pg::source_error{pg::source_error::kind::unavailable, "", {}})
                   : std::nullopt;
    });
    auto e = walk({10, 100, 3});
    EXPECT_EQ(ids(e).size(), 3u);
    EXPECT_EQ(codes(e), std::vector<std::string>{"SOURCE_UNAVAILABLE"});
    ASSERT_TRUE(e.continuation);
    auto rest = walk({10, 100, 3}, e.continuation->text);
    EXPECT_EQ(rest.complete, true);
    EXPECT_EQ(ids(rest).front(), id_of(4));
}

TEST_F(Aggregate, DeadlineBetweenPagesIsTimeBudgetExceededWithTheWorkDone) {
    h.fill(10);
    h.source->set_scan_hook([&] { h.clocks.steady += std::chrono::milliseconds(10); }, {});
    pg::walk_request r;
    r.caller = {"alice"};
    r.limits = {10, 100, 3};
    r.deadline = h.clocks.steady + std::chrono::milliseconds(55);
    auto e = run(ioc, pg::walk_all(*h.tool, std::move(r)));
    EXPECT_EQ(codes(e), std::vector<std::string>{"TIME_BUDGET_EXCEEDED"});
    EXPECT_EQ(ids(e).size(), 6u);
    EXPECT_EQ(e.incomplete_reasons[0].details.at("pages"), 2);
    EXPECT_EQ(e.incomplete_reasons[0].details.at("items_scanned"), 8);
    ASSERT_TRUE(e.continuation);
    EXPECT_EQ(e.continuation->what, ce::continuation::kind::next_cursor);
}

TEST_F(Aggregate, CursorExpiringMidWalkIsAnErrorNeverAMergeOfTwoWalks) {
    // Every look at the deadline clock lets 16 minutes of wall time pass: the second page's
    // cursor is older than the 15-minute TTL when it is opened.
    auto clocks = std::make_shared<manual_clocks>();
    collection_harness slow(pg::snapshot_mode::pinned, [clocks](pg::collection_options& o) {
        o.wall_clock = clocks->wall_fn();
        o.steady_clock = [clocks] {
            clocks->wall += std::chrono::minutes(16);
            return clocks->steady;
        };
    });
    slow.fill(10);
    pg::walk_request r;
    r.caller = {"alice"};
    r.limits = {10, 100, 3};
    auto e = run(ioc, pg::walk_all(*slow.tool, std::move(r)));
    EXPECT_EQ(e.status, ce::outcome::error);
    ASSERT_FALSE(e.errors.empty());
    EXPECT_EQ(e.errors[0].code, "CURSOR_EXPIRED");
    ASSERT_TRUE(e.continuation);
    EXPECT_EQ(e.continuation->what, ce::continuation::kind::restart);
    EXPECT_FALSE(e.data);
}

TEST_F(Aggregate, ResultLimitInsideTheWalkIsPassedOnWithItsContinuation) {
    collection_harness limited(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_walk_items = 5; });
    limited.fill(10);
    pg::walk_request r;
    r.caller = {"alice"};
    r.limits = {10, 100, 3};
    auto e = run(ioc, pg::walk_all(*limited.tool, std::move(r)));
    EXPECT_EQ(codes(e), std::vector<std::string>{"RESULT_LIMIT_REACHED"});
    EXPECT_EQ(ids(e).size(), 5u);
    ASSERT_TRUE(e.continuation);
    EXPECT_EQ(e.continuation->what, ce::continuation::kind::narrow_query);
}
