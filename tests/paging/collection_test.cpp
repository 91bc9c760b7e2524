// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/collection.hpp>

#include "paging/support.hpp"

#include <candor/agent/decide.hpp>

#include <set>

using namespace candor::test;
namespace ag = candor::agent;

namespace {

std::vector<std::string> ids_in(const boost::json::value& env) {
    std::vector<std::string> out;
    const auto data = at(env, "data");
    if (auto* a = data.if_array())
        for (const auto& i : *a) out.emplace_back(at(i, "id").as_string());
    return out;
}

}  // namespace

// ---- shape of a page --------------------------------------------------------------------

TEST(Collection, FullPageThatIsNotLastSaysMorePagesAndGivesACursor) {
    collection_harness h;
    h.fill(10);
    auto env = h.page({});
    EXPECT_EQ(at(env, "complete"), false);
    EXPECT_EQ(at(env, "status"), "partial");
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"MORE_PAGES_AVAILABLE"});
    EXPECT_EQ(at(env, "continuation", "kind"), "next_cursor");
    EXPECT_FALSE(cursor_of(env).empty());
    EXPECT_EQ(ids_in(env), (std::vector<std::string>{id_of(1), id_of(2), id_of(3)}));
    EXPECT_FALSE(ag::may_infer_absence(env));
    EXPECT_EQ(ag::decide(env, ag::intent::read), ag::decision::continue_search);
}

TEST(Collection, PageExactlyFullButLastIsComplete) {
    collection_harness h;
    h.fill(6);
    auto first = h.page({});
    ASSERT_EQ(at(first, "complete"), false);
    auto last = h.page({{"cursor", cursor_of(first)}});
    EXPECT_EQ(at(last, "complete"), true);
    EXPECT_EQ(at(last, "status"), "complete");
    EXPECT_EQ(at(last, "continuation"), nullptr);
    EXPECT_EQ(ids_in(last).size(), 3u);
    EXPECT_TRUE(ag::may_infer_absence(last));
}

TEST(Collection, EmptyCollectionIsCompleteAndEmpty) {
    collection_harness h;
    auto env = h.page({});
    EXPECT_EQ(at(env, "complete"), true);
    EXPECT_EQ(at(env, "data"), boost::json::array{});
    EXPECT_EQ(at(env, "page", "returned"), 0);
    EXPECT_TRUE(ag::may_infer_absence(env));
}

TEST(Collection, PageExtensionStatesReturnedRequestedSizeOrderingAndSnapshot) {
    collection_harness h;
    h.fill(10);
    auto env = h.page({{"page_size", 4}});
    EXPECT_EQ(at(env, "page", "returned"), 4);
    EXPECT_EQ(at(env, "page", "requested_size"), 4);
    EXPECT_EQ(at(env, "page", "ordering"), "id");
    EXPECT_TRUE(at(env, "page", "snapshot").is_string());
    EXPECT_EQ(at(env, "scope", "snapshot"), "pinned");
    EXPECT_EQ(at(env, "scope", "visibility"), "principal:alice");
    EXPECT_EQ(at(env, "scope", "resource"), "items");
}

TEST(Collection, WalkDeliversEveryItemOnceInOrderAndOnlyTheLastPageIsComplete) {
    collection_harness h;
    h.fill(17);
    std::vector<std::string> seen;
    boost::json::object args{{"page_size", 4}};
    int pages = 0;
    for (;;) {
        auto env = h.page(args);
        ++pages;
        for (auto& id : ids_in(env)) seen.push_back(id);
        if (at(env, "complete") == true) {
            EXPECT_TRUE(has(env, "snapshot_token"));
            break;
        }
        EXPECT_FALSE(has(env, "snapshot_token")) << "a token only on the page that ends the walk";
        args["cursor"] = cursor_of(env);
        ASSERT_LT(pages, 10);
    }
    EXPECT_EQ(pages, 5);
    ASSERT_EQ(seen.size(), 17u);
    for (int i = 1; i <= 17; ++i) EXPECT_EQ(seen[static_cast<std::size_t>(i - 1)], id_of(i));
}

TEST(Collection, PagingArgumentsAreAddedToTheToolSchema) {
    collection_harness h;
    auto d = h.srv->describe_tool("items");
    auto props = at(d, "inputSchema", "properties");
    EXPECT_EQ(at(props, "page_size", "maximum"), 50);
    EXPECT_EQ(at(props, "page_size", "default"), 3);
    EXPECT_EQ(at(props, "cursor", "type"), "string");
    EXPECT_EQ(at(props, "deadline_ms", "type"), "integer");
    EXPECT_EQ(at(props, "group", "type"), "string");
    // The data schema is an array of items, with no boolean schema a client could refuse.
    auto data = at(d, "outputSchema", "properties");
    EXPECT_EQ(at(at(data, "data"), "type"), "array");
    EXPECT_EQ(at(at(data, "data"), "items"), boost::json::object{});
}

TEST(Collection, PageSizeAboveTheMaximumIsAContractError) {
    collection_harness h;
    auto env = h.page({{"page_size", 51}});
    EXPECT_EQ(at(env, "status"), "error");
}

// ---- cursor outcomes --------------------------------------------------------------------

TEST(Collection, TamperedCursorIsCursorInvalidAndRepairable) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({}));
    c[c.size() / 2] = c[c.size() / 2] == 'A' ? 'B' : 'A';
    auto env = h.page({{"cursor", c}});
    EXPECT_EQ(at(env, "status"), "error");
    EXPECT_EQ(first_error_code(env), "CURSOR_INVALID");
    auto err = at(env, "errors").as_array()[0];
    EXPECT_EQ(at(err, "path"), "/cursor");
    EXPECT_EQ(at(err, "repairable"), true);
    EXPECT_EQ(ag::decide(env, ag::intent::read), ag::decision::continue_search);
}

TEST(Collection, GarbageCursorIsCursorInvalid) {
    collection_harness h;
    EXPECT_EQ(first_error_code(h.page({{"cursor", "not-a-cursor!"}})), "CURSOR_INVALID");
    EXPECT_EQ(first_error_code(h.page({{"cursor", "AAAA"}})), "CURSOR_INVALID");
}

TEST(Collection, CursorWithAnotherQueryIsCursorMismatch) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({{"group", "g"}}));
    auto env = h.page({{"group", "other"}, {"cursor", c}});
    EXPECT_EQ(first_error_code(env), "CURSOR_MISMATCH");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "binding"), "query");
    // Page size is not part of the query: changing it keeps the cursor valid.
    EXPECT_EQ(at(h.page({{"group", "g"}, {"cursor", c}, {"page_size", 5}}), "status"), "partial");
}

TEST(Collection, CursorOfAnotherPrincipalIsCursorMismatch) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({}, "alice"));
    auto env = h.page({{"cursor", c}}, "mallory");
    EXPECT_EQ(first_error_code(env), "CURSOR_MISMATCH");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "binding"), "principal");
}

TEST(Collection, CursorOfAnotherToolIsCursorMismatch) {
    collection_harness h;
    h.fill(10);
    pg::collection_options o;
    o.keys = h.keys;
    o.default_page_size = 3;
    o.wall_clock = h.clocks.wall_fn();
    h.srv
        ->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info("other_items", "Same data, other tool."),
                                                         pg::ordering{{"id"}}, h.source, o))
        .value();
    auto c = cursor_of(h.page({}));
    auto env = h.call("other_items", {{"cursor", c}});
    EXPECT_EQ(first_error_code(env), "CURSOR_MISMATCH");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "binding"), "tool");
}

TEST(Collection, ExpiredCursorIsCursorExpiredWithRestartNeverASilentRestart) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({}));
    h.clocks.wall += std::chrono::minutes(16);
    auto env = h.page({{"cursor", c}});
    EXPECT_EQ(at(env, "status"), "error");
    EXPECT_EQ(first_error_code(env), "CURSOR_EXPIRED");
    EXPECT_EQ(at(env, "continuation", "kind"), "restart");
    EXPECT_FALSE(at(env, "data").is_array());
}

TEST(Collection, ForgottenSnapshotIsCursorExpired) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({}));
    h.source->put(item(11));
    h.source->forget_versions_before(h.source->version());
    auto env = h.page({{"cursor", c}});
    EXPECT_EQ(first_error_code(env), "CURSOR_EXPIRED");
    EXPECT_EQ(at(env, "continuation", "kind"), "restart");
}

// ---- snapshots --------------------------------------------------------------------------

TEST(Collection, PinnedWalkIgnoresChangesMadeAfterItsFirstPage) {
    collection_harness h;
    h.fill(6);
    auto first = h.page({});
    h.source->erase(boost::json::array{id_of(5)});
    h.source->put(item(4, "changed"));
    h.source->put(item(99));
    auto last = h.page({{"cursor", cursor_of(first)}});
    EXPECT_EQ(ids_in(last), (std::vector<std::string>{id_of(4), id_of(5), id_of(6)}));
    EXPECT_EQ(at(at(last, "data").as_array()[0], "group"), "g");
    EXPECT_EQ(at(last, "complete"), true);
}

TEST(Collection, LiveViewWarnsOnEveryPageAndIssuesNoToken) {
    collection_harness h(pg::snapshot_mode::live);
    h.fill(5);
    auto first = h.page({});
    EXPECT_EQ(at(first, "scope", "snapshot"), "live");
    EXPECT_EQ(at(at(first, "warnings").as_array()[0], "code"), "LIVE_VIEW");
    EXPECT_EQ(at(first, "page", "snapshot"), nullptr);
    h.source->put(item(99));
    auto last = h.page({{"cursor", cursor_of(first)}});
    EXPECT_EQ(at(last, "complete"), true);
    EXPECT_EQ(at(at(last, "warnings").as_array()[0], "code"), "LIVE_VIEW");
    EXPECT_FALSE(has(last, "snapshot_token"));
    EXPECT_EQ(ids_in(last).back(), id_of(99)) << "a live view sees inserts ahead of its position";
    EXPECT_EQ(ag::decide(last, ag::intent::destructive_change), ag::decision::refuse_or_request_review);
}

// ---- reasons on full and empty pages ----------------------------------------------------

TEST(Collection, ResultLimitReachedOnAFullPageStopsTheWalkWithTheLimit) {
    collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_walk_items = 3; });
    h.fill(10);
    auto env = h.page({});
    EXPECT_EQ(ids_in(env).size(), 3u);
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"RESULT_LIMIT_REACHED"});
    EXPECT_EQ(at(at(env, "incomplete_reasons").as_array()[0], "limit"), 3);
    EXPECT_EQ(at(env, "continuation", "kind"), "narrow_query");
    EXPECT_FALSE(has(env, "snapshot_token"));
    EXPECT_EQ(ag::decide(env, ag::intent::report), ag::decision::continue_search);
    EXPECT_EQ(ag::decide(env, ag::intent::destructive_change), ag::decision::refuse_or_request_review);
}

TEST(Collection, ResultLimitReachedOnAnEmptyPageIsStillIncomplete) {
    collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_walk_items = 0; });
    h.fill(2);
    auto env = h.page({});
    EXPECT_EQ(at(env, "data"), boost::json::array{});
    EXPECT_EQ(at(env, "complete"), false);
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"RESULT_LIMIT_REACHED"});
    EXPECT_FALSE(ag::may_infer_absence(env));
}

TEST(Collection, ResultLimitNotReachedWhenTheCollectionEndsAtTheLimit) {
    collection_harness h(pg::snapshot_mode::pinned, [](pg::collection_options& o) { o.max_walk_items = 3; });
    h.fill(3);
    EXPECT_EQ(at(h.page({}), "complete"), true);
}

TEST(Collection, TimeBudgetExceededOnAFullPageKeepsItemsAndResumes) {
    collection_harness h;
    h.fill(10);
    h.source->set_scan_hook([&] { h.clocks.steady += std::chrono::milliseconds(10); }, h.clocks.steady_fn());
    auto env = h.page({{"deadline_ms", 25}, {"page_size", 5}});
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"TIME_BUDGET_EXCEEDED"});
    auto reason = at(env, "incomplete_reasons").as_array()[0];
    EXPECT_EQ(at(reason, "pages"), 1);
    EXPECT_EQ(at(reason, "items_scanned"), 3);
    EXPECT_EQ(ids_in(env).size(), 3u);
    EXPECT_EQ(at(env, "continuation", "kind"), "next_cursor");
    auto rest = h.page({{"cursor", cursor_of(env)}, {"page_size", 50}});
    EXPECT_EQ(ids_in(rest).front(), id_of(4));
    EXPECT_EQ(at(rest, "complete"), true);
}

TEST(Collection, TimeBudgetExceededOnAnEmptyPageIsNotAbsence) {
    collection_harness h;
    for (int i = 1; i <= 5; ++i) h.source->put(item(i, "x"));
    for (int i = 6; i <= 8; ++i) h.source->put(item(i, "g"));
    h.source->set_scan_hook([&] { h.clocks.steady += std::chrono::milliseconds(10); }, h.clocks.steady_fn());
    auto env = h.page({{"group", "g"}, {"deadline_ms", 5}});
    EXPECT_EQ(at(env, "data"), boost::json::array{});
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"TIME_BUDGET_EXCEEDED"});
    EXPECT_FALSE(ag::may_infer_absence(env));
    EXPECT_EQ(ag::decide(env, ag::intent::read), ag::decision::continue_search);
}

TEST(Collection, RateLimitedPageIsEmptyWithRetryAfter) {
    collection_harness h;
    h.fill(5);
    h.source->set_fault([](std::size_t) {
        return std::optional<pg::source_error>(
            pg::source_error{pg::source_error::kind::rate_limited, "quota", std::chrono::milliseconds(2500)});
    });
    auto env = h.page({});
    EXPECT_EQ(at(env, "data"), boost::json::array{});
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"RATE_LIMITED"});
    EXPECT_EQ(at(at(env, "incomplete_reasons").as_array()[0], "retry_after_ms"), 2500);
    EXPECT_EQ(at(env, "continuation", "kind"), "retry_after");
    EXPECT_EQ(at(env, "continuation", "seconds"), 3);
    EXPECT_EQ(ag::decide(env, ag::intent::read), ag::decision::retry_later);
}

TEST(Collection, FailingSourceGivesSourceUnavailableAndACursorThatLosesNothing) {
    collection_harness h;
    h.fill(5);
    auto first = h.page({});
    h.source->set_fault([](std::size_t call) {
        return call == 1
                   ? std::optional<pg::source_error>(pg::source_error{pg::source_error::kind::unavailable, "down", {}})
                   : std::nullopt;
    });
    auto failed = h.page({{"cursor", cursor_of(first)}});
    EXPECT_EQ(at(failed, "data"), boost::json::array{});
    EXPECT_EQ(reason_codes(failed), std::vector<std::string>{"SOURCE_UNAVAILABLE"});
    EXPECT_EQ(at(at(failed, "incomplete_reasons").as_array()[0], "source"), "items_db");
    auto rest = h.page({{"cursor", cursor_of(failed)}});
    EXPECT_EQ(ids_in(rest), (std::vector<std::string>{id_of(4), id_of(5)}));
    EXPECT_EQ(at(rest, "complete"), true);
}

TEST(Collection, VisibilityRestrictedOnAFullPageNamesNoHiddenObject) {
    collection_harness h;
    h.fill(10);
    h.source->set_visibility([](const boost::json::object& i, const mcp::principal& p) {
        return p.id != "bob" || i.at("n").as_int64() % 2 == 0;
    });
    auto env = h.page({}, "bob");
    EXPECT_EQ(ids_in(env), (std::vector<std::string>{id_of(2), id_of(4), id_of(6)}));
    auto codes = reason_codes(env);
    EXPECT_NE(std::find(codes.begin(), codes.end(), "VISIBILITY_RESTRICTED"), codes.end());
    EXPECT_EQ(at(env, "scope", "visibility"), "principal:bob");
    const auto text = boost::json::serialize(env);
    EXPECT_EQ(text.find(id_of(1)), std::string::npos);
    EXPECT_EQ(text.find(id_of(3)), std::string::npos);
}

TEST(Collection, VisibilityRestrictedOnTheLastEmptyPageIsIncompleteWithoutContinuation) {
    collection_harness h;
    h.fill(4);
    h.source->set_visibility([](const boost::json::object&, const mcp::principal& p) { return p.id != "bob"; });
    auto env = h.page({}, "bob");
    EXPECT_EQ(at(env, "data"), boost::json::array{});
    EXPECT_EQ(at(env, "complete"), false);
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"VISIBILITY_RESTRICTED"});
    EXPECT_EQ(at(env, "continuation"), nullptr);
    EXPECT_FALSE(ag::may_infer_absence(env));
    EXPECT_EQ(ag::decide(env, ag::intent::report), ag::decision::refuse_or_request_review);
    EXPECT_EQ(ag::decide(env, ag::intent::destructive_change), ag::decision::refuse_or_request_review);
}

// ---- a source that breaks the keyset contract --------------------------------------------

namespace {
struct unordered_source final : pg::data_source {
    std::string_view name() const noexcept override { return "bad"; }
    pg::snapshot_mode snapshots() const noexcept override { return pg::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<pg::fetch_result, pg::source_error>> fetch(
        const pg::fetch_request&) override {
        pg::fetch_result r;
        r.items = {boost::json::object{{"id", "b"}}, boost::json::object{{"id", "a"}}};
        co_return r;
    }
};
}  // namespace

TEST(Collection, SourceReturningItemsOutOfOrderIsAnInternalErrorNotAPage) {
    collection_harness h;
    pg::collection_options o;
    o.keys = h.keys;
    h.srv
        ->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info("bad", "Unordered."), pg::ordering{{"id"}},
                                                         std::make_shared<unordered_source>(), o))
        .value();
    EXPECT_EQ(first_error_code(h.call("bad", {})), "INTERNAL_ERROR");
}

namespace {
// Counts purges and forwards everything to a memory store.
struct counting_store final : ev::evidence_store {
    std::shared_ptr<ev::evidence_store> inner = ev::make_memory_store();
    int purges = 0;
    void record(std::string_view w, std::span<const std::string> ids, candor::seal::wall_time until) override {
        inner->record(w, ids, until);
    }
    void close(std::string_view w, candor::seal::wall_time expiry) override { inner->close(w, expiry); }
    std::optional<std::vector<std::string>> uncovered(std::string_view w, std::span<const std::string> ids,
                                                      candor::seal::wall_time now) const override {
        return inner->uncovered(w, ids, now);
    }
    void purge(candor::seal::wall_time now) override {
        ++purges;
        inner->purge(now);
    }
};

// A memory store whose database can be down.
struct flaky_store final : ev::evidence_store {
    std::shared_ptr<ev::evidence_store> inner = ev::make_memory_store();
    bool down = false;
    void fail_if_down() const {
        if (down) throw ev::store_failure("evidence store: connection refused");
    }
    void record(std::string_view w, std::span<const std::string> ids, candor::seal::wall_time until) override {
        fail_if_down();
        inner->record(w, ids, until);
    }
    void close(std::string_view w, candor::seal::wall_time expiry) override {
        fail_if_down();
        inner->close(w, expiry);
    }
    std::optional<std::vector<std::string>> uncovered(std::string_view w, std::span<const std::string> ids,
                                                      candor::seal::wall_time now) const override {
        fail_if_down();
        return inner->uncovered(w, ids, now);
    }
    void purge(candor::seal::wall_time now) override { inner->purge(now); }
};
}  // namespace

// A page whose ids cannot be recorded is not delivered: nothing read, the same position again,
// so that no id reaches the caller without its evidence and the walk stays evidence when done.
TEST(Collection, APageWhoseEvidenceCannotBeRecordedDeliversNothingAndComesAgain) {
    auto store = std::make_shared<flaky_store>();
    collection_harness h(pg::snapshot_mode::pinned, [&](pg::collection_options& o) { o.evidence = store; });
    h.fill(10);
    auto first = h.page({{"page_size", 4}});
    ASSERT_EQ(ids_in(first).size(), 4u);
    store->down = true;
    auto failed = h.page({{"page_size", 4}, {"cursor", cursor_of(first)}});
    EXPECT_EQ(at(failed, "complete"), false);
    EXPECT_TRUE(ids_in(failed).empty());
    EXPECT_EQ(reason_codes(failed), std::vector<std::string>{"SOURCE_UNAVAILABLE"});
    EXPECT_EQ(at(at(failed, "incomplete_reasons").as_array()[0], "source"), "evidence store");
    EXPECT_FALSE(has(failed, "snapshot_token"));
    store->down = false;
    auto ids = ids_in(first);
    auto env = h.page({{"page_size", 4}, {"cursor", cursor_of(failed)}});
    for (int pages = 0; !has(env, "snapshot_token") && pages < 5; ++pages) {
        for (auto& id : ids_in(env)) ids.push_back(std::move(id));
        env = h.page({{"page_size", 4}, {"cursor", cursor_of(env)}});
    }
    for (auto& id : ids_in(env)) ids.push_back(std::move(id));
    std::vector<std::string> all;
    for (int i = 1; i <= 10; ++i) all.push_back(id_of(i));
    EXPECT_EQ(ids, all);  // each item once, in order: the failed page lost nothing
    ASSERT_TRUE(has(env, "snapshot_token"));
    EXPECT_EQ(at(env, "complete"), true);
}

TEST(Collection, PagesPurgeTheEvidenceStoreAtMostOncePerInterval) {
    auto store = std::make_shared<counting_store>();
    collection_harness h(pg::snapshot_mode::pinned, [&](pg::collection_options& o) {
        o.evidence = store;
        o.evidence_purge_interval = std::chrono::seconds(60);
    });
    h.fill(10);
    h.page({});
    h.page({});
    const int first = store->purges;
    EXPECT_LE(first, 1);
    h.page({});
    EXPECT_EQ(store->purges, first);  // within the interval: no second purge
    h.clocks.wall += std::chrono::seconds(61);
    h.page({});
    EXPECT_EQ(store->purges, first + 1);
}
