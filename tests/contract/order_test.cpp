// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/contract.hpp>

#include <candor/json/intake.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace orders {

using candor::contract::decimal;

BOOST_DEFINE_ENUM_CLASS(shipping, standard, express, pickup)

struct order_line {
    std::string sku;
    int quantity = 1;
    decimal unit_price;
};
BOOST_DESCRIBE_STRUCT(order_line, (), (sku, quantity, unit_price))

inline void describe_contract(candor::contract::spec<order_line>& s) {
    s.field(&order_line::sku).description("Catalog SKU").pattern("^[A-Z]{3}-[0-9]{4}$");
    s.field(&order_line::quantity).range(1, 1000).allow_integral_float();
    s.field(&order_line::unit_price)
        .description("Price per unit")
        .exclusive_minimum("0")
        .maximum("100000000000")
        .max_digits(12)
        .decimal_places(2);
}

struct order_draft {
    std::string customer;
    std::vector<order_line> lines;
    shipping ship = shipping::standard;
    std::optional<std::string> note;
    std::map<std::string, std::string> labels;
};
BOOST_DESCRIBE_STRUCT(order_draft, (), (customer, lines, ship, note, labels))

inline void describe_contract(candor::contract::spec<order_draft>& s) {
    s.field(&order_draft::customer).length(1, 64);
    s.field(&order_draft::lines).description("What to order").items(1, 3);
    s.field(&order_draft::ship).optional();
    s.field(&order_draft::note).max_length(10);
    s.field(&order_draft::labels).optional().max_items(2).max_length(8);
}

struct widths {
    std::uint8_t u8 = 0;
    std::int64_t i64 = 0;
    std::uint64_t u64 = 0;
};
BOOST_DESCRIBE_STRUCT(widths, (), (u8, i64, u64))

}  // namespace orders

namespace {

using contract_test::codes;
using contract_test::has_code;

const candor::contract::contract<orders::order_draft>& draft() {
    static const candor::contract::contract<orders::order_draft> c{"order_draft/3"};
    return c;
}

boost::system::result<orders::order_draft, candor::issue_list> check_text(std::string_view text) {
    auto doc = candor::json::parse(text);
    EXPECT_TRUE(doc) << text;
    if (!doc) return {boost::system::in_place_error, candor::issue_list{}};
    return draft().check(doc.value().root(), &doc.value());
}

TEST(OrderDraft, ConvertsNestedLinesEnumsAndExactPrices) {
    auto r = check_text(R"({"customer":"ACME","ship":"express","lines":[
        {"sku":"ABC-0001","quantity":2,"unit_price":19.99},
        {"sku":"XYZ-9999","quantity":1,"unit_price":0.10}],"labels":{"po":"77"}})");
    ASSERT_TRUE(r) << codes(r.error());
    const auto& d = r.value();
    EXPECT_EQ(d.ship, orders::shipping::express);
    ASSERT_EQ(d.lines.size(), 2u);
    EXPECT_EQ(d.lines[0].unit_price.to_string(), "19.99");
    EXPECT_EQ(d.lines[1].unit_price.to_string(), "0.10");
    auto total = d.lines[0].unit_price.multiply(d.lines[0].quantity).value().add(d.lines[1].unit_price);
    ASSERT_TRUE(total);
    EXPECT_EQ(total.value().to_string(), "40.08");
    EXPECT_EQ(d.labels.at("po"), "77");
    EXPECT_FALSE(d.note.has_value());
}

TEST(OrderDraft, PriceMustBePositive) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":0}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/lines/0/unit_price")) << codes(r.error());
}

TEST(OrderDraft, TooManyDecimalPlacesIsRefusedExactly) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":19.999}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TOO_MANY_DIGITS", "/lines/0/unit_price")) << codes(r.error());
    // Trailing zeros are not significant: 19.990 has two decimal places.
    auto ok = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":19.990}]})");
    ASSERT_TRUE(ok) << codes(ok.error());
    EXPECT_EQ(ok.value().lines[0].unit_price.to_string(), "19.990");
}

TEST(OrderDraft, TooManyDigitsIsRefused) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":12345678901.23}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TOO_MANY_DIGITS", "/lines/0/unit_price")) << codes(r.error());
}

TEST(OrderDraft, DecimalWithExponentIsExact) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":1.5e2}]})");
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().lines[0].unit_price.to_string(), "150");
}

TEST(OrderDraft, DecimalWithoutDocumentUsesShortestText) {
    auto r = draft().check(
        boost::json::parse(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":19.99}]})"));
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().lines[0].unit_price.to_string(), "19.99");
}

TEST(OrderDraft, QuantityOptsInToWholeFloats) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":2.0,"unit_price":1}]})");
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().lines[0].quantity, 2);
    auto frac = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":2.5,"unit_price":1}]})");
    ASSERT_FALSE(frac);
    EXPECT_TRUE(has_code(frac.error(), "TYPE_MISMATCH", "/lines/0/quantity")) << codes(frac.error());
    auto huge = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1e300,"unit_price":1}]})");
    ASSERT_FALSE(huge);
    EXPECT_TRUE(has_code(huge.error(), "OUT_OF_RANGE", "/lines/0/quantity")) << codes(huge.error());
}

TEST(OrderDraft, ItemLimitsApplyToTheLines) {
    auto none = check_text(R"({"customer":"A","lines":[]})");
    ASSERT_FALSE(none);
    EXPECT_TRUE(has_code(none.error(), "TOO_SHORT", "/lines")) << codes(none.error());
    const std::string line = R"({"sku":"ABC-0001","quantity":1,"unit_price":1})";
    auto many = check_text(R"({"customer":"A","lines":[)" + line + "," + line + "," + line + "," + line + "]}");
    ASSERT_FALSE(many);
    EXPECT_TRUE(has_code(many.error(), "TOO_LONG", "/lines")) << codes(many.error());
}

TEST(OrderDraft, UnknownEnumValueIsEnumMismatch) {
    auto r =
        check_text(R"({"customer":"A","ship":"teleport","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":1}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "ENUM_MISMATCH", "/ship")) << codes(r.error());
}

TEST(OrderDraft, NestedStructsRejectUnknownFieldsToo) {
    auto r = check_text(R"({"customer":"A","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":1,"discount":5}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "UNKNOWN_FIELD", "/lines/0/discount")) << codes(r.error());
}

TEST(OrderDraft, PatternAndLengthsAreChecked) {
    auto r = check_text(
        R"({"customer":"","note":"far too long a note","labels":{"a":"123456789"},
            "lines":[{"sku":"abc-1","quantity":1,"unit_price":1}]})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TOO_SHORT", "/customer")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "TOO_LONG", "/note")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "TOO_LONG", "/labels/a")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "PATTERN_MISMATCH", "/lines/0/sku")) << codes(r.error());
}

TEST(OrderDraft, LengthCountsCodePointsNotBytes) {
    // "ÅÅÅÅÅÅÅÅÅÅ" is 10 code points, 20 bytes: within max_length 10.
    auto r =
        check_text(R"({"customer":"A","note":"ÅÅÅÅÅÅÅÅÅÅ","lines":[{"sku":"ABC-0001","quantity":1,"unit_price":1}]})");
    ASSERT_TRUE(r) << codes(r.error());
}

TEST(IntegerFields, BeyondTheCppRangeIsOutOfRangeNeverWrapped) {
    const candor::contract::contract<orders::widths> c{"widths/1"};
    auto check = [&](std::string_view text) {
        auto doc = candor::json::parse(text);
        EXPECT_TRUE(doc) << text;
        return c.check(doc.value().root(), &doc.value());
    };
    auto ok = check(R"({"u8":255,"i64":-9223372036854775808,"u64":18446744073709551615})");
    ASSERT_TRUE(ok) << codes(ok.error());
    EXPECT_EQ(ok.value().u8, 255);
    EXPECT_EQ(ok.value().i64, INT64_MIN);
    EXPECT_EQ(ok.value().u64, UINT64_MAX);

    auto r = check(R"({"u8":256,"i64":9223372036854775808,"u64":-1})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/u8")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/i64")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/u64")) << codes(r.error());

    // Beyond 64 bits the parser can only hold a double; it is still an integer literal, so
    // the verdict is OUT_OF_RANGE, not a float-related TYPE_MISMATCH.
    auto huge =
        c.convert(candor::json::parse(R"({"u8":1,"i64":1,"u64":18446744073709551616})").value().root(), nullptr);
    auto doc = candor::json::parse(R"({"u8":1,"i64":1,"u64":18446744073709551616})");
    ASSERT_TRUE(doc);
    auto exact = c.convert(doc.value().root(), &doc.value());
    ASSERT_FALSE(exact);
    EXPECT_TRUE(has_code(exact.error(), "OUT_OF_RANGE", "/u64")) << codes(exact.error());
    ASSERT_FALSE(huge);  // without the raw text it is a whole float: refused either way
}

}  // namespace
