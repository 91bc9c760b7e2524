// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/contract.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shapes {

BOOST_DEFINE_ENUM_CLASS(color, red, green, blue)

struct point {
    double x = 0;
    double y = 0;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y))

inline void describe_contract(candor::contract::spec<point>& s) {
    s.description("A point in the plane");
    s.field(&point::x).range(-1.0, 1.0);
    s.field(&point::y).exclusive_minimum(0.0);
}

struct all_kinds {
    bool flag = false;
    std::uint8_t small = 0;
    std::int64_t big = 0;
    std::string name;
    std::vector<std::string> tags;
    std::map<std::string, int> counts;
    std::optional<point> where;
    color hue = color::red;
    candor::contract::decimal price;
};
BOOST_DESCRIBE_STRUCT(all_kinds, (), (flag, small, big, name, tags, counts, where, hue, price))

inline void describe_contract(candor::contract::spec<all_kinds>& s) {
    s.field(&all_kinds::flag).description("A switch").optional();
    s.field(&all_kinds::small).range(1, 200);
    s.field(&all_kinds::name).length(1, 10).pattern("^[a-z]+$");
    s.field(&all_kinds::tags).items(0, 3).max_length(5).one_of({"a", "b"});
    s.field(&all_kinds::counts).max_items(2).minimum(0);
    s.field(&all_kinds::price).description("Unit price").exclusive_minimum("0").max_digits(12).decimal_places(2);
}

struct self_nesting;
struct self_nesting {
    std::vector<self_nesting> children;
};
BOOST_DESCRIBE_STRUCT(self_nesting, (), (children))

}  // namespace shapes

// The ten-line example of docs/contracts.md, verbatim.
namespace docs_example {
struct search_args {
    std::string query;
    int limit = 5;
    std::optional<std::string> lang;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit, lang))

inline void describe_contract(candor::contract::spec<search_args>& s) {  // found by ADL
    s.field(&search_args::query).description("Words to look for").length(1, 200);
    s.field(&search_args::limit).description("How many results").range(1, 10).optional();
}
}  // namespace docs_example

namespace {

TEST(GeneratedSchema, MapsEveryFieldTypeToItsKeywords) {
    const candor::contract::contract<shapes::all_kinds> c{"kinds/1"};
    const auto expected = boost::json::parse(R"json({
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object",
      "properties": {
        "flag": {"type": "boolean", "description": "A switch"},
        "small": {"type": "integer", "minimum": 1, "maximum": 200},
        "big": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
        "name": {"type": "string", "minLength": 1, "maxLength": 10, "pattern": "^[a-z]+$"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5, "enum": ["a", "b"]},
                 "minItems": 0, "maxItems": 3},
        "counts": {"type": "object",
                   "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 2147483647},
                   "maxProperties": 2},
        "where": {"type": "object", "description": "A point in the plane",
                  "properties": {"x": {"type": "number", "minimum": -1.0, "maximum": 1.0},
                                 "y": {"type": "number", "exclusiveMinimum": 0.0}},
                  "required": ["x", "y"], "additionalProperties": false},
        "hue": {"type": "string", "enum": ["red", "green", "blue"]},
        "price": {"type": "number", "exclusiveMinimum": 0.0,
                  "description": "Unit price (exact decimal: at most 12 digits, at most 2 after the decimal point)"}
      },
      "required": ["small", "big", "name", "tags", "counts", "hue", "price"],
      "additionalProperties": false
    })json");
    EXPECT_EQ(c.schema(), expected) << boost::json::serialize(c.schema());
}

TEST(GeneratedSchema, DocumentationExampleProducesTheDocumentedSchema) {
    const candor::contract::contract<docs_example::search_args> search{"search/1"};
    EXPECT_EQ(search.schema(), boost::json::parse(R"json(
{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
 "properties":{"query":{"type":"string","minLength":1,"maxLength":200,"description":"Words to look for"},
               "limit":{"type":"integer","minimum":1,"maximum":10,"description":"How many results"},
               "lang":{"type":"string"}},
 "required":["query"],"additionalProperties":false})json"))
        << boost::json::serialize(search.schema());
    auto args = search.check(boost::json::parse(R"({"query":"ada"})"));
    ASSERT_TRUE(args);
    EXPECT_EQ(args.value().limit, 5);
}

TEST(GeneratedSchema, UnsignedIntegersAdvertiseTheirFullRange) {
    const auto s = candor::contract::detail::schema_for<std::uint64_t>(nullptr, false, 0);
    EXPECT_EQ(s.at("minimum").as_int64(), 0);
    EXPECT_EQ(s.at("maximum").as_uint64(), UINT64_MAX);
}

TEST(GeneratedSchema, RecursiveTypesAreRefusedAtRegistration) {
    EXPECT_THROW(candor::contract::contract<shapes::self_nesting>{"tree/1"}, std::logic_error);
}

TEST(GeneratedSchema, InvalidPatternIsRefusedAtRegistration) {
    candor::contract::spec<shapes::all_kinds> s;
    EXPECT_THROW(s.field(&shapes::all_kinds::name).pattern("(unclosed"), std::invalid_argument);
    EXPECT_THROW(s.field(&shapes::all_kinds::price).minimum("1.2.3"), std::invalid_argument);
}

}  // namespace
