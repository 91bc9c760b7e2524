// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/contract.hpp>

#include <candor/json/intake.hpp>

#include "test_support.hpp"

#include <boost/describe/class.hpp>
#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace seeds {

struct search_args {
    int limit = 0;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (limit))

inline void describe_contract(candor::contract::spec<search_args>& s) {
    s.field(&search_args::limit).description("How many results").range(1, 10);
}

struct profile_args {
    std::string name;
    std::string email;
    std::optional<std::string> nickname;
    int age = 30;
};
BOOST_DESCRIBE_STRUCT(profile_args, (), (name, email, nickname, age))

inline void describe_contract(candor::contract::spec<profile_args>& s) {
    s.field(&profile_args::email).description("Where to write").format("email").max_length(254);
    s.field(&profile_args::age).optional().range(0, 150);
}

struct inner_args {
    int x = 0;
};
BOOST_DESCRIBE_STRUCT(inner_args, (), (x))
struct outer_args {
    inner_args inner;
};
BOOST_DESCRIBE_STRUCT(outer_args, (), (inner))

}  // namespace seeds

namespace {

using candor::contract::contract;

// The full path a tool call takes: raw text → strict intake → contract.
template <class Args>
boost::system::result<Args, candor::issue_list> check_text(const contract<Args>& c, std::string_view text) {
    auto doc = candor::json::parse(text);
    if (!doc) return {boost::system::in_place_error, candor::issue_list{candor::contract::intake_issue(doc.error())}};
    return c.check(doc.value().root(), &doc.value());
}

using contract_test::codes;
using contract_test::has_code;

const contract<seeds::search_args>& search() {
    static const contract<seeds::search_args> c{"search/1"};
    return c;
}

TEST(SearchContract, AcceptsAnIntegerInRange) {
    auto r = check_text(search(), R"({"limit":3})");
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().limit, 3);
}

TEST(SearchContract, DuplicateKeyIsRefusedAtIntake) {
    auto r = check_text(search(), R"({"limit":1,"limit":9})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "DUPLICATE_KEY", "/limit")) << codes(r.error());
    EXPECT_EQ(r.error().front().where, candor::layer::intake);
}

TEST(SearchContract, NaNIsInvalidJson) {
    auto r = check_text(search(), R"({"limit":NaN})");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().code, "INVALID_JSON");
}

TEST(SearchContract, HugeNumberIsNonFinite) {
    auto r = check_text(search(), R"({"limit":1e400})");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().code, "NON_FINITE_NUMBER");
}

TEST(SearchContract, TrueIsNeverAnInteger) {
    auto r = check_text(search(), R"({"limit":true})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/limit")) << codes(r.error());
}

TEST(SearchContract, WholeFloatIsNotAnIntegerWithoutOptIn) {
    auto r = check_text(search(), R"({"limit":3.0})");
    ASSERT_FALSE(r);
    ASSERT_EQ(r.error().size(), 1u) << codes(r.error());
    EXPECT_EQ(r.error().front().code, "TYPE_MISMATCH");
    EXPECT_EQ(r.error().front().path, "/limit");
    EXPECT_NE(r.error().front().message.find("without a decimal point"), std::string::npos)
        << r.error().front().message;
    EXPECT_NE(r.error().front().message.find("3.0"), std::string::npos) << r.error().front().message;
}

TEST(SearchContract, ExponentIntegerIsNotAnIntegerWithoutOptIn) {
    auto r = check_text(search(), R"({"limit":5e0})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/limit")) << codes(r.error());
}

TEST(SearchContract, AboveRangeIsOutOfRange) {
    auto r = check_text(search(), R"({"limit":11})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/limit")) << codes(r.error());
}

TEST(SearchContract, UnknownFieldIsRejected) {
    auto r = check_text(search(), R"({"limit":3,"extra":0})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "UNKNOWN_FIELD", "/extra")) << codes(r.error());
}

TEST(SearchContract, StringIsNeverCoercedToInteger) {
    auto r = check_text(search(), R"({"limit":"10"})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/limit")) << codes(r.error());
}

TEST(SearchContract, MissingLimitIsRequired) {
    auto r = check_text(search(), R"({})");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().code, "REQUIRED_MISSING") << codes(r.error());
}

TEST(SearchContract, MessageNamesTheRangeAndWhatCame) {
    auto r = search().convert(boost::json::parse(R"({"limit":true})"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().message, "'limit' must be an integer from 1 to 10; got true");
    EXPECT_EQ(r.error().front().keyword, "/properties/limit/type");
}

// An object converts as itself, without a copy into a value first: the same result, the same
// refusals (the converter re-checks what it converts by).
TEST(SearchContract, AnObjectConvertsLikeTheSameValue) {
    auto good = boost::json::parse(R"({"limit":4})");
    auto from_object = search().convert(good.as_object());
    ASSERT_TRUE(from_object);
    EXPECT_EQ(from_object->limit, 4);
    for (const char* bad : {R"({"limit":11})", R"({"limit":"4"})", R"({"limit":4,"extra":1})", R"({})"}) {
        auto v = boost::json::parse(bad);
        auto as_object = search().convert(v.as_object());
        auto as_value = search().convert(v);
        ASSERT_FALSE(as_object) << bad;
        ASSERT_FALSE(as_value) << bad;
        EXPECT_EQ(codes(as_object.error()), codes(as_value.error())) << bad;
    }
}

TEST(SearchContract, WholeFloatMessageShowsAFloatEvenWithoutTheDocument) {
    auto r = search().convert(boost::json::parse(R"({"limit":3.0})"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().front().message.find("got 3.0 "), std::string::npos) << r.error().front().message;
}

TEST(SearchContract, CarriesVersionAndBudget) {
    candor::contract::contract_options opts;
    opts.budget.max_depth = 3;
    contract<seeds::search_args> c{"search/7", opts};
    EXPECT_EQ(c.version(), "search/7");
    EXPECT_EQ(c.budget().max_depth, 3u);
}

TEST(SearchContract, BudgetIsCheckedBeforeTheSchema) {
    candor::contract::contract_options opts;
    opts.budget.max_depth = 2;
    contract<seeds::search_args> c{"search/1", opts};
    // Over budget and wrong in every other way: only the budget is reported.
    auto r = check_text(c, R"({"limit":[[1]],"extra":true})");
    ASSERT_FALSE(r);
    ASSERT_EQ(r.error().size(), 1u) << codes(r.error());
    EXPECT_EQ(r.error().front().code, "DEPTH_LIMIT");
    EXPECT_EQ(r.error().front().where, candor::layer::intake);
    EXPECT_EQ(r.error().front().details.at("limit").as_uint64(), 2u);

    candor::contract::contract_options nodes;
    nodes.budget.max_nodes = 3;
    contract<seeds::search_args> small{"search/1", nodes};
    auto n = check_text(small, R"({"limit":1,"a":2,"b":3})");
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().front().code, "NODE_LIMIT");
}

// A caller that measured the budget (the MCP server, against the tool's) skips that layer only.
TEST(SearchContract, WithinBudgetTheSchemaAndConversionStillRun) {
    candor::contract::contract_options opts;
    opts.budget.max_depth = 2;
    contract<seeds::search_args> c{"search/1", opts};
    auto doc = candor::json::parse(R"({"limit":[[1]]})");
    ASSERT_TRUE(doc);
    auto r = c.check_within_budget(doc->root(), &*doc);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().code, "TYPE_MISMATCH") << codes(r.error());
    EXPECT_EQ(r.error().front().where, candor::layer::contract);
    auto over = candor::contract::over_budget(doc->root(), opts.budget);
    ASSERT_TRUE(over);
    EXPECT_EQ(over->code, "DEPTH_LIMIT");
    EXPECT_EQ(over->details.at("limit").as_uint64(), 2u);
    EXPECT_FALSE(candor::contract::over_budget(doc->root(), {}));
    auto fine = candor::json::parse(R"({"limit":4})");
    ASSERT_TRUE(fine);
    auto ok = c.check_within_budget(fine->root(), &*fine);
    ASSERT_TRUE(ok) << codes(ok.error());
    EXPECT_EQ(ok->limit, 4);
}

// An argument beside the struct's fields (an approval's plan_token): declared in the schema,
// checked by it, and passed over by the conversion — at the root only.
TEST(SearchContract, AnExtraArgumentIsDeclaredCheckedAndPassedOver) {
    candor::contract::contract_options opts;
    opts.extra_arguments["note"] = boost::json::object{{"type", "string"}, {"maxLength", 4}};
    contract<seeds::search_args> c{"search/1", opts};
    EXPECT_EQ(c.schema().at("properties").at("note").at("type"), "string");
    EXPECT_EQ(c.schema().at("additionalProperties"), false);

    auto with = check_text(c, R"({"limit":2,"note":"abc"})");
    ASSERT_TRUE(with) << codes(with.error());
    EXPECT_EQ(with->limit, 2);
    auto without = check_text(c, R"({"limit":2})");
    ASSERT_TRUE(without) << codes(without.error());

    auto wrong = check_text(c, R"({"limit":2,"note":7})");
    ASSERT_FALSE(wrong);
    EXPECT_TRUE(has_code(wrong.error(), "TYPE_MISMATCH", "/note")) << codes(wrong.error());
    auto long_note = check_text(c, R"({"limit":2,"note":"abcde"})");
    ASSERT_FALSE(long_note);
    EXPECT_EQ(long_note.error().front().path, "/note");
    // Still unknown to a contract without it.
    auto plain = check_text(search(), R"({"limit":2,"note":"abc"})");
    ASSERT_FALSE(plain);
    EXPECT_TRUE(has_code(plain.error(), "UNKNOWN_FIELD", "/note"));

    // The conversion alone (the schema skipped) passes over the extra argument too.
    boost::json::object o{{"limit", 3}, {"note", "x"}};
    auto converted = c.convert(o);
    ASSERT_TRUE(converted) << codes(converted.error());

    // Below the root the name is an unknown field again, for the schema and the conversion.
    candor::contract::contract_options nested_opts;
    nested_opts.extra_arguments["note"] = boost::json::object{{"type", "string"}};
    contract<seeds::outer_args> nested{"outer/1", nested_opts};
    auto deep = check_text(nested, R"({"inner":{"x":1,"note":"a"},"note":"b"})");
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error().front().path, "/inner/note");
    boost::json::object deep_o{{"inner", {{"x", 1}, {"note", "a"}}}, {"note", "b"}};
    auto deep_converted = nested.convert(deep_o);
    ASSERT_FALSE(deep_converted);
    EXPECT_EQ(deep_converted.error().front().code, "UNKNOWN_FIELD");
    EXPECT_EQ(deep_converted.error().front().path, "/inner/note");

    candor::contract::contract_options clash;
    clash.extra_arguments["limit"] = boost::json::object{{"type", "string"}};
    EXPECT_THROW((contract<seeds::search_args>{"search/1", clash}), std::logic_error);
}

// --- profile: required string email ---------------------------------------------------------

const contract<seeds::profile_args>& profile() {
    static const contract<seeds::profile_args> c{"profile/1"};
    return c;
}

TEST(ProfileContract, NullIsNotAMissingKey) {
    auto r = check_text(profile(), R"({"name":"Ada","email":null})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/email")) << codes(r.error());
    for (const auto& i : r.error()) EXPECT_NE(i.code, "REQUIRED_MISSING");
}

TEST(ProfileContract, AbsentRequiredStringIsMissing) {
    auto r = check_text(profile(), R"({"name":"Ada"})");
    ASSERT_FALSE(r);
    ASSERT_EQ(r.error().size(), 1u) << codes(r.error());
    EXPECT_EQ(r.error().front().code, "REQUIRED_MISSING");
    EXPECT_NE(r.error().front().message.find("email"), std::string::npos);
}

TEST(ProfileContract, AcceptsAdaAndKeepsDefaults) {
    auto r = check_text(profile(), R"({"name":"Ada","email":"ada@example.com"})");
    ASSERT_TRUE(r) << codes(r.error());
    EXPECT_EQ(r.value().name, "Ada");
    EXPECT_EQ(r.value().email, "ada@example.com");
    EXPECT_FALSE(r.value().nickname.has_value());
    EXPECT_EQ(r.value().age, 30);  // optional field absent: default member initializer kept
}

TEST(ProfileContract, OptionalFieldIsNotNullable) {
    auto r = check_text(profile(), R"({"name":"Ada","email":"a@b.c","nickname":null})");
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/nickname")) << codes(r.error());
}

TEST(ProfileContract, ReportsEveryIssueOfTheLayer) {
    auto r = profile().convert(boost::json::parse(R"({"email":7,"age":-1,"x":1})"));
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "UNKNOWN_FIELD", "/x")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "REQUIRED_MISSING", "/name")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "TYPE_MISMATCH", "/email")) << codes(r.error());
    EXPECT_TRUE(has_code(r.error(), "OUT_OF_RANGE", "/age")) << codes(r.error());
}

TEST(ProfileContract, FormatIsAnAnnotationUnlessAsserted) {
    const auto text = R"({"name":"Ada","email":"not an email"})";
    EXPECT_TRUE(check_text(profile(), text));
    candor::contract::contract_options opts;
    opts.format_assertion = true;
    const contract<seeds::profile_args> strict{"profile/1", opts};
    auto r = check_text(strict, text);
    ASSERT_FALSE(r);
    EXPECT_TRUE(has_code(r.error(), "FORMAT_MISMATCH", "/email")) << codes(r.error());
}

}  // namespace
