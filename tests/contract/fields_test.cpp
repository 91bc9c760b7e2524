// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/spec.hpp>

#include <candor/contract/contract.hpp>
#include <candor/json/intake.hpp>

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fields {

struct lenient {
    std::string id;
};
BOOST_DESCRIBE_STRUCT(lenient, (), (id))
inline void describe_contract(candor::contract::spec<lenient>& s) { s.allow_unknown_fields(); }

struct measures {
    double ratio = 0;
    float weight = 0;
    std::map<std::string, int> scores;
    std::optional<std::vector<bool>> flags;
    std::vector<std::vector<int>> grid;
};
BOOST_DESCRIBE_STRUCT(measures, (), (ratio, weight, scores, flags, grid))
inline void describe_contract(candor::contract::spec<measures>& s) {
    s.field(&measures::ratio).exclusive_minimum(0.0).exclusive_maximum(1.0);
    s.field(&measures::weight).range(0.0f, 10.0f);
    s.field(&measures::scores).items(1, 2).range(0, 100);
    s.field(&measures::flags).max_items(2);
    s.field(&measures::grid).max_items(2).range(0, 9);
}

}  // namespace fields

namespace {

using contract_test::codes;
using contract_test::has_code;

TEST(Fields, AllowUnknownFieldsDropsAdditionalPropertiesFalse) {
    const candor::contract::contract<fields::lenient> c{"lenient/1"};
    EXPECT_FALSE(c.schema().as_object().contains("additionalProperties"));
    auto r = c.check(boost::json::parse(R"({"id":"x","extra":[1,2]})"));
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().id, "x");
}

const candor::contract::contract<fields::measures>& measures() {
    static const candor::contract::contract<fields::measures> c{"measures/1"};
    return c;
}

TEST(Fields, ExclusiveFloatBoundsExcludeTheBound) {
    auto r = measures().check(boost::json::parse(R"({"ratio":1,"weight":10,"scores":{"a":1},"grid":[]})"));
    ASSERT_FALSE(r);
    ASSERT_EQ(r.error().size(), 1u) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/ratio")) << codes(r.error());
    EXPECT_EQ(r.error().front().keyword, "/properties/ratio/exclusiveMaximum");
}

TEST(Fields, ExclusiveFloatBoundMessageSaysGreaterThan) {
    auto r = measures().convert(boost::json::parse(R"({"ratio":0,"weight":1,"scores":{"a":1},"grid":[]})"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().message, "'ratio' must be a number greater than 0 and less than 1; got 0");
}

TEST(Fields, MapEntriesAndValuesAreChecked) {
    auto r = measures().check(boost::json::parse(R"({"ratio":0.5,"weight":1,"scores":{"a":1,"b":2,"c":3},"grid":[]})"));
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TOO_LONG", "/scores")) << codes(r.error());
    auto v = measures().check(boost::json::parse(R"({"ratio":0.5,"weight":1,"scores":{"a/b":101},"grid":[]})"));
    ASSERT_FALSE(v);
    EXPECT_TRUE(has_code(v.error(), "OUT_OF_RANGE", "/scores/a~1b")) << codes(v.error());
}

TEST(Fields, NestedVectorsTakeItemLimitsOnTheOuterOne) {
    auto ok = measures().check(
        boost::json::parse(R"({"ratio":0.5,"weight":1,"scores":{"a":1},"grid":[[1,2,3,4],[9]],"flags":[true]})"));
    ASSERT_TRUE(ok) << codes(ok.error());
    EXPECT_EQ(ok.value().grid[0].size(), 4u);
    ASSERT_TRUE(ok.value().flags.has_value());
    auto bad = measures().check(
        boost::json::parse(R"({"ratio":0.5,"weight":1,"scores":{"a":1},"grid":[[1],[10]],"flags":[true,false,true]})"));
    ASSERT_FALSE(bad);
    EXPECT_TRUE(has_code(bad.error(), "OUT_OF_RANGE", "/grid/1/0")) << codes(bad.error());
    EXPECT_TRUE(has_code(bad.error(), "TOO_LONG", "/flags")) << codes(bad.error());
}

TEST(Fields, ArgumentsMustBeAnObject) {
    auto r = measures().check(boost::json::parse("[]"));
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "")) << codes(r.error());
}

TEST(Fields, IssueCountIsBounded) {
    candor::contract::contract_options opts;
    opts.max_issues = 2;
    const candor::contract::contract<fields::measures> c{"measures/1", opts};
    auto r = c.convert(boost::json::parse(R"({"a":1,"b":2,"c":3,"d":4})"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().size(), 2u);
}

}  // namespace
