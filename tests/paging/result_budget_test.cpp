// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// A collection page held to its call's byte budget: it ends at the last whole item that fits,
// with RESULT_SIZE_LIMIT and a cursor right after that item on the same snapshot; a walk at any
// budget delivers exactly the ids of a walk without one, and its evidence holds them.
#include "paging/support.hpp"

#include <candor/evidence/token.hpp>
#include <candor/paging/aggregate.hpp>

#include <functional>
#include <random>
#include <set>
#include <vector>

using namespace candor::test;
namespace ce = candor::envelope;

namespace {

// Text of `n` bytes that escapes unevenly: quotes, backslashes and two-byte characters.
std::string budget_text(std::mt19937& rng, std::size_t n) {
    static constexpr std::string_view pieces[] = {"a", "b", " ", "\"", "\\", "\xC3\xA9", "\n", "z"};
    std::string s;
    while (s.size() < n) s += pieces[rng() % std::size(pieces)];
    return s;
}

// `n` items of random sizes, mostly small and a few large, each of which fits a page of
// `budget` alone (its text escaped twice over, in the text block), so that a walk can end
// complete; @return their ids
std::vector<std::string> put_budget_items(collection_harness& h, std::mt19937& rng, int n, std::size_t budget) {
    const std::size_t largest = (budget - 3000) / 8;
    std::vector<std::string> all;
    for (int i = 1; i <= n; ++i) {
        auto it = item(i);
        const std::size_t size = rng() % 10 == 0 ? largest / 2 + rng() % (largest / 2) : rng() % 300;
        it["text"] = budget_text(rng, size);
        h.source->put(std::move(it));
        all.push_back(id_of(i));
    }
    return all;
}

boost::json::value budget_nth(const boost::json::value& v, std::size_t i) {
    if (const auto* a = v.if_array(); a && i < a->size()) return (*a)[i];
    return "<missing>";
}

struct budget_walk {
    std::vector<std::string> ids;
    std::size_t pages = 0;
    std::size_t cut_pages = 0;
    std::size_t largest = 0;  // bytes of the largest response
    boost::json::value last;
};

// Walk `tool` (`items`, or an aggregation over it) to its end with `budget` asked for in each
// request's _meta; `each` looks at every envelope.
budget_walk walk_with_budget(collection_harness& h, std::size_t budget, std::size_t page_size,
                             const std::string& tool = "items",
                             const std::function<void(const boost::json::value&)>& each = {}) {
    auto& c = h.client();
    budget_walk w;
    std::optional<std::string> cursor;
    for (int guard = 0; guard < 10'000; ++guard) {
        boost::json::object args{{"page_size", page_size}};
        if (cursor) args["cursor"] = *cursor;
        auto r = c.request("tools/call", {{"name", tool},
                                          {"arguments", std::move(args)},
                                          {"_meta", boost::json::object{{"io.candor/maxResultBytes", budget}}}});
        w.largest = std::max(w.largest, c.received_bytes().back());
        const auto env = at(at(r, "result"), "structuredContent");
        ++w.pages;
        if (each) each(env);
        const auto data = at(env, "data");
        if (!data.is_array()) {
            ADD_FAILURE() << "a page without data: " << boost::json::serialize(r);
            return w;
        }
        for (const auto& i : data.as_array()) w.ids.emplace_back(i.at("id").as_string());
        const auto codes = reason_codes(env);
        if (std::find(codes.begin(), codes.end(), "RESULT_SIZE_LIMIT") != codes.end()) {
            ++w.cut_pages;
            EXPECT_EQ(at(budget_nth(at(env, "incomplete_reasons"), 0), "limit"), budget);
        }
        const auto how = at(env, "continuation");
        const auto next = how.is_object() ? cursor_of(env) : std::string();
        if (next.empty()) {
            w.last = env;
            return w;
        }
        cursor = next;
    }
    ADD_FAILURE() << "the walk did not end";
    return w;
}

// The walk that ended with `last` is complete evidence of every id in `all`.
void expect_complete_evidence(collection_harness& h, const boost::json::value& last,
                              const std::vector<std::string>& all) {
    EXPECT_EQ(at(last, "complete"), true) << boost::json::serialize(last);
    const auto token = at(last, "snapshot_token");
    ASSERT_TRUE(token.is_string()) << boost::json::serialize(last);
    auto claims = ev::open_snapshot_token(*h.keys, token.as_string());
    ASSERT_TRUE(claims);
    EXPECT_TRUE(claims->complete);
    auto uncovered = h.store->uncovered(claims->walk, all, h.clocks.wall);
    ASSERT_TRUE(uncovered);
    EXPECT_TRUE(uncovered->empty());
}

}  // namespace

TEST(ResultBudget, AWalkAtAnyBudgetDeliversExactlyTheIdsOfOneWithout) {
    std::size_t cut_pages = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_page_size = 100; });
        h.srv->set_max_result_bytes(0);  // the request's budget alone
        const int n = 40 + static_cast<int>(rng() % 120);
        const std::size_t budget = 4000 + rng() % 30'000;
        const auto all = put_budget_items(h, rng, n, budget);
        const std::size_t page_size = 1 + rng() % 100;
        auto w = walk_with_budget(h, budget, page_size);
        EXPECT_EQ(w.ids, all) << "budget " << budget << ", page_size " << page_size;
        EXPECT_LE(w.largest, budget);
        cut_pages += w.cut_pages;
        // The walk's evidence covers every id it delivered, and it is complete evidence.
        expect_complete_evidence(h, w.last, all);
    }
    EXPECT_GT(cut_pages, 40u) << "the budgets seldom cut a page: the test proved little";
}

TEST(ResultBudget, APageCutBySizeSaysSoAndTheEvidenceHoldsOnlyWhatWasSent) {
    collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_page_size = 100; });
    std::mt19937 rng(7);
    for (int i = 1; i <= 30; ++i) {
        auto it = item(i);
        it["text"] = budget_text(rng, 400);
        h.source->put(std::move(it));
    }
    auto& c = h.client();
    auto r = c.request("tools/call", {{"name", "items"},
                                      {"arguments", boost::json::object{{"page_size", 30}}},
                                      {"_meta", boost::json::object{{"io.candor/maxResultBytes", 3000}}}});
    EXPECT_LE(c.received_bytes().back(), 3000u);
    const auto env = at(at(r, "result"), "structuredContent");
    EXPECT_EQ(at(env, "complete"), false);
    const auto reason = budget_nth(at(env, "incomplete_reasons"), 0);
    EXPECT_EQ(at(reason, "code"), "RESULT_SIZE_LIMIT");
    EXPECT_EQ(at(reason, "limit"), 3000);
    const auto returned = at(reason, "returned").as_int64();
    EXPECT_GE(returned, 1);
    EXPECT_LT(returned, 30);
    EXPECT_EQ(static_cast<std::int64_t>(at(env, "data").as_array().size()), returned);
    EXPECT_EQ(at(at(env, "page"), "returned"), returned);
    // The text block is the envelope, whole.
    const auto text = at(budget_nth(at(at(r, "result"), "content"), 0), "text");
    EXPECT_EQ(boost::json::parse(text.as_string()), env);
    // The cursor resumes right after the last item sent.
    auto next = c.request(
        "tools/call",
        {{"name", "items"},
         {"arguments", boost::json::object{{"page_size", 1}, {"cursor", at(at(env, "continuation"), "cursor")}}}});
    EXPECT_EQ(at(budget_nth(at(at(at(next, "result"), "structuredContent"), "data"), 0), "id"),
              boost::json::value(id_of(static_cast<int>(returned) + 1)));
}

TEST(ResultBudget, AnItemLargerThanAnyPageIsSentAloneWithItsStringsCut) {
    collection_harness h;
    auto big = item(1);
    big["text"] = std::string(10'000, 'x');
    h.source->put(big);
    h.source->put(item(2));
    auto& c = h.client();
    auto r = c.request("tools/call", {{"name", "items"},
                                      {"arguments", boost::json::object{{"page_size", 2}}},
                                      {"_meta", boost::json::object{{"io.candor/maxResultBytes", 2000}}}});
    EXPECT_LE(c.received_bytes().back(), 2000u);
    const auto env = at(at(r, "result"), "structuredContent");
    ASSERT_EQ(at(env, "data").as_array().size(), 1u) << boost::json::serialize(env);
    EXPECT_EQ(at(budget_nth(at(env, "data"), 0), "id"), boost::json::value(id_of(1)));
    const auto warning = budget_nth(at(env, "warnings"), 0);
    EXPECT_EQ(at(warning, "code"), "FIELD_TRUNCATED");
    EXPECT_EQ(at(warning, "path"), "/data/0/text");
    EXPECT_EQ(at(warning, "bytes"), 10'000);
    const auto kept = at(warning, "kept").as_int64();
    EXPECT_EQ(static_cast<std::int64_t>(at(budget_nth(at(env, "data"), 0), "text").as_string().size()), kept);
    // One reason says both: the page ended after one item, and a string of it was cut.
    ASSERT_EQ(at(env, "incomplete_reasons").as_array().size(), 1u);
    const auto reason = budget_nth(at(env, "incomplete_reasons"), 0);
    EXPECT_EQ(at(reason, "code"), "RESULT_SIZE_LIMIT");
    EXPECT_EQ(at(reason, "returned"), 1);
    EXPECT_EQ(at(reason, "fields"), 1);
}

TEST(ResultBudget, ACallerMayAskForFewerFieldsAndKeepsItsWalk) {
    collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) {
        o.item_schema = boost::json::parse(R"({"type":"object","properties":{"id":{},"group":{},"n":{},"text":{}}})");
    });
    for (int i = 1; i <= 7; ++i) {
        auto it = item(i);
        it["text"] = std::string(500, 't');
        h.source->put(std::move(it));
    }
    // tools/list offers the argument, naming the fields.
    auto listed = h.client().request("tools/list", {});
    const auto& props = listed.at("result").at("tools").at(0).at("inputSchema").at("properties");
    ASSERT_TRUE(props.as_object().contains("fields")) << boost::json::serialize(props);
    // Only what was asked for, and the key; the walk goes on with other fields on the next page.
    auto first = h.page({{"page_size", 3}, {"fields", boost::json::array{"n"}}});
    ASSERT_EQ(at(first, "data").as_array().size(), 3u) << boost::json::serialize(first);
    EXPECT_EQ(budget_nth(at(first, "data"), 0), (boost::json::value{{"id", id_of(1)}, {"n", 1}}));
    const auto w = budget_nth(at(first, "warnings"), 0);
    EXPECT_EQ(at(w, "code"), "PARTIAL_FIELD_SET");
    EXPECT_EQ(at(w, "fields"), (boost::json::array{"n", "id"}));
    auto second = h.page({{"page_size", 10}, {"cursor", cursor_of(first)}});
    ASSERT_EQ(at(second, "data").as_array().size(), 4u) << boost::json::serialize(second);
    EXPECT_EQ(at(budget_nth(at(second, "data"), 0), "text").as_string().size(), 500u);
    EXPECT_EQ(at(second, "complete"), true);
    // A field the items do not have: UNKNOWN_FIELD, with the fields there are.
    auto wrong = h.page({{"fields", boost::json::array{"n", "colour"}}});
    EXPECT_EQ(first_error_code(wrong), "UNKNOWN_FIELD");
    const auto issue = budget_nth(at(wrong, "errors"), 0);
    EXPECT_EQ(at(issue, "path"), "/fields/1");
    EXPECT_EQ(at(issue, "allowed"), (boost::json::array{"id", "group", "n", "text"}));
}

namespace {

// An aggregating tool over the harness's `items`: walks up to `max_pages` pages of `page_size`
// within the call's byte budget.
void add_walk_tool(collection_harness& h) {
    auto tool = h.tool;
    h.srv
        ->add_tool(mcp::make_tool(
            mcp::tool_info("walk", "Walks items.")
                .with_input_schema(
                    boost::json::parse(
                        R"({"type":"object","properties":{"page_size":{"type":"integer"},"cursor":{"type":"string"}}})")
                        .as_object())
                .with_action(mcp::action_class::read_only),
            [tool](const boost::json::object& args, mcp::call_context& ctx) -> boost::asio::awaitable<ce::envelope> {
                pg::walk_request w;
                w.caller = ctx.caller();
                w.limits = {.max_pages = 1000, .max_items = 100'000, .page_size = 10};
                if (auto* n = args.if_contains("page_size")) w.limits.page_size = n->to_number<std::size_t>();
                if (auto* c = args.if_contains("cursor")) w.cursor = std::string(c->as_string());
                w.budget = ctx.budget();
                co_return co_await pg::walk_all(*tool, std::move(w));
            }))
        .value();
}

}  // namespace

TEST(ResultBudget, AnAggregationEndsAtTheLastWholeItemThatFitsAndResumesRightAfterIt) {
    std::size_t cut_calls = 0;
    for (unsigned seed = 1; seed <= 30; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_page_size = 100; });
        add_walk_tool(h);
        h.srv->set_max_result_bytes(0);
        const int n = 40 + static_cast<int>(rng() % 160);
        const std::size_t budget = 4000 + rng() % 20'000;
        const auto all = put_budget_items(h, rng, n, budget);
        const std::size_t page_size = 1 + rng() % 40;
        auto w = walk_with_budget(h, budget, page_size, "walk", [&](const boost::json::value& env) {
            // Whole items only: no string of them was cut to fit.
            EXPECT_EQ(at(env, "warnings"), boost::json::array{}) << boost::json::serialize(at(env, "warnings"));
            const auto codes = reason_codes(env);
            if (codes.empty()) return;
            ASSERT_EQ(codes, std::vector<std::string>{"RESULT_SIZE_LIMIT"}) << boost::json::serialize(env);
            const auto reason = budget_nth(at(env, "incomplete_reasons"), 0);
            EXPECT_EQ(at(reason, "limit"), budget);
            const auto data = at(env, "data");
            EXPECT_EQ(at(reason, "returned"), data.is_array() ? data.as_array().size() : 0u);
        });
        EXPECT_LE(w.largest, budget);
        cut_calls += w.cut_pages;
        EXPECT_EQ(w.ids, all) << "budget " << budget << ", page_size " << page_size;
        expect_complete_evidence(h, w.last, all);
    }
    EXPECT_GT(cut_calls, 30u) << "the budgets seldom cut a walk: the test proved little";
}
