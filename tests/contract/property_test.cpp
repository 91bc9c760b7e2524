// SPDX-License-Identifier: BSL-1.0
// The validator and the converter must agree: a conversion failure after validation would be a
// bug, not a user error. Random instances (seeded; set CANDOR_PROPERTY_SEED to replay) are
// checked against both:
//   validator rejects ⇒ converter rejects;
//   validator accepts ⇒ converter accepts, or rejects only with the typed layer's documented
//                       stricter rules (whole-number floats for integers: TYPE_MISMATCH; C++
//                       integer ranges and exact decimal bounds: OUT_OF_RANGE; decimal digits:
//                       TOO_MANY_DIGITS) — and never throws.
#include <candor/contract/contract.hpp>

#include <candor/json/intake.hpp>
#include <candor/schema/validator.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace prop {

using candor::contract::decimal;

BOOST_DEFINE_ENUM_CLASS(color, red, green, blue)

struct search_args {
    int limit = 0;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (limit))
inline void describe_contract(candor::contract::spec<search_args>& s) { s.field(&search_args::limit).range(1, 10); }

struct line {
    std::string sku;
    int quantity = 1;
    decimal price;
};
BOOST_DESCRIBE_STRUCT(line, (), (sku, quantity, price))
inline void describe_contract(candor::contract::spec<line>& s) {
    s.field(&line::sku).pattern("^[A-Z]{3}-[0-9]{2}$");
    s.field(&line::quantity).range(1, 100);
    s.field(&line::price).exclusive_minimum("0").maximum("1000").max_digits(6).decimal_places(2);
}

struct order {
    std::vector<line> lines;
    color hue = color::red;
    std::optional<std::string> note;
    std::map<std::string, std::uint8_t> counts;
    bool urgent = false;
    double ratio = 0.5;
    std::int64_t id = 0;
    std::vector<std::uint16_t> slots;
};
BOOST_DESCRIBE_STRUCT(order, (), (lines, hue, note, counts, urgent, ratio, id, slots))
inline void describe_contract(candor::contract::spec<order>& s) {
    s.field(&order::lines).items(1, 3);
    s.field(&order::note).length(0, 5);
    s.field(&order::counts).max_items(2).optional();
    s.field(&order::urgent).optional();
    s.field(&order::ratio).exclusive_minimum(0.0).maximum(1.0);
    s.field(&order::slots).optional().max_items(4).allow_integral_float();
}

}  // namespace prop

namespace {

using rng = std::mt19937_64;

std::size_t pick(rng& g, std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(g); }
bool chance(rng& g, double p) { return std::bernoulli_distribution(p)(g); }

// Per-instance noise: how often a generator leaves its typical (valid) values for edge cases
// and wrong types. A spread of noise levels yields valid, stricter-rule and invalid instances.
thread_local double noise = 0.5;
bool noisy(rng& g) { return chance(g, noise); }

std::string wrong_type(rng& g) {
    static const char* const values[] = {"true", "false", "null", "\"3\"", "[]", "{}", "\"\"", "[1]", "{\"a\":1}"};
    return values[pick(g, std::size(values))];
}

std::string integer_text(rng& g) {
    static const char* const edges[] = {"0",
                                        "1",
                                        "10",
                                        "11",
                                        "100",
                                        "101",
                                        "255",
                                        "256",
                                        "-1",
                                        "65535",
                                        "65536",
                                        "9223372036854775807",
                                        "9223372036854775808",
                                        "-9223372036854775808",
                                        "-9223372036854775809",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "3.0",
                                        "2.5",
                                        "1e2",
                                        "1E0",
                                        "-0",
                                        "0.0",
                                        "1e300",
                                        "-1e300",
                                        "4.000",
                                        "7e-0",
                                        "1.5e1"};
    if (!noisy(g)) return std::to_string(std::uniform_int_distribution<int>(1, 10)(g));
    if (chance(g, 0.5)) return std::to_string(std::uniform_int_distribution<int>(-3, 120)(g));
    return edges[pick(g, std::size(edges))];
}

std::string decimal_text(rng& g) {
    static const char* const edges[] = {"0",
                                        "-0",
                                        "0.00",
                                        "1000",
                                        "1000.00",
                                        "1000.001",
                                        "1e3",
                                        "1e-2",
                                        "0.001",
                                        "0.01",
                                        "999.99",
                                        "9999.99",
                                        "1000.0000000000000001",
                                        "0.0000000000000000001",
                                        "1e-400",
                                        "123456789012345678901",
                                        "12.30",
                                        "12.345",
                                        "-5",
                                        "1.5E+2",
                                        "0.10"};
    if (noisy(g) && chance(g, 0.5)) return edges[pick(g, std::size(edges))];
    std::string s = noisy(g) && chance(g, 0.2) ? "-" : "";
    const std::size_t int_digits = noisy(g) ? pick(g, 5) : 1 + pick(g, 3);
    if (int_digits == 0) {
        s += '0';
    } else {
        s += static_cast<char>('1' + pick(g, 9));
        for (std::size_t i = 1; i < int_digits; ++i) s += static_cast<char>('0' + pick(g, 10));
    }
    if (chance(g, 0.7)) {
        s += '.';
        const std::size_t frac = 1 + pick(g, noisy(g) ? 4 : 2);
        for (std::size_t i = 0; i < frac; ++i) s += static_cast<char>('0' + pick(g, 10));
    }
    if (noisy(g) && chance(g, 0.2)) s += "e" + std::to_string(static_cast<int>(pick(g, 5)) - 2);
    return s;
}

std::string double_text(rng& g) {
    if (!noisy(g)) return "0.5";
    static const char* const edges[] = {"0", "0.0", "1", "1.0", "1.0000000001", "0.5", "-0.1", "1e-300", "2", "0.999"};
    return edges[pick(g, std::size(edges))];
}

std::string string_text(rng& g, const char* typical) {
    if (!noisy(g)) return std::string("\"") + typical + "\"";
    static const char* const samples[] = {"ABC-12",
                                          "ABC-123",
                                          "abc-12",
                                          "XYZ-00",
                                          "",
                                          "a",
                                          "hello",
                                          "toolong",
                                          "\u00e9\u00e9\u00e9\u00e9\u00e9",
                                          "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
                                          "QQQ-99",
                                          "A\\nB",
                                          "red",
                                          "green",
                                          "blue",
                                          "purple",
                                          "Red"};
    return std::string("\"") + samples[pick(g, std::size(samples))] + "\"";
}

// A field: usually the intended kind, sometimes another type, sometimes absent ("").
std::string field(rng& g, const std::function<std::string(rng&)>& intended) {
    if (noisy(g)) {
        const double r = std::uniform_real_distribution<double>(0, 1)(g);
        if (r < 0.15) return "";
        if (r < 0.4) return wrong_type(g);
    }
    return intended(g);
}

std::string object_text(rng& g, const std::vector<std::pair<std::string, std::string>>& fields) {
    std::string s = "{";
    bool first = true;
    for (const auto& [name, value] : fields) {
        if (value.empty()) continue;
        if (!first) s += ',';
        first = false;
        s += '"' + name + "\":" + value;
    }
    if (noisy(g) && chance(g, 0.1)) s += std::string(first ? "" : ",") + "\"unexpected\":1";
    return s + "}";
}

std::string search_instance(rng& g) { return object_text(g, {{"limit", field(g, integer_text)}}); }

std::string array_of(rng& g, std::size_t max, const std::function<std::string(rng&)>& item) {
    std::string s = "[";
    const std::size_t n = noisy(g) ? pick(g, max + 1) : 1 + pick(g, 2);
    for (std::size_t i = 0; i < n; ++i) s += (i ? "," : "") + item(g);
    return s + "]";
}

std::string line_instance(rng& g) {
    if (noisy(g) && chance(g, 0.1)) return wrong_type(g);
    return object_text(g, {{"sku", field(g, [](rng& r) { return string_text(r, "ABC-12"); })},
                           {"quantity", field(g, integer_text)},
                           {"price", field(g, decimal_text)}});
}

std::string order_instance(rng& g) {
    return object_text(g, {{"lines", field(g, [](rng& r) { return array_of(r, 4, line_instance); })},
                           {"hue", field(g, [](rng& r) { return string_text(r, "green"); })},
                           {"note", field(g, [](rng& r) { return string_text(r, "hi"); })},
                           {"counts", field(g,
                                            [](rng& r) {
                                                std::string s = "{";
                                                const std::size_t n = pick(r, noisy(r) ? 4 : 3);
                                                for (std::size_t i = 0; i < n; ++i)
                                                    s += (i ? "," : "") + std::string("\"k") + std::to_string(i) +
                                                         "\":" + integer_text(r);
                                                return s + "}";
                                            })},
                           {"urgent", field(g, [](rng& r) { return std::string(chance(r, 0.5) ? "true" : "false"); })},
                           {"ratio", field(g, double_text)},
                           {"id", field(g, integer_text)},
                           {"slots", field(g, [](rng& r) { return array_of(r, 5, integer_text); })}});
}

// The typed layer's stricter rules, recognised by code and checked against the value they
// are about, so that an off-by-one in the converter cannot hide behind them:
// - TYPE_MISMATCH for a whole number written as a float (and only for such a value);
// - OUT_OF_RANGE where the validator compares in doubles and the converter exactly: decimal
//   fields (named "price" here) and integers of magnitude ≥ 2^53;
// - TOO_MANY_DIGITS, on decimal fields only.
bool is_stricter_rule(const candor::issue& i, const boost::json::value& root) {
    boost::system::error_code ec;
    const boost::json::value* v = root.find_pointer(i.path, ec);
    if (!v || !v->is_number()) return false;
    const bool decimal_field = i.path.size() >= 6 && i.path.compare(i.path.size() - 6, 6, "/price") == 0;
    if (i.code == "TOO_MANY_DIGITS") return decimal_field;
    if (i.code == "OUT_OF_RANGE") {
        return decimal_field || std::fabs(v->to_number<double>()) >= 9007199254740992.0;
    }
    if (i.code == "TYPE_MISMATCH") {
        return v->is_double() && std::trunc(v->get_double()) == v->get_double() &&
               i.message.find("without a decimal point") != std::string::npos;
    }
    return false;
}

std::uint64_t seed_from_env() {
    if (const char* s = std::getenv("CANDOR_PROPERTY_SEED")) return std::strtoull(s, nullptr, 10);
    return std::random_device{}();
}

template <class Args>
void hold_converter_against_validator(const char* name, std::string (*generate)(rng&), int rounds) {
    const std::uint64_t seed = seed_from_env();
    SCOPED_TRACE("CANDOR_PROPERTY_SEED=" + std::to_string(seed) + " (" + name + ")");
    const candor::contract::contract<Args> c{name};
    auto compiled = candor::schema::validator::compile(c.schema());
    ASSERT_TRUE(compiled) << compiled.error().keyword_location << ": " << compiled.error().message;
    const candor::schema::validator* vp = compiled.operator->();
    ASSERT_NE(vp, nullptr);
    const candor::schema::validator& validator = *vp;

    rng g(seed);
    int accepted = 0, stricter = 0, rejected = 0;
    for (int round = 0; round < rounds; ++round) {
        static const double levels[] = {0.0, 0.02, 0.1, 0.3, 0.7};
        noise = levels[pick(g, std::size(levels))];
        const std::string text = generate(g);
        auto doc = candor::json::parse(text);
        if (!doc) continue;  // the intake's business (e.g. 1e400), not the contract's
        const auto& root = doc.value().root();
        candor::issue_list validator_issues;
        const bool valid = validator.validate(root, validator_issues);
        ASSERT_EQ(valid, validator.is_valid(root)) << text;
        boost::system::result<Args, candor::issue_list> typed{boost::system::in_place_error};
        try {
            typed = c.convert(root, &doc.value());
        } catch (const std::exception& e) {
            FAIL() << "converter threw on " << text << ": " << e.what();
        }
        if (!valid) {
            ASSERT_FALSE(typed) << "validator rejects, converter accepts: " << text << "\n"
                                << contract_test::codes(validator_issues);
            ++rejected;
            continue;
        }
        if (typed) {
            ++accepted;
            continue;
        }
        for (const auto& i : typed.error())
            ASSERT_TRUE(is_stricter_rule(i, root)) << "validator accepts, converter rejects: " << text << "\n"
                                                   << contract_test::codes(typed.error());
        ++stricter;
    }
    // The generator must exercise all three outcomes, or the property proves little.
    EXPECT_GT(accepted, rounds / 20);
    EXPECT_GT(stricter, 0);
    EXPECT_GT(rejected, rounds / 20);
    std::printf("[ property ] %s seed=%llu: %d accepted, %d stricter-rule, %d rejected\n", name,
                static_cast<unsigned long long>(seed), accepted, stricter, rejected);
    ::testing::Test::RecordProperty(std::string(name) + "_accepted", accepted);
    ::testing::Test::RecordProperty(std::string(name) + "_stricter", stricter);
    ::testing::Test::RecordProperty(std::string(name) + "_rejected", rejected);
}

TEST(ContractProperty, ConverterAgreesWithValidatorOnSearchArguments) {
    hold_converter_against_validator<prop::search_args>("search", search_instance, 3000);
}

TEST(ContractProperty, ConverterAgreesWithValidatorOnOrders) {
    hold_converter_against_validator<prop::order>("order", order_instance, 5000);
}

}  // namespace
