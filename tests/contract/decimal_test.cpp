// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/decimal.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using candor::contract::decimal;
using candor::contract::decimal_error;

decimal dec(std::string_view text) {
    auto d = decimal::parse(text);
    EXPECT_TRUE(d) << text;
    return d ? *d : decimal{};
}

TEST(Decimal, KeepsTheWrittenTextExactly) {
    EXPECT_EQ(dec("19.99").to_string(), "19.99");
    EXPECT_EQ(dec("19.99").coefficient(), 1999);
    EXPECT_EQ(dec("19.99").scale(), 2);
    EXPECT_EQ(dec("0.10").to_string(), "0.10");
    EXPECT_EQ(dec("-0.05").to_string(), "-0.05");
    EXPECT_EQ(dec("123456789012.34").to_string(), "123456789012.34");
}

TEST(Decimal, AppliesExponentsExactly) {
    EXPECT_EQ(dec("1e2").to_string(), "100");
    EXPECT_EQ(dec("1E+2").scale(), 0);
    EXPECT_EQ(dec("1.5e-3").to_string(), "0.0015");
    EXPECT_EQ(dec("12.5e1").to_string(), "125");
    EXPECT_EQ(dec("0e5").to_string(), "0");
}

TEST(Decimal, NegativeZeroIsZeroWithoutSign) {
    EXPECT_EQ(dec("-0").to_string(), "0");
    EXPECT_EQ(dec("-0.00").to_string(), "0.00");
    EXPECT_FALSE(dec("-0").is_negative());
    EXPECT_EQ(dec("-0"), dec("0"));
}

TEST(Decimal, ComparesNumericallyRegardlessOfScale) {
    EXPECT_EQ(dec("0.10"), dec("0.1"));
    EXPECT_LT(dec("0.09"), dec("0.1"));
    EXPECT_GT(dec("-0.09"), dec("-0.1"));
    EXPECT_LT(dec("-999999999999999999"), dec("0.000000000000000001"));
    EXPECT_GT(dec("100"), dec("99.999999999999999"));
}

TEST(Decimal, SumsAreExactWhereDoublesAreNot) {
    auto sum = dec("0.1").add(dec("0.2"));
    ASSERT_TRUE(sum);
    EXPECT_EQ(*sum, dec("0.3"));
    EXPECT_EQ(sum.value().to_string(), "0.3");
    auto diff = dec("10").subtract(dec("0.01"));
    ASSERT_TRUE(diff);
    EXPECT_EQ(diff.value().to_string(), "9.99");
    auto total = dec("19.99").multiply(3);
    ASSERT_TRUE(total);
    EXPECT_EQ(total.value().to_string(), "59.97");
}

TEST(Decimal, OverflowIsAnErrorValue) {
    const auto big = dec("999999999999999999");
    auto sum = big.add(dec("1"));
    ASSERT_FALSE(sum);
    EXPECT_EQ(sum.error(), decimal_error::overflow);
    EXPECT_FALSE(big.multiply(10));
    EXPECT_FALSE(big.multiply(INT64_MIN));
    EXPECT_FALSE(dec("-999999999999999999").subtract(dec("1")));
    // Aligning scales can overflow too: 1e17 + 0.1 needs 19 digits.
    EXPECT_FALSE(dec("100000000000000000").add(dec("0.1")));
    EXPECT_TRUE(dec("99999999999999999").add(dec("0.1")));
}

TEST(Decimal, RefusesTextBeyondItsPrecision) {
    EXPECT_EQ(decimal::parse("1234567890123456789").error(), decimal_error::overflow);
    EXPECT_EQ(decimal::parse("1e18").error(), decimal_error::overflow);
    EXPECT_EQ(decimal::parse("1e300").error(), decimal_error::overflow);
    EXPECT_EQ(decimal::parse("0.0000000000000000001").error(), decimal_error::too_precise);
    EXPECT_EQ(decimal::parse("1e-300").error(), decimal_error::too_precise);
    EXPECT_EQ(decimal::parse("1.2345678901234567891").error(), decimal_error::too_precise);
    // Trailing zeros are dropped only when needed to fit; they carry no value.
    auto many_zeros = decimal::parse("1.000000000000000000000000000000");
    ASSERT_TRUE(many_zeros);
    EXPECT_EQ(*many_zeros, dec("1"));
    EXPECT_LE(many_zeros.value().scale(), decimal::max_scale);
    EXPECT_TRUE(decimal::parse("0e-999999999999"));
}

TEST(Decimal, RefusesWhatIsNotAJsonNumber) {
    for (const char* bad :
         {"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "NaN", "Infinity", "0x10", "1 ", " 1", "1,5", "--1"}) {
        auto d = decimal::parse(bad);
        ASSERT_FALSE(d) << bad;
        EXPECT_EQ(d.error(), decimal_error::invalid_text) << bad;
    }
}

TEST(Decimal, CountsDigitsAndPlacesLikePydantic) {
    // Trailing fractional zeros are not counted; a zero before the point is not a digit.
    EXPECT_EQ(dec("0.10").decimal_places(), 1);
    EXPECT_EQ(dec("0.10").digits(), 1);
    EXPECT_EQ(dec("123.45").digits(), 5);
    EXPECT_EQ(dec("123.45").decimal_places(), 2);
    EXPECT_EQ(dec("100").digits(), 3);
    EXPECT_EQ(dec("0.001").digits(), 3);
    EXPECT_EQ(dec("1.230").decimal_places(), 2);
    EXPECT_EQ(dec("0").digits(), 1);
    EXPECT_EQ(dec("-12.5").digits(), 3);
}

TEST(Decimal, BuildsFromPartsWithinLimits) {
    auto d = decimal::from_parts(1999, 2);
    ASSERT_TRUE(d);
    EXPECT_EQ(d.value().to_string(), "19.99");
    EXPECT_EQ(decimal::from_parts(5, -2).value().to_string(), "500");
    EXPECT_FALSE(decimal::from_integer(INT64_MAX));
    EXPECT_EQ(decimal::from_integer(-42).value().to_string(), "-42");
    EXPECT_DOUBLE_EQ(dec("19.99").to_double(), 19.99);
}

}  // namespace
