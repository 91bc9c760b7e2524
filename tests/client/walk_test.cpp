// SPDX-License-Identifier: BSL-1.0
// The client reads envelopes without trusting what it cannot read, and a walk is complete only
// when every page was read and the last said so: a server that always says "more" ends at the
// budget, a repeated cursor ends the walk, a gap on the way is not healed by a complete last page.
#include "client/client_support.hpp"

#include <boost/json/parse.hpp>

namespace candor::test {
namespace {

using boost::json::array;
using boost::json::object;

object envelope(bool complete, array data, const std::vector<std::string>& reasons, const std::string& cursor,
                const std::string& token = {}) {
    array r;
    for (const auto& code : reasons) r.push_back(object{{"code", code}, {"message", code + " happened"}});
    object e{{"status", complete ? "complete" : "partial"},
             {"complete", complete},
             {"incomplete_reasons", std::move(r)},
             {"continuation", cursor.empty() ? boost::json::value()
                                             : boost::json::value(object{{"kind", "next_cursor"}, {"cursor", cursor}})},
             {"scope", object{{"resource", "t"}, {"visibility", "caller"}, {"snapshot", "pinned"}}},
             {"warnings", array{}},
             {"data", std::move(data)}};
    if (!token.empty()) e["snapshot_token"] = token;
    return e;
}

// The page a cursor names: "" is page 1, "p2" page 2, …
int page_of(const object& args) {
    const auto* c = args.if_contains("cursor");
    return c && c->is_string() ? std::stoi(std::string(c->get_string()).substr(1)) : 1;
}

void add_tools(mcp::server& s) {
    // Three pages of two items; the last complete, with a snapshot token.
    envelope_server::add(s, "three_pages", [](const object& args) {
        const int p = page_of(args);
        array items{p * 10 + 1, p * 10 + 2};
        if (p < 3) return envelope(false, items, {"MORE_PAGES_AVAILABLE"}, "p" + std::to_string(p + 1));
        return envelope(true, items, {}, {}, "token-3");
    });
    // Always one more page, each cursor new.
    envelope_server::add(s, "always_more", [](const object& args) {
        const int p = page_of(args);
        return envelope(false, array{p}, {"MORE_PAGES_AVAILABLE"}, "p" + std::to_string(p + 1));
    });
    // Page 2 gives the cursor of page 2 again.
    envelope_server::add(s, "loop", [](const object& args) {
        return envelope(false, array{page_of(args)}, {"MORE_PAGES_AVAILABLE"}, "p2");
    });
    // Page 1 hides rows from the caller; page 2 says complete.
    envelope_server::add(s, "gap", [](const object& args) {
        if (page_of(args) == 1)
            return envelope(false, array{1}, {"VISIBILITY_RESTRICTED", "MORE_PAGES_AVAILABLE"}, "p2");
        return envelope(true, array{2}, {}, {});
    });
    // Page 1 cut to its byte budget at an item (goes on); page 2 complete.
    envelope_server::add(s, "cut", [](const object& args) {
        if (page_of(args) == 2) return envelope(true, array{2}, {}, {});
        auto e = envelope(false, array{1}, {}, "p2");
        e["incomplete_reasons"] =
            array{object{{"code", "RESULT_SIZE_LIMIT"}, {"message", "cut"}, {"limit", 100}, {"returned", 1}}};
        return e;
    });
    // Page 2 is not an envelope one can read.
    envelope_server::add(s, "garbled", [](const object& args) {
        if (page_of(args) == 1) return envelope(false, array{1}, {"MORE_PAGES_AVAILABLE"}, "p2");
        return object{{"status", "complete"}, {"complete", "yes"}};
    });
    // Page 2 fails.
    envelope_server::add(s, "fails", [](const object& args) {
        if (page_of(args) == 1) return envelope(false, array{1, 2}, {"MORE_PAGES_AVAILABLE"}, "p2");
        return object{{"status", "error"},
                      {"complete", false},
                      {"incomplete_reasons", array{}},
                      {"continuation", nullptr},
                      {"warnings", array{}},
                      {"errors", array{object{{"code", "SOURCE_UNAVAILABLE"},
                                              {"path", ""},
                                              {"message", "down"},
                                              {"repairable", false},
                                              {"layer", "external"}}}}};
    });
}

cc::walk_result walk(const std::string& url, const char* tool, object args = {}, cc::walk_budget budget = {}) {
    cc::walk_result out;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(url));
        if (!s) {
            ADD_FAILURE() << s.error().code << ": " << s.error().message;
            co_return;
        }
        out = co_await cc::collect(**s, tool, std::move(args), budget);
        co_await (*s)->close();
    });
    return out;
}

std::vector<std::string> codes(const std::vector<cc::entry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.code);
    return out;
}

class Walk : public ::testing::Test {
protected:
    envelope_server server{add_tools};
};

TEST_F(Walk, EveryPageReadAndTheLastCompleteIsAWholeWalk) {
    auto w = walk(server.url(), "three_pages");
    EXPECT_TRUE(w.complete);
    EXPECT_EQ(w.calls, 3u);
    EXPECT_EQ(w.items, (std::vector<boost::json::value>{11, 12, 21, 22, 31, 32}));
    ASSERT_EQ(codes(w.reasons), std::vector<std::string>{"MORE_PAGES_AVAILABLE"});
    EXPECT_EQ(w.reasons[0].fields.at("pages"), 2);
    EXPECT_EQ(w.snapshot_token, "token-3");
    EXPECT_EQ(w.next, agent::decision::proceed);
    EXPECT_TRUE(w.resume_cursor.empty());
}

TEST_F(Walk, AServerThatAlwaysSaysMoreEndsAtTheBudgetNeverInALoop) {
    auto w = walk(server.url(), "always_more", {}, {.max_calls = 5});
    EXPECT_FALSE(w.complete);
    EXPECT_EQ(w.calls, 5u);
    EXPECT_EQ(w.items.size(), 5u);
    EXPECT_EQ(codes(w.reasons), (std::vector<std::string>{"MORE_PAGES_AVAILABLE", "CLIENT_PAGE_LIMIT"}));
    EXPECT_EQ(w.reasons[1].fields.at("limit"), "max_calls");
    EXPECT_EQ(w.resume_cursor, "p6");
    EXPECT_EQ(w.next, agent::decision::continue_search);
    // Items count too: the walk stops after the page that reached the limit.
    auto by_items = walk(server.url(), "always_more", {}, {.max_items = 3});
    EXPECT_EQ(by_items.calls, 3u);
    EXPECT_EQ(by_items.reasons.back().fields.at("limit"), "max_items");
}

TEST_F(Walk, ACursorGivenTwiceEndsTheWalk) {
    auto w = walk(server.url(), "loop");
    EXPECT_FALSE(w.complete);
    EXPECT_EQ(w.calls, 2u);
    EXPECT_EQ(codes(w.reasons), (std::vector<std::string>{"MORE_PAGES_AVAILABLE", "CURSOR_REPEATED"}));
}

TEST_F(Walk, AGapOnTheWayIsNotHealedByACompleteLastPage) {
    auto w = walk(server.url(), "gap");
    EXPECT_FALSE(w.complete);
    EXPECT_EQ(w.items.size(), 2u);
    EXPECT_EQ(codes(w.reasons), (std::vector<std::string>{"VISIBILITY_RESTRICTED", "MORE_PAGES_AVAILABLE"}));
    EXPECT_EQ(w.next, agent::decision::refuse_or_request_review);
}

TEST_F(Walk, APageCutAtAnItemGoesOnAndTheWalkCanBeComplete) {
    auto w = walk(server.url(), "cut");
    EXPECT_TRUE(w.complete);
    EXPECT_EQ(codes(w.reasons), std::vector<std::string>{"RESULT_SIZE_LIMIT"});
}

TEST_F(Walk, AnUnreadablePageOrAnErrorEndsTheWalkAndKeepsWhatCameBefore) {
    auto garbled = walk(server.url(), "garbled");
    EXPECT_FALSE(garbled.complete);
    EXPECT_EQ(garbled.items.size(), 1u);
    EXPECT_EQ(codes(garbled.reasons).back(), "ENVELOPE_UNREADABLE");
    auto fails = walk(server.url(), "fails");
    EXPECT_FALSE(fails.complete);
    EXPECT_EQ(fails.items.size(), 2u);
    EXPECT_EQ(codes(fails.reasons).back(), "SOURCE_UNAVAILABLE");
    auto unknown = walk(server.url(), "no_such_tool");
    EXPECT_FALSE(unknown.complete);
    EXPECT_EQ(codes(unknown.reasons), std::vector<std::string>{"RPC_ERROR"});
}

TEST_F(Walk, AWalkThatStartsFromACursorIsNotAWholeWalk) {
    auto w = walk(server.url(), "three_pages", object{{"cursor", "p2"}});
    EXPECT_FALSE(w.complete);
    EXPECT_EQ(w.items.size(), 4u);
    EXPECT_EQ(codes(w.reasons).front(), "WALK_NOT_FROM_START");
}

TEST(Envelope, WhatCannotBeReadIsNeitherCompleteNorEvidence) {
    const auto read = [](const char* text) { return cc::read_envelope(boost::json::parse(text)); };
    auto ok = read(R"({"status":"complete","complete":true,"incomplete_reasons":[],"warnings":[],"data":[1]})");
    EXPECT_TRUE(ok.readable);
    EXPECT_TRUE(ok.complete);
    for (const char* bad : {
             R"([])",
             R"({"status":"complete","complete":"true","incomplete_reasons":[],"warnings":[]})",
             R"({"status":"partial","complete":true,"incomplete_reasons":[],"warnings":[]})",
             R"({"status":"complete","complete":false,"incomplete_reasons":[],"warnings":[]})",
             R"({"status":"partial","complete":false,"incomplete_reasons":[],"warnings":[]})",
             R"({"status":"error","complete":false,"incomplete_reasons":[],"warnings":[],"errors":[]})",
             R"({"status":"partial","complete":false,"incomplete_reasons":[{"message":"no code"}],"warnings":[]})",
             R"({"status":"partial","complete":false,"incomplete_reasons":[{"code":"X"}],"warnings":[],
                 "continuation":{"kind":"next_cursor"}})",
             R"({"status":"complete","complete":true,"incomplete_reasons":[],"warnings":[],
                 "continuation":{"kind":"next_cursor","cursor":"c"}})",
             R"({"status":"done","complete":true,"incomplete_reasons":[],"warnings":[]})",
             R"({"status":"complete","complete":true,"incomplete_reasons":[]})",
         }) {
        auto v = read(bad);
        EXPECT_FALSE(v.readable) << bad;
        EXPECT_FALSE(v.complete) << bad;
    }
    auto partial = read(R"({"status":"partial","complete":false,"incomplete_reasons":[{"code":"X","message":"m"}],
                            "warnings":[{"code":"W"}],"continuation":{"kind":"next_cursor","cursor":"c1"},
                            "snapshot_token":"t"})");
    EXPECT_TRUE(partial.readable);
    EXPECT_EQ(partial.next_cursor, "c1");
    EXPECT_EQ(partial.incomplete_reasons.at(0).message, "m");
    EXPECT_EQ(partial.warnings.at(0).code, "W");
    EXPECT_EQ(partial.snapshot_token, "t");
}

}  // namespace
}  // namespace candor::test
