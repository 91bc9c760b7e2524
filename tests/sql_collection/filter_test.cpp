// SPDX-License-Identifier: BSL-1.0
#include <candor/sql_collection/filter.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <string>

namespace sc = candor::sql_collection;

namespace {

sc::table_spec tickets() {
    return {"tickets",
            {{"id", sc::field_type::text, false, ""},
             {"status", sc::field_type::text, false, ""},
             {"priority", sc::field_type::integer, false, ""},
             {"score", sc::field_type::number, false, ""},
             {"urgent", sc::field_type::boolean, false, ""},
             {"owner", sc::field_type::text, true, ""},
             {"created_at", sc::field_type::date, false, ""}},
            "id"};
}

boost::system::result<sc::sql_condition, candor::issue_list> compile(std::string_view text, sc::filter_limits l = {}) {
    return sc::compile_filter(boost::json::parse(text), tickets(), l, "/filter");
}

// The one issue a filter is refused with.
candor::issue only_issue(std::string_view text, sc::filter_limits l = {}) {
    auto r = compile(text, l);
    EXPECT_FALSE(r) << text;
    if (r) return {};
    const auto issues = r.error();  // a copy: result::error() returns by value
    EXPECT_EQ(issues.size(), 1u) << text;
    const auto& i = issues.front();
    EXPECT_TRUE(i.repairable);
    EXPECT_FALSE(i.message.empty());
    return i;
}

}  // namespace

TEST(SqlFilter, EmptyFilterMatchesEverything) {
    auto r = compile("{}");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->sql, "TRUE");
    EXPECT_TRUE(r->params.empty());
}

TEST(SqlFilter, ConditionsBecomeBoundParametersOnly) {
    auto r = compile(R"({"and":[{"status":"open"},{"priority":{"gte":2,"lt":5}}],"owner":{"in":["a","b"]}})");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->sql, R"((("status" = ? AND ("priority" >= ? AND "priority" < ?)) AND "owner" IN (?, ?)))") << r->sql;
    ASSERT_EQ(r->params.size(), 5u);
    EXPECT_EQ(std::get<std::string>(r->params[0]), "open");
    EXPECT_EQ(std::get<std::int64_t>(r->params[1]), 2);
}

TEST(SqlFilter, NullTestsOnNullableFields) {
    auto r = compile(R"({"or":[{"owner":null},{"owner":{"ne":null}}]})");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->sql, R"(("owner" IS NULL OR "owner" IS NOT NULL))");
    EXPECT_EQ(only_issue(R"({"status":null})").code, "FILTER_TYPE_MISMATCH");
}

TEST(SqlFilter, TheTextRunsOnSqliteAndPostgres) {
    // `ne` counts null as different (IS DISTINCT FROM, not SQLite's IS NOT), and a condition
    // nothing matches is FALSE, not the integer 0 (PostgreSQL wants a boolean).
    auto ne = compile(R"({"owner":{"ne":"a"}})");
    ASSERT_TRUE(ne);
    EXPECT_EQ(ne->sql, R"("owner" IS DISTINCT FROM ?)");
    auto none = compile(R"({"status":{"in":[]}})");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->sql, "FALSE");
    auto both = compile(R"({"or":[{"status":{"in":[]}},{"urgent":true}]})");
    ASSERT_TRUE(both);
    EXPECT_EQ(both->sql, R"((FALSE OR "urgent" = ?))");
    EXPECT_EQ(std::get<std::int64_t>(both->params.at(0)), 1);  // booleans are 0/1 on both engines
}

TEST(SqlFilter, TooDeepIsReportedAtTheGroupThatExceedsTheBudget) {
    const auto i = only_issue(R"({"and":[{"or":[{"and":[{"or":[{"status":"open"}]}]}]}]})", {.max_depth = 3});
    EXPECT_EQ(i.code, "FILTER_TOO_DEEP");
    EXPECT_EQ(i.path, "/filter/and/0/or/0/and/0/or");
    EXPECT_EQ(i.message, "filter is nested too deeply: at most 3 levels of groups");
}

TEST(SqlFilter, TooLargeCountsEveryValue) {
    std::string big = R"({"or":[)";
    for (int i = 0; i < 40; ++i) big += std::string(i ? "," : "") + R"({"priority":1})";
    big += "]}";
    const auto i = only_issue(big, {.max_nodes = 50});
    EXPECT_EQ(i.code, "FILTER_TOO_LARGE");
    EXPECT_EQ(i.path, "/filter");
    EXPECT_TRUE(compile(big, {.max_nodes = 82}));
}

TEST(SqlFilter, BudgetIsCheckedBeforeTheRules) {
    // Unknown fields and operators too, but the budget speaks first (and alone).
    const auto i = only_issue(R"({"nope":1,"and":[{"and":[{"status":{"like":"x"}}]}]})", {.max_depth = 1});
    EXPECT_EQ(i.code, "FILTER_TOO_DEEP");
}

TEST(SqlFilter, UnknownFieldNamesThePathAndTheAllowedFields) {
    const auto i = only_issue(R"({"and":[{"status":"open"},{"stat":"open"}]})");
    EXPECT_EQ(i.code, "FILTER_UNKNOWN_FIELD");
    EXPECT_EQ(i.path, "/filter/and/1/stat");
    EXPECT_NE(i.message.find("status"), std::string::npos);
    EXPECT_EQ(i.details.at("allowed").as_array().size(), 7u);
}

TEST(SqlFilter, UnknownOperatorListsTheFieldsOperators) {
    auto i = only_issue(R"({"status":{"like":"op%"}})");
    EXPECT_EQ(i.code, "FILTER_UNKNOWN_OPERATOR");
    EXPECT_EQ(i.path, "/filter/status/like");
    EXPECT_EQ(i.details.at("allowed").as_array().size(), 7u);
    i = only_issue(R"({"urgent":{"lt":true}})");
    EXPECT_EQ(i.code, "FILTER_UNKNOWN_OPERATOR");
    EXPECT_EQ(i.details.at("allowed").as_array().size(), 3u);
}

TEST(SqlFilter, WrongTypesAreTypeMismatches) {
    struct c {
        const char* filter;
        const char* path;
    } cases[] = {
        {R"({"priority":"2"})", "/filter/priority"},
        {R"({"priority":2.5})", "/filter/priority"},
        {R"({"score":"high"})", "/filter/score"},
        {R"({"urgent":1})", "/filter/urgent"},
        {R"({"status":["open","closed"]})", "/filter/status"},
        {R"({"status":{"in":"open"}})", "/filter/status/in"},
        {R"({"status":{"in":["open",3]}})", "/filter/status/in/1"},
        {R"({"created_at":{"gte":"2026-13-01"}})", "/filter/created_at/gte"},
        {R"({"created_at":"yesterday"})", "/filter/created_at"},
    };
    for (const auto& x : cases) {
        const auto i = only_issue(x.filter);
        EXPECT_EQ(i.code, "FILTER_TYPE_MISMATCH") << x.filter;
        EXPECT_EQ(i.path, x.path) << x.filter;
    }
    EXPECT_NE(only_issue(R"({"status":["open"]})").message.find("\"in\""), std::string::npos);
}

TEST(SqlFilter, InListTooLong) {
    std::string list;
    for (int i = 0; i < 51; ++i) list += std::string(i ? "," : "") + std::to_string(i);
    const auto i = only_issue(R"({"priority":{"in":[)" + list + "]}}");
    EXPECT_EQ(i.code, "FILTER_LIST_TOO_LONG");
    EXPECT_EQ(i.path, "/filter/priority/in");
    EXPECT_EQ(i.details.at("limit").as_uint64(), 50u);
}

TEST(SqlFilter, MalformedShapes) {
    EXPECT_EQ(only_issue(R"({"and":{}})").code, "FILTER_MALFORMED");
    EXPECT_EQ(only_issue(R"({"or":[]})").code, "FILTER_MALFORMED");
    EXPECT_EQ(only_issue(R"({"and":[1]})").path, "/filter/and/0");
    EXPECT_EQ(only_issue(R"({"and":[{}]})").code, "FILTER_MALFORMED");
    EXPECT_EQ(only_issue(R"({"status":{}})").code, "FILTER_MALFORMED");
    EXPECT_EQ(only_issue(R"(["status"])").code, "FILTER_MALFORMED");
}

TEST(SqlFilter, EveryRuleIssueIsReportedInDocumentOrder) {
    auto r = compile(R"({"and":[{"stat":"x"},{"priority":"high"},{"status":{"near":"y"}}]})");
    ASSERT_FALSE(r);
    const auto issues = r.error();
    ASSERT_EQ(issues.size(), 3u);
    EXPECT_EQ(issues[0].code, "FILTER_UNKNOWN_FIELD");
    EXPECT_EQ(issues[1].code, "FILTER_TYPE_MISMATCH");
    EXPECT_EQ(issues[2].code, "FILTER_UNKNOWN_OPERATOR");
}

TEST(SqlFilter, JsonPointerEscapesFieldNames) {
    const auto i = only_issue(R"({"a/b~c":1})");
    EXPECT_EQ(i.path, "/filter/a~1b~0c");
}

TEST(SqlFilter, HostileValuesNeverReachTheSqlText) {
    const std::string hostile[] = {"' OR 1=1 --", std::string("x\0y", 3), "\"; DROP TABLE tickets; --",
                                   std::string(256, 'z')};
    for (const auto& h : hostile) {
        boost::json::array list;
        list.emplace_back(h);
        list.emplace_back("ok");
        boost::json::object in;
        in["in"] = std::move(list);
        boost::json::object f;
        f["status"] = h;
        f["owner"] = std::move(in);
        auto r = sc::compile_filter(f, tickets(), {}, "/filter");
        ASSERT_TRUE(r);
        EXPECT_EQ(r->sql, R"(("status" = ? AND "owner" IN (?, ?)))");
        EXPECT_EQ(std::get<std::string>(r->params[0]), h);
    }
}

TEST(SqlFilter, VeryLongValuesAreRefused) {
    boost::json::array group;
    group.emplace_back(boost::json::object{{"status", std::string(10'000, 'a')}});
    boost::json::object f;
    f["and"] = std::move(group);
    auto r = sc::compile_filter(f, tickets(), {}, "/filter");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().front().code, "FILTER_VALUE_TOO_LONG");
    EXPECT_EQ(r.error().front().path, "/filter/and/0/status");
    EXPECT_EQ(r.error().front().details.at("limit").as_uint64(), 256u);
}
