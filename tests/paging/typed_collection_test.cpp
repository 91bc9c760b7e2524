// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/typed_collection.hpp>

#include <candor/paging/aggregate.hpp>

#include "paging/support.hpp"

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace books {

enum class shelf { fiction, science };
BOOST_DESCRIBE_ENUM(shelf, fiction, science)

struct book {
    std::int64_t id = 0;
    std::string title;
    shelf on = shelf::fiction;
    std::optional<std::string> author;
};
BOOST_DESCRIBE_STRUCT(book, (), (id, title, on, author))

struct book_query {
    std::optional<shelf> on;
    int min_id = 0;
};
BOOST_DESCRIBE_STRUCT(book_query, (), (on, min_id))

inline void describe_contract(candor::contract::spec<book_query>& s) {
    s.field(&book_query::on).description("Only books on this shelf");
    s.field(&book_query::min_id).description("Only books from this id on").range(0, 1'000'000).optional();
}

// 1,000 books in id order, filtered by the typed query.
struct library final : candor::paging::query_source<book_query, book> {
    std::vector<book> rows;
    std::atomic<int> fetches{0};
    std::optional<book_query> last_query;
    // The queries the fetches got: the one prepared for the walk (its address), or null when a
    // fetch converted its own.
    std::set<const void*> prepared_seen;

    library() {
        for (std::int64_t i = 1; i <= 1000; ++i)
            rows.push_back({i, "Book " + std::to_string(i), i % 2 ? shelf::fiction : shelf::science,
                            i % 10 ? std::optional<std::string>("Author " + std::to_string(i % 7)) : std::nullopt});
    }
    std::string_view name() const noexcept override { return "library"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    page_result fetch_matching(const book_query& q, const candor::paging::fetch_request& r) override {
        ++fetches;
        last_query = q;
        prepared_seen.insert(r.prepared == &q ? r.prepared : nullptr);
        page out;
        auto it = rows.begin();
        if (r.after)
            it = std::upper_bound(rows.begin(), rows.end(), r.after->at(0).to_number<std::int64_t>(),
                                  [](std::int64_t k, const book& b) { return k < b.id; });
        for (; it != rows.end() && out.items.size() < r.limit; ++it)
            if ((!q.on || it->on == *q.on) && it->id >= q.min_id) out.items.push_back(*it);
        co_return out;
    }
};

struct bad_query {
    std::string cursor;
};
BOOST_DESCRIBE_STRUCT(bad_query, (), (cursor))

struct bad_source final : candor::paging::query_source<bad_query, book> {
    std::string_view name() const noexcept override { return "bad"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    page_result fetch_matching(const bad_query&, const candor::paging::fetch_request&) override { co_return page{}; }
};

}  // namespace books

using namespace candor::test;

namespace {

struct typed_library {
    std::shared_ptr<books::library> source = std::make_shared<books::library>();
    collection_harness h;
    typed_library() {
        pg::collection_options o;
        o.keys = h.keys;
        o.default_page_size = 100;
        o.max_page_size = 100;
        pg::add_collection(*h.srv, mcp::tool_info("books", "Lists books."), pg::ordering{{"id"}}, source, o).value();
    }
};

}  // namespace

TEST(TypedCollection, InputSchemaIsTheQueryContractWithThePagingArguments) {
    typed_library t;
    auto d = t.h.srv->describe_tool("books");
    auto props = at(at(d, "inputSchema"), "properties");
    EXPECT_EQ(at(at(props, "on"), "enum"), (boost::json::array{"fiction", "science"}));
    EXPECT_EQ(at(at(props, "min_id"), "maximum"), 1'000'000);
    EXPECT_TRUE(has(props, "cursor"));
    EXPECT_TRUE(has(props, "page_size"));
    EXPECT_EQ(at(at(d, "inputSchema"), "additionalProperties"), false);
    // A collection only reads.
    EXPECT_EQ(at(at(d, "annotations"), "readOnlyHint"), true);
}

TEST(TypedCollection, ItemSchemaIsGeneratedFromTheItemType) {
    typed_library t;
    auto d = t.h.srv->describe_tool("books");
    auto items = at(at(at(at(d, "outputSchema"), "properties"), "data"), "items");
    auto props = at(items, "properties");
    EXPECT_EQ(at(at(props, "id"), "type"), "integer");
    EXPECT_EQ(at(at(props, "on"), "enum"), (boost::json::array{"fiction", "science"}));
    // value_from writes an empty optional as null.
    EXPECT_EQ(at(props, "author"),
              (boost::json::value{{"anyOf", boost::json::array{{{"type", "string"}}, {{"type", "null"}}}}}));
    EXPECT_EQ(at(items, "required"), (boost::json::array{"id", "title", "on", "author"}));
}

TEST(TypedCollection, WalksAThousandRecordsWithTheTypedQuery) {
    typed_library t;
    std::vector<std::int64_t> seen;
    boost::json::object args{{"on", "science"}, {"min_id", 101}};
    for (int pages = 0; pages < 20; ++pages) {
        auto env = t.h.call("books", args);
        const auto data = at(env, "data");
        for (const auto& b : data.as_array()) {
            EXPECT_EQ(at(b, "on"), "science");
            seen.push_back(at(b, "id").to_number<std::int64_t>());
        }
        if (at(env, "complete") == true) break;
        args["cursor"] = at(env, "continuation", "cursor");
    }
    ASSERT_EQ(seen.size(), 450u);  // the even ids from 102 to 1000
    EXPECT_EQ(seen.front(), 102);
    EXPECT_EQ(seen.back(), 1000);
    ASSERT_TRUE(t.source->last_query);
    EXPECT_EQ(t.source->last_query->min_id, 101);
    EXPECT_EQ(t.source->last_query->on, books::shelf::science);
}

TEST(TypedCollection, AQueryTheContractRefusesNeverReachesTheSource) {
    typed_library t;
    auto env = t.h.call("books", {{"on", "poetry"}, {"min_id", -1}});
    EXPECT_EQ(at(env, "status"), "error");
    EXPECT_EQ(at(env, "errors").as_array().size(), 2u);
    EXPECT_EQ(t.source->fetches.load(), 0);
}

TEST(TypedCollection, AQueryMemberNamedLikeAPagingArgumentIsRefusedAtConstruction) {
    collection_harness h;
    pg::collection_options o;
    o.keys = h.keys;
    EXPECT_THROW(pg::make_collection(mcp::tool_info("bad", "Bad."), pg::ordering{{"id"}},
                                     std::make_shared<books::bad_source>(), o),
                 std::invalid_argument);
}

// A walk of many pages in one call converts its query once: every fetch gets the same Query.
TEST(TypedCollection, AWalkOfManyPagesConvertsItsQueryOnce) {
    auto source = std::make_shared<books::library>();
    collection_harness h;
    pg::collection_options o;
    o.keys = h.keys;
    auto tool = pg::make_collection(mcp::tool_info("books", "Lists books."), pg::ordering{{"id"}}, source, o);
    boost::asio::io_context ioc;
    pg::walk_request r;
    r.query = boost::json::object{{"on", "science"}, {"min_id", 100}};
    r.caller = {"alice"};
    r.limits.page_size = 50;
    r.limits.max_pages = 20;
    auto e = run(ioc, pg::walk_all(*tool, std::move(r)));
    EXPECT_TRUE(e.complete);
    ASSERT_TRUE(e.data && e.data->is_array());
    EXPECT_EQ(e.data->as_array().size(), 451u);  // the even ids from 100 to 1000
    EXPECT_GT(source->fetches.load(), 5);
    ASSERT_EQ(source->prepared_seen.size(), 1u);
    EXPECT_NE(*source->prepared_seen.begin(), nullptr);
    ASSERT_TRUE(source->last_query);
    EXPECT_EQ(source->last_query->min_id, 100);
}
