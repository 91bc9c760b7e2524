// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/output_schema.hpp>

#include <candor/schema/validator.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/value_from.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace results {

BOOST_DEFINE_ENUM_CLASS(state, open, closed)

struct line {
    std::string sku;
    std::int64_t quantity = 0;
};
BOOST_DESCRIBE_STRUCT(line, (), (sku, quantity))

struct order {
    std::string id;
    bool paid = false;
    double weight = 0;
    state status = state::open;
    std::optional<std::string> note;
    std::vector<line> lines;
    std::map<std::string, std::int64_t> counts;
};
BOOST_DESCRIBE_STRUCT(order, (), (id, paid, weight, status, note, lines, counts))

}  // namespace results

namespace {

using candor::contract::output_schema_of;

TEST(OutputSchema, DescribesWhatValueFromWrites) {
    const auto s = output_schema_of<results::order>();
    EXPECT_EQ(s.at("type"), "object");
    EXPECT_EQ(s.at("required"), (boost::json::array{"id", "paid", "weight", "status", "note", "lines", "counts"}));
    const auto& p = s.at("properties").as_object();
    EXPECT_EQ(p.at("paid").at("type"), "boolean");
    EXPECT_EQ(p.at("weight").at("type"), "number");
    EXPECT_EQ(p.at("status").at("enum"), (boost::json::array{"open", "closed"}));
    EXPECT_EQ(p.at("lines").at("items").at("properties").at("quantity").at("type"), "integer");
    EXPECT_EQ(p.at("counts").at("additionalProperties").at("type"), "integer");

    // Every value the type can hold, written by value_from, is valid against it.
    auto v = candor::schema::validator::compile(s);
    ASSERT_TRUE(v) << "the generated schema compiles";
    results::order o;
    EXPECT_TRUE(v->is_valid(boost::json::value_from(o)));
    o.note = "fragile";
    o.status = results::state::closed;
    o.lines = {{"A-1", 2}, {"B-7", 1}};
    o.counts = {{"boxes", 3}};
    EXPECT_TRUE(v->is_valid(boost::json::value_from(o)));
}

TEST(OutputSchema, RefusesWhatTheTypeCannotHold) {
    auto v = candor::schema::validator::compile(output_schema_of<results::order>());
    ASSERT_TRUE(v);
    auto written = boost::json::value_from(results::order{}).as_object();
    auto wrong_enum = written;
    wrong_enum["status"] = "pending";
    EXPECT_FALSE(v->is_valid(wrong_enum));
    auto missing = written;
    missing.erase("lines");
    EXPECT_FALSE(v->is_valid(missing));
    auto wrong_type = written;
    wrong_type["paid"] = 1;
    EXPECT_FALSE(v->is_valid(wrong_type));
}

}  // namespace
