// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/typed_source.hpp>

#include "paging/support.hpp"

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <candor/envelope/envelope.hpp>
#include <candor/json/write.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/monotonic_resource.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace typed_items {

struct account {
    std::string id;
    std::string team;
    int age_days = 0;
};
BOOST_DESCRIBE_STRUCT(account, (), (id, team, age_days))

// A typed keyset source over a sorted vector.
struct accounts final : candor::paging::typed_source<account> {
    std::vector<account> rows;
    std::string_view name() const noexcept override { return "accounts"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request& r) override {
        candor::paging::typed_page<account> out;
        auto it = rows.begin();
        if (r.after)
            it = std::upper_bound(rows.begin(), rows.end(), std::string_view(r.after->at(0).as_string()),
                                  [](std::string_view k, const account& a) { return k < a.id; });
        for (; it != rows.end() && out.items.size() < r.limit; ++it) out.items.push_back(*it);
        co_return out;
    }
};

}  // namespace typed_items

using namespace candor::test;

namespace {

// Five accounts, svc-001 … svc-005, of one team.
std::shared_ptr<typed_items::accounts> five_accounts(const std::string& team) {
    auto src = std::make_shared<typed_items::accounts>();
    for (int i = 1; i <= 5; ++i) src->rows.push_back({"svc-00" + std::to_string(i), team, i * 10});
    return src;
}

pg::collection_options pages_of_three(const collection_harness& h) {
    pg::collection_options o;
    o.keys = h.keys;
    o.default_page_size = 3;
    return o;
}

}  // namespace

TEST(TypedSource, TypedItemsArePagedAsJsonObjects) {
    collection_harness h;
    auto src = five_accounts("team-a");
    auto o = pages_of_three(h);
    h.srv
        ->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}},
                                                         src, o))
        .value();
    auto first = h.call("accounts", {});
    ASSERT_EQ(at(first, "data").as_array().size(), 3u);
    EXPECT_EQ(at(at(first, "data").as_array()[0], "age_days"), 10);
    auto rest = h.call("accounts", {{"cursor", at(first, "continuation", "cursor")}});
    EXPECT_EQ(at(rest, "complete"), true);
    EXPECT_EQ(at(at(rest, "data").as_array()[1], "id"), "svc-005");
}

TEST(TypedSource, APageLivesInOneArenaAndTheEnvelopeAdoptsIt) {
    typed_items::accounts src;
    for (int i = 1; i <= 3; ++i) src.rows.push_back({"svc-00" + std::to_string(i), "team-a", i});
    boost::asio::io_context io;
    std::optional<pg::fetch_result> got;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
            const boost::json::object query;
            const std::string snapshot;
            const candor::mcp::principal caller;
            const pg::fetch_request r{query,    nullptr, 10,
                                      snapshot, caller,  std::chrono::steady_clock::now() + std::chrono::seconds(5)};
            auto f = co_await src.fetch(r);
            if (f) got = std::move(*f);
        },
        boost::asio::detached);
    io.run();
    ASSERT_TRUE(got);
    ASSERT_EQ(got->items.size(), 3u);
    // A shared (self-owning) arena, and every item in it.
    EXPECT_TRUE(got->storage.is_shared());
    for (const auto& item : got->items) EXPECT_EQ(item.storage().get(), got->storage.get());
    EXPECT_EQ(got->items[1].at("team"), "team-a");
    EXPECT_EQ(got->items[2].at("age_days"), 3);

    // The sealed envelope is built in the data's arena, so the data is moved into it, not copied;
    // data in a storage that does not own itself (an argument document's) is not adopted.
    boost::json::array data(got->storage);
    for (auto& i : got->items) data.push_back(std::move(i));
    auto sealed = candor::envelope::seal(candor::envelope::complete(std::move(data)), "accounts").value();
    EXPECT_EQ(sealed.storage().get(), got->storage.get());
    EXPECT_EQ(sealed.at("data").as_array().size(), 3u);
    boost::json::monotonic_resource borrowed;
    const boost::json::storage_ptr not_owned(&borrowed);
    boost::json::array other(not_owned);
    other.push_back(1);
    auto plain = candor::envelope::seal(candor::envelope::complete(std::move(other)), "accounts").value();
    EXPECT_NE(plain.storage().get(), not_owned.get());
}

// ---- items written straight to the wire ------------------------------------------------------

namespace typed_items {

enum class colour { red, green };
BOOST_DESCRIBE_ENUM(colour, red, green)

struct inner {
    std::string a;
    int b = 0;
};
BOOST_DESCRIBE_STRUCT(inner, (), (a, b))

// Every kind of member the direct writer handles itself or hands to value_from.
struct wide {
    std::string id;
    std::string note;
    std::string_view label;
    bool flag = false;
    int n = 0;
    unsigned u = 0;
    std::int64_t big = 0;
    std::uint64_t huge = 0;
    short small = 0;
    double d = 0;
    float f = 0;
    std::optional<std::string> maybe;
    colour c = colour::red;
    std::vector<int> list;
    inner nested;
};
BOOST_DESCRIBE_STRUCT(wide, (), (id, note, label, flag, n, u, big, huge, small, d, f, maybe, c, list, nested))

// A type with a conversion of its own: written through it.
struct custom {
    std::string id;
};
void tag_invoke(boost::json::value_from_tag, boost::json::value& jv, const custom& c) {
    jv = {{"id", c.id}, {"kind", "custom"}};
}

// A member name repeated through a base: the base's is hidden (not described), in the tree
// and in the text alike.
struct base_part {
    std::string id;
};
BOOST_DESCRIBE_STRUCT(base_part, (), (id))
struct shadowing : base_part {
    std::string id;
};
BOOST_DESCRIBE_STRUCT(shadowing, (base_part), (id))

template <class T>
std::string written_text(const T& item) {
    std::string out;
    candor::json::text_sink sink(out);
    EXPECT_TRUE(candor::paging::detail::write_item(item, sink));
    return out;
}

template <class T>
std::string tree_text(const T& item) {
    return candor::json::to_string(candor::paging::detail::item_to_json(item, {})).value();
}

}  // namespace typed_items

namespace typed_items {

// Every kind of member set to something other than its default.
wide a_wide() {
    wide w;
    w.id = "T-000001";
    w.note = "a \"quoted\" back\\slash, a\nnewline, a tab\t, \x01, é, 😀 and a long tail past sixteen bytes";
    w.label = "view";
    w.flag = true;
    w.n = -42;
    w.u = 4'000'000'000u;
    w.big = -9'007'199'254'740'993;
    w.huge = std::numeric_limits<std::uint64_t>::max();
    w.small = -32'768;
    w.d = 3.0;  // stays a double: "3.0"
    w.f = 0.1f;
    w.c = colour::green;
    w.list = {1, 2, 3};
    w.nested = {"x", 7};
    return w;
}

}  // namespace typed_items

TEST(TypedSource, AnItemWrittenDirectlyIsByteForByteTheTreesText) {
    using namespace typed_items;
    wide w = a_wide();
    EXPECT_EQ(written_text(w), tree_text(w));
    w.maybe = "set";
    w.big = std::numeric_limits<std::int64_t>::min();
    w.n = 0;
    w.d = 0.1;
    w.list.clear();
    EXPECT_EQ(written_text(w), tree_text(w));
    EXPECT_TRUE(candor::paging::detail::writes_directly<wide>);

    EXPECT_FALSE(candor::paging::detail::writes_directly<custom>);
    EXPECT_EQ(written_text(custom{"c-1"}), tree_text(custom{"c-1"}));

    EXPECT_TRUE(candor::paging::detail::writes_directly<shadowing>);
    shadowing s;
    s.base_part::id = "from-base";
    s.id = "from-derived";
    EXPECT_EQ(written_text(s), tree_text(s));
    EXPECT_EQ(written_text(s), R"({"id":"from-derived"})");
}

// The key a written page reports for an ordering field is the value the item's tree holds for
// it: each member is found once per page (member_index) and read by position (member_value). A
// type with a conversion of its own is not read member by member (its tree is looked up).
TEST(TypedSource, AWrittenItemsKeyFieldsAreItsTreesValues) {
    using namespace typed_items;
    using candor::paging::detail::member_index;
    using candor::paging::detail::member_value;
    wide w = a_wide();
    w.maybe = "set";
    const auto tree = candor::paging::detail::item_to_json(w, {});
    for (const auto& kv : tree.as_object()) {
        const auto i = member_index<wide>(kv.key());
        ASSERT_TRUE(i) << kv.key();
        EXPECT_EQ(member_value(w, *i), kv.value()) << kv.key();
    }
    EXPECT_FALSE(member_index<wide>("absent"));
    EXPECT_FALSE(member_index<custom>("id"));
    shadowing s;
    s.base_part::id = "from-base";
    s.id = "from-derived";
    const auto i = member_index<shadowing>("id");
    ASSERT_TRUE(i);
    EXPECT_EQ(member_value(s, *i), "from-derived");
}

TEST(TypedSource, AnItemThatCannotBeWrittenFailsAsTheTreeWould) {
    typed_items::wide w;
    w.note = "bad \xC3 UTF-8";
    std::string out;
    {
        candor::json::text_sink sink(out);
        EXPECT_EQ(candor::paging::detail::write_item(w, sink).error(), candor::json::write_error::invalid_utf8);
    }
    EXPECT_FALSE(candor::json::to_string(candor::paging::detail::item_to_json(w, {})));
    w.note.clear();
    w.d = std::numeric_limits<double>::infinity();
    candor::json::text_sink sink(out);
    EXPECT_EQ(candor::paging::detail::write_item(w, sink).error(), candor::json::write_error::non_finite_number);
}

namespace {

// Serves one page of a typed collection directly (no MCP), asking for values or for text.
pg::page serve_page(pg::collection_tool& tool, boost::json::object args, bool written) {
    boost::asio::io_context io;
    pg::page_request r;
    r.caller = {"alice"};
    r.written = written;
    for (const auto& kv : args) {
        if (kv.key() == "page_size") r.page_size = kv.value().to_number<std::size_t>();
        else if (kv.key() == "cursor") r.cursor = std::string(kv.value().as_string());
    }
    return candor::test::run(io, tool.serve(std::move(r)));
}

}  // namespace

TEST(TypedSource, AWrittenPageHoldsTheSameItemsAsAPageOfValuesWithoutTheLookAhead) {
    collection_harness h;
    auto src = five_accounts("team \"a\"");
    pg::collection_tool tool(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}}, src, pages_of_three(h));

    auto as_values = serve_page(tool, {}, false);
    auto as_text = serve_page(tool, {}, true);
    ASSERT_TRUE(as_values.result.data);
    EXPECT_FALSE(as_values.result.data_written);
    ASSERT_TRUE(as_text.result.data_written);
    EXPECT_FALSE(as_text.result.data);
    // Three of the four items fetched (one looked ahead), the same as values and as text.
    EXPECT_EQ(candor::envelope::data_value(as_text.result), *as_values.result.data);
    EXPECT_EQ(as_values.result.data->as_array().size(), 3u);
    EXPECT_EQ(as_text.result.data_written->text(), candor::json::to_string(*as_values.result.data).value());
    // The same walk position and verdict.
    EXPECT_EQ(as_text.state->after, as_values.state->after);
    EXPECT_EQ(as_text.result.complete, as_values.result.complete);
    EXPECT_TRUE(as_text.next_cursor);

    // The last page, and an empty one.
    auto last = serve_page(tool, {{"cursor", *as_text.next_cursor}}, true);
    EXPECT_EQ(candor::envelope::data_value(last.result)->as_array().size(), 2u);
    EXPECT_EQ(last.result.complete, true);
    src->rows.clear();
    auto empty = serve_page(tool, {}, true);
    EXPECT_EQ(empty.result.data_written->text(), "[]");
    EXPECT_EQ(empty.result.complete, true);
}

// A page's JSON is built where its query lives: a tools/call page keeps its query, its `page`
// extension and the envelope's extensions object in one arena (Boost.JSON allocates every key
// and table otherwise), and nothing put into them is copied out of it.
TEST(TypedSource, APagesExtensionsAreBuiltWhereItsQueryLives) {
    collection_harness h;
    pg::collection_tool tool(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}}, five_accounts("t"),
                             pages_of_three(h));
    boost::asio::io_context io;
    auto arena = boost::json::make_shared_resource<boost::json::monotonic_resource>();
    pg::page_request r{.query = boost::json::object(arena)};
    r.caller = {"alice"};
    r.written = true;
    auto p = candor::test::run(io, tool.serve(std::move(r)));
    EXPECT_EQ(p.result.extensions.storage().get(), arena.get());
    const auto* page = p.result.extensions.if_contains("page");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->storage().get(), arena.get());
    EXPECT_EQ(at(*page, "returned"), 3);
    EXPECT_EQ(at(*page, "ordering"), "id");
    // Without one (in-process callers), the heap, as before.
    auto plain = serve_page(tool, {}, true);
    EXPECT_EQ(plain.result.extensions.storage().get(), boost::json::storage_ptr().get());
}

// Ordered by three fields of different kinds: the written page ends where the page of values
// does (its last key, member by member).
TEST(TypedSource, AWrittenPageOverSeveralOrderingFieldsEndsWhereAPageOfValuesDoes) {
    collection_harness h;
    auto src = five_accounts("t");  // ages 10…50 in id order: (team, age_days, id) is id order
    pg::collection_tool tool(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"team", "age_days", "id"}}, src,
                             pages_of_three(h));
    auto as_values = serve_page(tool, {}, false);
    auto as_text = serve_page(tool, {}, true);
    ASSERT_TRUE(as_values.state);
    ASSERT_TRUE(as_text.state);
    EXPECT_EQ(as_values.state->after, (boost::json::array{"t", 30, "svc-003"}));
    EXPECT_EQ(as_text.state->after, as_values.state->after);
    EXPECT_EQ(candor::envelope::data_value(as_text.result), *as_values.result.data);
}

namespace typed_items {

struct unkeyed {
    std::string name;
};
BOOST_DESCRIBE_STRUCT(unkeyed, (), (name))

// Items without the ordering field, or out of order: bugs of the source.
struct broken final : candor::paging::typed_source<account> {
    bool out_of_order = false;
    std::string_view name() const noexcept override { return "broken"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request&) override {
        candor::paging::typed_page<account> out;
        out.items = {{"b", "t", 1}, {out_of_order ? "a" : "c", "t", 2}};
        co_return out;
    }
};

struct unkeyed_source final : candor::paging::typed_source<unkeyed> {
    std::string_view name() const noexcept override { return "unkeyed"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<unkeyed>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request&) override {
        candor::paging::typed_page<unkeyed> out;
        out.items = {{"x"}};
        co_return out;
    }
};

}  // namespace typed_items

namespace {

// Serves `source` as the collection tool `name` (ordered by id) on the harness's server.
void add_collection(collection_harness& h, const std::string& name, std::shared_ptr<pg::data_source> source) {
    pg::collection_options o;
    o.keys = h.keys;
    h.srv
        ->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info(name, "A collection."), pg::ordering{{"id"}},
                                                         std::move(source), o))
        .value();
}

bool is_internal_error(const boost::json::value& env) {
    return at(env, "status") == "error" && at(at(env, "errors").as_array()[0], "code") == "INTERNAL_ERROR";
}

}  // namespace

TEST(TypedSource, WrittenItemsWithoutTheirKeyOrOutOfOrderAreAnInternalErrorNotAPage) {
    collection_harness h;
    auto broken = std::make_shared<typed_items::broken>();
    add_collection(h, "broken", broken);
    add_collection(h, "unkeyed", std::make_shared<typed_items::unkeyed_source>());
    EXPECT_EQ(at(h.call("broken", {}), "status"), "complete");  // in order: a page
    broken->out_of_order = true;
    EXPECT_TRUE(is_internal_error(h.call("broken", {})));
    EXPECT_TRUE(is_internal_error(h.call("unkeyed", {})));
}

namespace typed_items {

// A source that writes its page by hand (not a typed_source): what it reports is checked.
struct hand_written final : candor::paging::data_source {
    std::string text = R"([{"id":"a"}])";
    std::vector<std::size_t> ends{11};
    std::string_view name() const noexcept override { return "hand"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::fetch_result, candor::paging::source_error>> fetch(
        const candor::paging::fetch_request& r) override {
        candor::paging::fetch_result out;
        if (!r.written_keys) {
            out.items.push_back(boost::json::object{{"id", "a"}});
            co_return out;
        }
        out.items_written = candor::json::written::adopt(text);
        out.written_ends = ends;
        for (std::size_t i = 0; i < ends.size(); ++i) out.written_keys.emplace_back("k" + std::to_string(i));
        co_return out;
    }
};

}  // namespace typed_items

namespace typed_items {

// Whatever it is asked, the same rows: a source that ignores the cursor, or whose rows are out
// of order. Pinned with an evidence store, the collection wants every item's key (the ids);
// otherwise only the last ones, and the order is checked on the C++ members.
struct fixed_rows final : candor::paging::typed_source<account> {
    std::vector<account> rows;
    candor::paging::snapshot_mode mode = candor::paging::snapshot_mode::live;
    std::optional<bool> every_key;  // what the last fetch was asked
    std::string_view name() const noexcept override { return "fixed"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return mode; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request& r) override {
        every_key = r.every_written_key;
        candor::paging::typed_page<account> out;
        for (const auto& a : rows)
            if (out.items.size() < r.limit) out.items.push_back(a);
        co_return out;
    }
};

}  // namespace typed_items

TEST(TypedSource, AWrittenPageIsCheckedInOrderAndAfterTheCursorWhoeverChecksIt) {
    for (const bool evidence : {false, true}) {
        SCOPED_TRACE(evidence ? "every key to the collection" : "checked on the members");
        collection_harness h;
        auto add = [&](const std::string& name, pg::ordering order, std::vector<typed_items::account> rows) {
            auto src = std::make_shared<typed_items::fixed_rows>();
            src->rows = std::move(rows);
            pg::collection_options o;
            o.keys = h.keys;
            o.default_page_size = 2;
            if (evidence) {
                src->mode = pg::snapshot_mode::pinned;
                o.evidence = h.store;
            }
            h.srv
                ->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info(name, "A collection."),
                                                                 std::move(order), src, o))
                .value();
            return src;
        };
        const std::vector<typed_items::account> abc{{"a", "t", 1}, {"b", "t", 2}, {"c", "t", 3}};
        auto fine = add("fine", pg::ordering{{"id"}}, abc);
        auto first = h.call("fine", {});
        EXPECT_EQ(at(first, "status"), "partial");
        EXPECT_EQ(at(first, "data"),
                  boost::json::parse(R"([{"id":"a","team":"t","age_days":1},{"id":"b","team":"t","age_days":2}])"));
        ASSERT_TRUE(fine->every_key);
        EXPECT_EQ(*fine->every_key, evidence);
        // The same rows again after the cursor (past "b"): "a" is not after it.
        EXPECT_TRUE(is_internal_error(h.call("fine", {{"cursor", at(first, "continuation", "cursor")}})));
        // Two items with one key, the look-ahead item out of order, and the second field of
        // three going down: never a page.
        add("twice", pg::ordering{{"id"}}, {{"a", "t", 1}, {"a", "t", 2}});
        EXPECT_TRUE(is_internal_error(h.call("twice", {})));
        add("behind", pg::ordering{{"id"}}, {{"a", "t", 1}, {"c", "t", 2}, {"b", "t", 3}});
        EXPECT_TRUE(is_internal_error(h.call("behind", {})));
        add("fields", pg::ordering{{"team", "age_days", "id"}}, {{"a", "t", 2}, {"b", "t", 1}});
        EXPECT_TRUE(is_internal_error(h.call("fields", {})));
        add("fields_fine", pg::ordering{{"team", "age_days", "id"}}, {{"b", "t", 1}, {"a", "t", 2}, {"c", "u", 0}});
        auto page = h.call("fields_fine", {});
        EXPECT_EQ(at(page, "status"), "partial");
        EXPECT_TRUE(is_internal_error(h.call("fields_fine", {{"cursor", at(page, "continuation", "cursor")}})));
    }
}

TEST(TypedSource, HandWrittenItemEndsAreCheckedBeforeTheTextIsCut) {
    collection_harness h;
    auto src = std::make_shared<typed_items::hand_written>();
    add_collection(h, "hand", src);
    EXPECT_EQ(at(h.call("hand", {}), "data"), boost::json::parse(R"([{"id":"a"}])"));
    src->ends = {50};  // past the text
    EXPECT_TRUE(is_internal_error(h.call("hand", {})));
    src->ends = {5, 3};  // not increasing
    EXPECT_TRUE(is_internal_error(h.call("hand", {})));
    src->text = "{}";  // not an array
    src->ends = {};
    EXPECT_TRUE(is_internal_error(h.call("hand", {})));
}

namespace typed_items {

// The accounts source again, handing out pointers to the rows it keeps instead of copies.
struct pointed_accounts final : candor::paging::typed_source<const account*> {
    std::vector<account> rows;
    bool null_item = false;  // a bug: a null pointer among the items
    std::string_view name() const noexcept override { return "pointed"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<
        boost::system::result<candor::paging::typed_page<const account*>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request& r) override {
        candor::paging::typed_page<const account*> out;
        auto it = rows.begin();
        if (r.after)
            it = std::upper_bound(rows.begin(), rows.end(), std::string_view(r.after->at(0).as_string()),
                                  [](std::string_view k, const account& a) { return k < a.id; });
        for (; it != rows.end() && out.items.size() < r.limit; ++it) out.items.push_back(&*it);
        if (null_item && !out.items.empty()) out.items.back() = nullptr;
        co_return out;
    }
};

}  // namespace typed_items

TEST(TypedSource, RowsHandedOutByPointerArePagedExactlyAsTheirCopies) {
    collection_harness h;
    auto copies = five_accounts("team \"a\"");
    auto pointed = std::make_shared<typed_items::pointed_accounts>();
    pointed->rows = copies->rows;
    pg::collection_tool by_copy(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}}, copies,
                                pages_of_three(h));
    pg::collection_tool by_pointer(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}}, pointed,
                                   pages_of_three(h));
    for (const bool written : {true, false}) {
        SCOPED_TRACE(written ? "written" : "as values");
        auto a = serve_page(by_copy, {}, written);
        auto b = serve_page(by_pointer, {}, written);
        EXPECT_EQ(candor::envelope::data_value(b.result), candor::envelope::data_value(a.result));
        if (written) {
            EXPECT_EQ(b.result.data_written->text(), a.result.data_written->text());
        }
        EXPECT_EQ(b.state->after, a.state->after);
        ASSERT_TRUE(b.next_cursor);
        auto rest = serve_page(by_pointer, {{"cursor", *b.next_cursor}}, written);
        EXPECT_EQ(candor::envelope::data_value(rest.result)->as_array().size(), 2u);
        EXPECT_EQ(rest.result.complete, true);
    }
    // Rows out of order are refused through the pointers too, and a null pointer is a bug.
    add_collection(h, "pointed", pointed);
    EXPECT_EQ(at(h.call("pointed", {}), "status"), "complete");  // all five: a page
    std::swap(pointed->rows[0], pointed->rows[1]);
    EXPECT_TRUE(is_internal_error(h.call("pointed", {})));
    std::swap(pointed->rows[0], pointed->rows[1]);
    pointed->null_item = true;
    EXPECT_TRUE(is_internal_error(h.call("pointed", {})));
}
