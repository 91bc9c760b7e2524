// SPDX-License-Identifier: BSL-1.0
#include <candor/schema/validator.hpp>

#include <candor/json/intake.hpp>

#include <gtest/gtest.h>

namespace {
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t sanitizer_stack_factor = 16;
#else
constexpr std::size_t sanitizer_stack_factor = 1;
#endif
}  // namespace

#include <atomic>
#include <pthread.h>
#include <thread>

namespace {

namespace bj = boost::json;
using candor::schema::options;
using candor::schema::validator;

bj::value json(std::string_view text) {
    auto doc = candor::json::parse(text);
    EXPECT_TRUE(doc) << text;
    return bj::value(doc->root(), bj::storage_ptr());
}

validator compile(std::string_view schema, const options& opts = {}) {
    auto v = validator::compile(json(schema), opts);
    EXPECT_TRUE(v) << schema << ": " << (v ? "" : v.error().keyword_location + " " + v.error().message);
    return std::move(*v);
}

candor::issue_list issues_of(const validator& v, std::string_view instance) {
    candor::issue_list out;
    bool valid = v.validate(json(instance), out);
    EXPECT_EQ(valid, out.empty()) << instance;
    EXPECT_EQ(valid, v.is_valid(json(instance))) << "is_valid disagrees with validate on " << instance;
    return out;
}

/// The one issue reported for `instance` (fails the test unless there is exactly one).
candor::issue only_issue(const validator& v, std::string_view instance) {
    auto out = issues_of(v, instance);
    EXPECT_EQ(out.size(), 1u) << instance;
    return out.empty() ? candor::issue{} : out.front();
}

constexpr std::string_view search_schema = R"({
  "type": "object",
  "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 10}},
  "additionalProperties": false
})";

constexpr std::string_view profile_schema = R"({
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "email": {"type": "string", "format": "email"},
    "approved": {"type": "boolean"}
  },
  "required": ["name", "email"],
  "additionalProperties": false
})";

TEST(Validator, AcceptsAnIntegerInRange) {
    auto v = compile(search_schema);
    EXPECT_TRUE(v.is_valid(json(R"({"limit":3})")));
    EXPECT_TRUE(issues_of(v, R"({"limit":3})").empty());
}

TEST(Validator, TrueIsNotAnIntegerAndTheMessageSaysTheRange) {
    auto v = compile(search_schema);
    auto is = only_issue(v, R"({"limit":true})");
    EXPECT_EQ(is.code, "TYPE_MISMATCH");
    EXPECT_EQ(is.path, "/limit");
    EXPECT_EQ(is.keyword, "/properties/limit/type");
    EXPECT_EQ(is.message, "'limit' must be an integer from 1 to 10; got true");
    EXPECT_TRUE(is.repairable);
    EXPECT_EQ(is.where, candor::layer::contract);
}

TEST(Validator, AboveMaximumIsOutOfRange) {
    auto v = compile(search_schema);
    auto is = only_issue(v, R"({"limit":11})");
    EXPECT_EQ(is.code, "OUT_OF_RANGE");
    EXPECT_EQ(is.path, "/limit");
    EXPECT_EQ(is.keyword, "/properties/limit/maximum");
    EXPECT_EQ(is.message, "'limit' must be an integer from 1 to 10; got 11");
}

TEST(Validator, ExclusiveBoundsAreNamedInTheMessage) {
    auto v = compile(R"({"properties":{"ratio":{"type":"number","exclusiveMinimum":0,"maximum":1}}})");
    auto is = only_issue(v, R"({"ratio":0})");
    EXPECT_EQ(is.code, "OUT_OF_RANGE");
    EXPECT_EQ(is.keyword, "/properties/ratio/exclusiveMinimum");
    EXPECT_EQ(is.message, "'ratio' must be a number greater than 0 and at most 1; got 0");
}

TEST(Validator, ThreePointZeroIsAnIntegerPerTheSpecification) {
    // JSON Schema: 3.0 is an integer. The typed layer (candor::contract) is stricter.
    auto v = compile(search_schema);
    EXPECT_TRUE(v.is_valid(json(R"({"limit":3.0})")));
}

TEST(Validator, AdditionalPropertiesFalseReportsTheUnknownMember) {
    auto v = compile(search_schema);
    auto is = only_issue(v, R"({"limit":3,"extra":0})");
    EXPECT_EQ(is.code, "UNKNOWN_FIELD");
    EXPECT_EQ(is.path, "/extra");
    EXPECT_EQ(is.keyword, "/additionalProperties");
    EXPECT_EQ(is.message, "unknown argument 'extra'; expected 'limit'");
}

TEST(Validator, UnknownArgumentMessageNamesTheArgument) {
    auto v = compile(profile_schema);
    auto is = only_issue(v, R"({"name":"Ada","email":"ada@example.com","approved_by_manager":true})");
    EXPECT_EQ(is.code, "UNKNOWN_FIELD");
    EXPECT_EQ(is.path, "/approved_by_manager");
    EXPECT_EQ(is.message.rfind("unknown argument 'approved_by_manager'", 0), 0u) << is.message;
}

TEST(Validator, NullIsNotAMissingKey) {
    auto v = compile(profile_schema);
    auto is = only_issue(v, R"({"name":"Ada","email":null})");
    EXPECT_EQ(is.code, "TYPE_MISMATCH");
    EXPECT_EQ(is.path, "/email");
    EXPECT_EQ(is.message, "'email' must be a string; got null");
}

TEST(Validator, MissingRequiredPointsAtTheMissingMember) {
    auto v = compile(profile_schema);
    auto is = only_issue(v, R"({"name":"Ada"})");
    EXPECT_EQ(is.code, "REQUIRED_MISSING");
    EXPECT_EQ(is.path, "/email");
    EXPECT_EQ(is.keyword, "/required");
    EXPECT_EQ(is.message, "missing required argument 'email'");
    EXPECT_TRUE(v.is_valid(json(R"({"name":"Ada","email":"ada@example.com"})")));
}

TEST(Validator, DependentRequiredSaysWhichMemberRequiresIt) {
    auto v = compile(R"({"dependentRequired":{"card":["cvv"]}})");
    auto is = only_issue(v, R"({"card":"4111"})");
    EXPECT_EQ(is.code, "REQUIRED_MISSING");
    EXPECT_EQ(is.path, "/cvv");
    EXPECT_EQ(is.message, "missing argument 'cvv', required when 'card' is present");
}

TEST(Validator, EnumMismatchListsTheAllowedValues) {
    auto v = compile(R"({"properties":{"sort":{"enum":["asc","desc"]}}})");
    auto is = only_issue(v, R"({"sort":"up"})");
    EXPECT_EQ(is.code, "ENUM_MISMATCH");
    EXPECT_EQ(is.keyword, "/properties/sort/enum");
    EXPECT_EQ(is.message, "'sort' must be one of \"asc\", \"desc\"; got \"up\"");
    ASSERT_TRUE(is.details.contains("allowed"));
    EXPECT_EQ(is.details.at("allowed").as_array().size(), 2u);
}

TEST(Validator, EnumComparesNumbersByValue) {
    auto v = compile(R"({"enum":[1, {"a":[2.0]}]})");
    EXPECT_TRUE(v.is_valid(json("1.0")));
    EXPECT_TRUE(v.is_valid(json(R"({"a":[2]})")));
    EXPECT_FALSE(v.is_valid(json("true")));
}

TEST(Validator, ConstMismatch) {
    auto v = compile(R"({"properties":{"kind":{"const":"order"}}})");
    auto is = only_issue(v, R"({"kind":"refund"})");
    EXPECT_EQ(is.code, "CONST_MISMATCH");
    EXPECT_EQ(is.message, "'kind' must be \"order\"; got \"refund\"");
}

TEST(Validator, ConstAndEnumShowShortContainersAsJson) {
    auto v = compile(R"({"properties":{"point":{"const":{"x":0,"y":0}},"pair":{"enum":[[1,2],[3,4]]}}})");
    EXPECT_EQ(only_issue(v, R"({"point":{"x":1}})").message, R"('point' must be {"x":0,"y":0}; got {"x":1})");
    EXPECT_EQ(only_issue(v, R"({"pair":[2,1]})").message, "'pair' must be one of [1,2], [3,4]; got [2,1]");
}

TEST(Validator, NotMultipleOf) {
    auto v = compile(R"({"properties":{"qty":{"type":"integer","multipleOf":5},"price":{"multipleOf":0.01}}})");
    auto is = only_issue(v, R"({"qty":7})");
    EXPECT_EQ(is.code, "NOT_MULTIPLE_OF");
    EXPECT_EQ(is.message, "'qty' must be a multiple of 5; got 7");
    EXPECT_TRUE(v.is_valid(json(R"({"price":19.99})")));
    EXPECT_FALSE(v.is_valid(json(R"({"price":19.995})")));
}

TEST(Validator, StringLengthCountsCodePoints) {
    auto v = compile(R"({"type":"string","minLength":2,"maxLength":3})");
    EXPECT_TRUE(v.is_valid(json(R"("\u00e9\u00e9")")));    // 2 code points, 4 bytes
    EXPECT_TRUE(v.is_valid(json(R"("\ud83d\ude00ab")")));  // emoji counts once
    auto shorter = only_issue(v, R"("a")");
    EXPECT_EQ(shorter.code, "TOO_SHORT");
    EXPECT_EQ(shorter.message, "the arguments must be a string of 2 to 3 characters; got 1 character");
    auto longer = only_issue(v, R"("abcd")");
    EXPECT_EQ(longer.code, "TOO_LONG");
    EXPECT_EQ(longer.keyword, "/maxLength");
}

TEST(Validator, ArrayAndObjectSizes) {
    auto v = compile(R"({"properties":{"tags":{"minItems":1,"maxItems":2},"meta":{"maxProperties":1}}})");
    EXPECT_EQ(only_issue(v, R"({"tags":[]})").code, "TOO_SHORT");
    EXPECT_EQ(only_issue(v, R"({"tags":[1,2,3]})").message, "'tags' must have at most 2 items; got 3");
    EXPECT_EQ(only_issue(v, R"({"meta":{"a":1,"b":2}})").code, "TOO_LONG");
}

TEST(Validator, ItemsFalseAfterPrefixIsTooLong) {
    auto v = compile(R"({"prefixItems":[{"type":"number"},{"type":"number"}],"items":false})");
    auto is = only_issue(v, "[1,2,3]");
    EXPECT_EQ(is.code, "TOO_LONG");
    EXPECT_EQ(is.keyword, "/items");
}

TEST(Validator, PatternMismatchUsesEcmaSyntaxOnRe2) {
    auto v = compile(R"({"properties":{"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}}})");
    EXPECT_TRUE(v.is_valid(json(R"({"sku":"ABC-1234"})")));
    auto is = only_issue(v, R"({"sku":"abc-1234"})");
    EXPECT_EQ(is.code, "PATTERN_MISMATCH");
    EXPECT_EQ(is.keyword, "/properties/sku/pattern");
    EXPECT_EQ(is.message, "'sku' must match the pattern ^[A-Z]{3}-\\d{4}$; got \"abc-1234\"");
}

TEST(Validator, PatternIsASearchNotAFullMatch) {
    auto v = compile(R"({"pattern":"b+"})");
    EXPECT_TRUE(v.is_valid(json(R"("abbc")")));
}

TEST(Validator, UnicodePropertyEscapes) {
    auto v = compile(R"({"pattern":"^\\p{Letter}+$"})");
    EXPECT_TRUE(v.is_valid(json(R"("\u00e9t\u00e9")")));
    EXPECT_FALSE(v.is_valid(json(R"("a1")")));
}

TEST(Validator, FormatIsAnAnnotationUnlessOptedIn) {
    constexpr std::string_view schema = R"({"properties":{"email":{"type":"string","format":"email"}}})";
    EXPECT_TRUE(compile(schema).is_valid(json(R"({"email":"not an address"})")));
    options opts;
    opts.format_assertion = true;
    auto v = compile(schema, opts);
    auto is = only_issue(v, R"({"email":"not an address"})");
    EXPECT_EQ(is.code, "FORMAT_MISMATCH");
    EXPECT_EQ(is.keyword, "/properties/email/format");
    EXPECT_TRUE(v.is_valid(json(R"({"email":"ada@example.com"})")));
}

TEST(Validator, AssertedFormats) {
    options opts;
    opts.format_assertion = true;
    struct example {
        const char* format;
        const char* good;
        const char* bad;
    };
    for (const auto& e :
         {example{"date", "2024-02-29", "2023-02-29"}, example{"date-time", "2024-05-01T12:00:00Z", "2024-05-01 12:00"},
          example{"time", "23:59:60Z", "24:00:00Z"},
          example{"uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"},
          example{"ipv4", "192.168.0.1", "192.168.0.256"}, example{"ipv6", "::1", "1:::2"},
          example{"uri", "https://example.com/a?b#c", "/relative/path"},
          example{"email", "a.b@example.com", "a..b@example.com"}}) {
        auto v = compile(std::string(R"({"format":")") + e.format + R"("})", opts);
        EXPECT_TRUE(v.is_valid(bj::value(e.good))) << e.format << " " << e.good;
        EXPECT_FALSE(v.is_valid(bj::value(e.bad))) << e.format << " " << e.bad;
    }
}

TEST(Validator, NotUniqueNamesTheEqualItems) {
    auto v = compile(R"({"uniqueItems":true})");
    auto is = only_issue(v, R"([1, {"a":1}, 2, {"a":1.0}])");
    EXPECT_EQ(is.code, "NOT_UNIQUE");
    EXPECT_EQ(is.message, "the arguments must not contain duplicates; items 1 and 3 are equal ({\"a\":1})");
    std::string many = "[";
    for (int i = 0; i < 1000; ++i) many += std::to_string(i) + ",";
    many += "999.0]";
    EXPECT_FALSE(v.is_valid(json(many)));
}

TEST(Validator, AnyOfSummarisesItsBranches) {
    auto v = compile(R"({"properties":{"id":{"anyOf":[{"type":"integer"},{"type":"string","pattern":"^[a-z]+$"}]}}})");
    auto is = only_issue(v, R"({"id":"ABC"})");
    EXPECT_EQ(is.code, "SCHEMA_MISMATCH");
    EXPECT_EQ(is.path, "/id");
    EXPECT_EQ(is.keyword, "/properties/id/anyOf");
    EXPECT_NE(is.message.find("must match at least one of 2 alternatives"), std::string::npos) << is.message;
    EXPECT_NE(is.message.find("must be an integer"), std::string::npos) << is.message;
    EXPECT_NE(is.message.find("must match the pattern"), std::string::npos) << is.message;
    ASSERT_TRUE(is.details.contains("branches"));
    EXPECT_EQ(is.details.at("branches").as_array().size(), 2u);
}

TEST(Validator, OneOfSaysWhichAlternativesMatched) {
    auto v = compile(R"({"oneOf":[{"type":"number"},{"minimum":0}]})");
    auto is = only_issue(v, "5");
    EXPECT_EQ(is.code, "SCHEMA_MISMATCH");
    EXPECT_NE(is.message.find("alternatives 1, 2"), std::string::npos) << is.message;
}

TEST(Validator, IfThenElseReportsTheBranchIssuesDirectly) {
    auto v = compile(R"({"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["card_number"]}})");
    auto is = only_issue(v, R"({"kind":"card"})");
    EXPECT_EQ(is.code, "REQUIRED_MISSING");
    EXPECT_EQ(is.keyword, "/then/required");
}

TEST(Validator, UnevaluatedPropertiesFalseIsUnknownField) {
    auto v = compile(R"({"allOf":[{"properties":{"a":true}}],"properties":{"b":true},"unevaluatedProperties":false})");
    EXPECT_TRUE(v.is_valid(json(R"({"a":1,"b":2})")));
    auto is = only_issue(v, R"({"a":1,"c":3})");
    EXPECT_EQ(is.code, "UNKNOWN_FIELD");
    EXPECT_EQ(is.path, "/c");
    EXPECT_EQ(is.message, "unknown argument 'c'");
}

TEST(Validator, NestedPathsAreNamedForAModel) {
    auto v = compile(R"({"properties":{"filters":{"items":{"properties":{"op":{"enum":["eq","lt"]}}}}}})");
    auto is = only_issue(v, R"({"filters":[{"op":"eq"},{"op":"like"}]})");
    EXPECT_EQ(is.path, "/filters/1/op");
    EXPECT_EQ(is.message.rfind("'filters[1].op' must be one of", 0), 0u) << is.message;
}

TEST(Validator, EscapesPointerTokens) {
    auto v = compile(R"({"required":["a/b~c"]})");
    EXPECT_EQ(only_issue(v, "{}").path, "/a~1b~0c");
}

TEST(Validator, MaxIssuesCapsTheList) {
    options opts;
    opts.max_issues = 2;
    auto v = compile(R"({"additionalProperties":false})", opts);
    candor::issue_list out;
    EXPECT_FALSE(v.validate(json(R"({"a":1,"b":2,"c":3})"), out));
    EXPECT_EQ(out.size(), 2u);
}

TEST(Validator, RefAndDefsResolve) {
    auto v =
        compile(R"({"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"page":{"$ref":"#/$defs/pos"}}})");
    auto is = only_issue(v, R"({"page":0})");
    EXPECT_EQ(is.code, "OUT_OF_RANGE");
    EXPECT_EQ(is.keyword, "/$defs/pos/minimum");  // the schema location of the failing keyword
    EXPECT_EQ(is.path, "/page");
}

TEST(Validator, MetaschemaResolvesWithoutAResolver) {
    auto v = compile(
        R"({"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"https://json-schema.org/draft/2020-12/schema"})");
    EXPECT_TRUE(v.is_valid(json(R"({"type":"integer","minimum":1})")));
    EXPECT_FALSE(v.is_valid(json(R"({"type":"integr"})")));
    EXPECT_FALSE(v.is_valid(json(R"({"minLength":-1})")));
}

TEST(Validator, RemoteReferencesGoThroughTheResolverOnly) {
    options opts;
    int calls = 0;
    opts.resolve = [&](std::string_view uri) -> std::optional<bj::value> {
        ++calls;
        if (uri == "https://example.com/money.json") return json(R"({"type":"string","pattern":"^\\d+\\.\\d{2}$"})");
        return std::nullopt;
    };
    auto v = compile(R"({"properties":{"price":{"$ref":"https://example.com/money.json"}}})", opts);
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(v.is_valid(json(R"({"price":"19.99"})")));
    EXPECT_EQ(only_issue(v, R"({"price":"19.9"})").code, "PATTERN_MISMATCH");
}

// --- schemas refused at compile time, naming the keyword

void expect_refused(std::string_view schema, std::string_view location, std::string_view words) {
    auto v = validator::compile(json(schema));
    ASSERT_FALSE(v) << schema;
    EXPECT_EQ(v.error().keyword_location, location) << schema;
    EXPECT_NE(v.error().message.find(words), std::string::npos) << v.error().message;
}

TEST(Validator, RefusesInvalidSchemasNamingTheKeyword) {
    expect_refused(R"({"type":"strnig"})", "/type", "type must name");
    expect_refused(R"({"properties":{"a":{"minLength":-1}}})", "/properties/a/minLength", "non-negative integer");
    expect_refused(R"({"properties":{"a":{"maximum":"10"}}})", "/properties/a/maximum", "must be a number");
    expect_refused(R"({"multipleOf":0})", "/multipleOf", "greater than 0");
    expect_refused(R"({"required":["a","a"]})", "/required", "must not repeat");
    expect_refused(R"({"allOf":[]})", "/allOf", "non-empty array");
    expect_refused(R"({"properties":{"a":3}})", "/properties/a", "must be a schema");
    expect_refused(R"({"$ref":"#/$defs/missing"})", "/$ref", "points to nothing");
    expect_refused(R"({"$ref":"https://example.com/x.json"})", "/$ref", "cannot resolve");
    expect_refused(R"({"$ref":"#nope"})", "/$ref", "no anchor named 'nope'");
}

TEST(Validator, RefusesPatternsRe2CannotRunInLinearTime) {
    expect_refused(R"({"pattern":"^(?=a)a$"})", "/pattern", "lookahead");
    expect_refused(R"({"pattern":"(a)\\1"})", "/pattern", "backreferences");
    expect_refused(R"({"patternProperties":{"(?<!x)y":true}})", "/patternProperties/(?<!x)y",
                   "lookahead and lookbehind");
    expect_refused(R"({"pattern":"[a-"})", "/pattern", "unterminated");
}

TEST(Validator, RefusesAReferenceCycleThatConsumesNoInput) {
    expect_refused(R"({"$ref":"#"})", "", "reference cycle");
    // Either member of the cycle may be named, depending on where the search entered it.
    auto v = validator::compile(
        json(R"({"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})"));
    ASSERT_FALSE(v);
    EXPECT_TRUE(v.error().keyword_location == "/$defs/a" || v.error().keyword_location == "/$defs/b")
        << v.error().keyword_location;
    EXPECT_NE(v.error().message.find("reference cycle"), std::string::npos) << v.error().message;
}

TEST(Validator, RecursionThroughTheInstanceIsFine) {
    auto v = compile(R"({"type":"array","items":{"$ref":"#"}})");
    std::string deep(500, '[');
    deep += std::string(500, ']');
    candor::json::limits lim;
    lim.max_depth = candor::json::depth_ceiling;
    auto doc = candor::json::parse(deep, lim);
    ASSERT_TRUE(doc);
    EXPECT_TRUE(v.is_valid(doc->root()));
}

TEST(Validator, RunawayEvaluationIsCutAndReported) {
    // Each anyOf branch re-enters the root without consuming the instance: not a compile-time
    // cycle ($ref/allOf only), and 2^depth work without the bounds.
    auto v = compile(R"({"anyOf":[{"$ref":"#"},{"$ref":"#"}]})");
    EXPECT_FALSE(v.is_valid(json("1")));
    candor::issue_list out;
    EXPECT_FALSE(v.validate(json("1"), out));
    ASSERT_EQ(out.size(), 1u) << "only the cut is reported, not summaries of cut branches";
    EXPECT_EQ(out.back().code, "SCHEMA_MISMATCH");
    EXPECT_NE(out.back().message.find("deeper than"), std::string::npos) << out.back().message;
}

TEST(Validator, DefaultDepthBoundFitsAOneMegabyteThreadStack) {
    auto v = compile(R"({"properties":{"a":{"not":{"$ref":"#"}}},"allOf":[{"anyOf":[{"$ref":"#"}]}]})");
    bj::value instance = json("1");
    struct job {
        const validator* v;
        const bj::value* instance;
        bool valid = true;
        std::size_t issues = 0;
    } j{&v, &instance};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    // AddressSanitizer's redzones make every frame several times larger; the bound is sized
    // for real builds, so a sanitized build gets proportionally more stack.
    pthread_attr_setstacksize(&attr, std::size_t{1u << 20} * sanitizer_stack_factor);
    pthread_t thread;
    ASSERT_EQ(pthread_create(
                  &thread, &attr,
                  [](void* p) -> void* {
                      auto* jb = static_cast<job*>(p);
                      candor::issue_list out;
                      jb->valid = jb->v->validate(*jb->instance, out);
                      jb->issues = out.size();
                      return nullptr;
                  },
                  &j),
              0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    EXPECT_FALSE(j.valid);
    EXPECT_EQ(j.issues, 1u);
}

TEST(Validator, NotCannotTurnACutIntoASuccess) {
    auto v = compile(R"({"not":{"anyOf":[{"$ref":"#"}]}})");
    EXPECT_FALSE(v.is_valid(json("1")));
}

TEST(Validator, StepBudgetStopsExponentialCombinators) {
    options opts;
    opts.max_evaluation_steps = 10'000;
    auto v = compile(R"({"anyOf":[{"items":{"$ref":"#"},"maxItems":0},{"items":{"$ref":"#"},"minItems":5}]})", opts);
    std::string deep(40, '[');
    deep += std::string(40, ']');
    candor::issue_list out;
    EXPECT_FALSE(v.validate(json(deep), out));
    ASSERT_FALSE(out.empty());
    EXPECT_NE(out.back().message.find("steps"), std::string::npos) << out.back().message;
}

TEST(Validator, IsSafeToShareAcrossThreads) {
    auto v = compile(search_schema);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 2000; ++i) {
                if (!v.is_valid(json(R"({"limit":5})"))) ++wrong;
                candor::issue_list out;
                if (v.validate(json(R"({"limit":50})"), out) || out.size() != 1) ++wrong;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(Validator, CopiesShareTheCompiledProgram) {
    auto v = compile(search_schema);
    validator copy = v;
    validator moved = std::move(v);
    EXPECT_TRUE(copy.is_valid(json(R"({"limit":1})")));
    EXPECT_FALSE(moved.is_valid(json(R"({"limit":0})")));
    EXPECT_EQ(copy.schema(), json(search_schema));
}

}  // namespace
