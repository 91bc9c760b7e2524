// SPDX-License-Identifier: BSL-1.0
// Orderings of several fields, each ascending or descending, nullable ones among them, chosen
// per call with `order_by`: a walk in any of them delivers every row once, in the order the
// paging layer's compare_keys gives — on versioned and on foreign tables, on every backend.
#include "sql_collection/support.hpp"

#include <algorithm>

using namespace candor::test;
using namespace candor::test::sql;

namespace {

const std::vector<sc::table_order>& test_orders() {
    static const std::vector<sc::table_order> orders{
        {"by_id", {}},
        {"group_then_n_down", {{"grp"}, {"n", true}}},
        {"owner", {{"owner"}}},
        {"owner_down_then_day", {{"owner", true}, {"day"}}},
        {"flag_down_then_x", {{"flag", true}, {"x"}}},
        {"id_down", {{"id", true}}},
    };
    return orders;
}

// Walk `tool` in ordering `name`, `size` rows a page. @return the rows, in walk order
std::vector<boost::json::object> walk_in(pg::collection_tool& tool, boost::asio::io_context& ioc,
                                         const std::string& name, std::size_t size) {
    std::vector<boost::json::object> out;
    std::optional<std::string> cursor;
    for (int pages = 0; pages < 1000; ++pages) {
        pg::page_request r;
        r.query = {{"order_by", name}};
        r.cursor = cursor;
        r.page_size = size;
        r.caller = mcp::principal{"alice"};
        auto p = run(ioc, tool.serve(std::move(r)));
        EXPECT_NE(*p.result.status, ce::outcome::error) << name;
        if (*p.result.status == ce::outcome::error) return out;
        for (const auto& item : p.result.data->as_array()) out.push_back(item.as_object());
        if (p.ended) return out;
        cursor = p.next_cursor;
    }
    ADD_FAILURE() << "the walk did not end";
    return out;
}

void check_every_order(pg::collection_tool& tool, sc::sql_source& source, boost::asio::io_context& ioc,
                       std::vector<boost::json::object> rows, std::mt19937& rng) {
    for (const auto& o : source.orderings()) {
        SCOPED_TRACE(o.name + " (" + o.order.to_string() + ")");
        auto expected = rows;
        auto key = [&](const boost::json::object& r) {
            boost::json::array k;
            for (const auto& f : o.order.fields) k.push_back(r.at(f));
            return k;
        };
        std::sort(expected.begin(), expected.end(), [&](const auto& a, const auto& b) {
            const auto ka = key(a), kb = key(b);
            return pg::compare_keys(std::span<const boost::json::value>(ka.data(), ka.size()),
                                    std::span<const boost::json::value>(kb.data(), kb.size()), o.order) < 0;
        });
        const std::size_t size = 1 + rng() % 7;
        const auto got = walk_in(tool, ioc, o.name, size);
        ASSERT_EQ(got.size(), expected.size()) << "page size " << size;
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_EQ(got[i].at("id"), expected[i].at("id")) << "at " << i << ", page size " << size;
    }
}

}  // namespace

TEST_P(SqlCollection, EveryOrderingWalksEveryRowOnceInItsOrderOnAVersionedTable) {
    auto db = backend_->connect();
    ASSERT_TRUE(sc::create_table(*db, items_table()));
    std::mt19937 rng(31);
    gen g{std::mt19937(31)};
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 60; ++i) rows.push_back(g.row(i));  // few values per field: many ties, nulls
    ASSERT_TRUE(sc::insert_rows(*db, items_table(), rows));
    for (auto& r : rows) r["x"] = r.at("x").to_number<double>();
    sc::collection_spec spec;
    spec.table = items_table();
    spec.orders = test_orders();
    auto source = std::make_shared<sc::sql_source>(db, spec);
    ASSERT_FALSE(source->foreign());
    pg::collection_options o;
    o.keys = test_keys();
    o.max_page_size = 50;
    o.orders = source->orderings();
    pg::collection_tool tool(mcp::tool_info("list_items", "Items."), source->orderings().front().order, source, o);
    boost::asio::io_context ioc;
    check_every_order(tool, *source, ioc, rows, rng);
}

TEST_P(SqlCollection, EveryOrderingWalksEveryRowOnceInItsOrderOnAForeignTable) {
    auto db = backend_->connect();
    ASSERT_TRUE(db->execute(foreign_items_ddl, {}));
    std::mt19937 rng(32);
    gen g{std::mt19937(32)};
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 60; ++i) {
        auto r = g.row(i);
        // Mixed case and punctuation: a database collation would order these otherwise.
        r["grp"] = std::string(1, "aBc_Z"[rng() % 5]);
        insert_plainly(*db, r);
        r["x"] = r.at("x").to_number<double>();
        rows.push_back(std::move(r));
    }
    sc::collection_spec spec;
    spec.table = items_table();
    spec.orders = test_orders();
    auto tool = sc::make_collection(db, spec, mcp::tool_info("list_items", "Items."), [] {
        pg::collection_options o;
        o.keys = test_keys();
        o.max_page_size = 50;
        return o;
    }());
    // The tool offers the orderings by name.
    const auto& order_by = tool->info().input_schema.at("properties").at("order_by");
    EXPECT_EQ(order_by.at("enum").as_array().size(), test_orders().size());
    auto source = std::make_shared<sc::sql_source>(db, spec);
    ASSERT_TRUE(source->foreign());
    boost::asio::io_context ioc;
    check_every_order(*tool, *source, ioc, rows, rng);
}

TEST_P(SqlCollection, AnOrderingMustNameFieldsOfTheTableOnceAndEndWithTheKey) {
    auto db = backend_->connect();
    ASSERT_TRUE(sc::create_table(*db, items_table()));
    auto with = [&](std::vector<sc::table_order> orders) {
        sc::collection_spec spec;
        spec.table = items_table();
        spec.orders = std::move(orders);
        return sc::sql_source(db, spec);
    };
    EXPECT_THROW(with({{"x", {{"nope"}}}}), std::invalid_argument);
    EXPECT_THROW(with({{"x", {{"grp"}, {"grp", true}}}}), std::invalid_argument);
    EXPECT_THROW(with({{"x", {{"id"}, {"grp"}}}}), std::invalid_argument);
    EXPECT_THROW(with({{"a", {{"grp"}}}, {"a", {{"n"}}}}), std::invalid_argument);
    EXPECT_NO_THROW(with({{"a", {{"grp"}, {"id", true}}}}));
}
