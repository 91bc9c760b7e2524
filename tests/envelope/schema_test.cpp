// SPDX-License-Identifier: BSL-1.0
#include <candor/envelope/schema.hpp>

#include <candor/envelope/envelope.hpp>
#include <candor/schema/validator.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ce = candor::envelope;

namespace {
bool lists(const boost::json::array& a, std::string_view s) {
    return std::find(a.begin(), a.end(), boost::json::value(s)) != a.end();
}
}  // namespace

TEST(EnvelopeSchema, DataIsOptionalBecauseErrorEnvelopesHaveNone) {
    auto s = ce::output_schema(boost::json::object{{"type", "array"}});
    const auto& req = s.at("required").as_array();
    EXPECT_FALSE(lists(req, "data"));
    EXPECT_FALSE(lists(req, "errors"));
    EXPECT_TRUE(lists(req, "complete"));
    EXPECT_TRUE(lists(req, "continuation"));
    EXPECT_EQ(s.at("properties").at("data"), (boost::json::object{{"type", "array"}}));
}

TEST(EnvelopeSchema, ContinuationAcceptsNull) {
    auto s = ce::output_schema();
    const auto& any = s.at("properties").at("continuation").at("anyOf").as_array();
    EXPECT_EQ(any.at(0), (boost::json::object{{"type", "null"}}));
    EXPECT_EQ(any.size(), 6u);
}

TEST(EnvelopeSchema, AllowsExtraMembersForPageAndSnapshotToken) {
    auto s = ce::output_schema();
    EXPECT_FALSE(s.contains("additionalProperties"));
    EXPECT_FALSE(s.contains("$schema"));
}

// ---- Every envelope `seal` produces validates against the schema (what ajv does in clients).

namespace {

candor::schema::validator compiled(const boost::json::value& data_schema) {
    return candor::schema::validator::compile(boost::json::value(ce::output_schema(data_schema))).value();
}

std::vector<ce::envelope> every_shape() {
    const ce::reason limit{"RESULT_LIMIT_REACHED", "more matched", boost::json::object{{"limit", 5}}};
    std::vector<ce::envelope> out;
    out.push_back(ce::complete(boost::json::array{1, 2}));
    out.push_back(ce::complete(boost::json::array{}));
    out.push_back(ce::partial(boost::json::array{1}, limit));
    out.push_back(ce::partial(boost::json::array{}, limit));
    for (auto c : {ce::continuation::next_cursor("abc"), ce::continuation::retry_after(3),
                   ce::continuation::retry_with_deadline(500), ce::continuation::narrow_query("add a date"),
                   ce::continuation::restart("cursor expired")}) {
        auto e = ce::partial(boost::json::array{}, limit);
        e.continue_with(c);
        out.push_back(std::move(e));
    }
    candor::issue i;
    i.code = "TYPE_MISMATCH";
    i.path = "/limit";
    i.message = "expected an integer";
    i.details["expected"] = "integer";
    auto err = ce::failure({i});
    err.continue_with(ce::continuation::restart("start over"));
    out.push_back(std::move(err));
    auto warned = ce::complete(boost::json::array{});
    warned.add_warning({"STALE_INDEX", "index is 5 min old", boost::json::object{{"age_s", 300}}});
    warned.extensions["page"] = boost::json::object{{"returned", 0}};
    warned.extensions["snapshot_token"] = "tok";
    out.push_back(std::move(warned));
    return out;
}

}  // namespace

TEST(EnvelopeSchema, EverySealedEnvelopeValidatesAgainstItsOutputSchema) {
    const auto v = compiled(boost::json::parse(R"({"type":"array","items":{"type":"integer"}})"));
    int n = 0;
    for (const auto& e : every_shape()) {
        const boost::json::value sealed = ce::seal(e, "tool").value();
        candor::issue_list issues;
        EXPECT_TRUE(v.validate(sealed, issues))
            << "envelope #" << n << " rejected: " << (issues.empty() ? "" : issues.front().message);
        ++n;
    }
    EXPECT_EQ(n, 11);
}

TEST(EnvelopeSchema, InternalErrorEnvelopeValidatesForAnyDataSchema) {
    const auto v = compiled(boost::json::parse(R"({"type":"object","required":["x"]})"));
    EXPECT_TRUE(v.is_valid(boost::json::value(ce::internal_error_envelope("t"))));
}

TEST(EnvelopeSchema, RejectsWhatIsNotAnEnvelope) {
    const auto v = compiled(boost::json::parse(R"({"type":"array"})"));
    auto good = boost::json::value(ce::seal(ce::complete(boost::json::array{})).value());
    EXPECT_TRUE(v.is_valid(good));
    auto no_verdict = good;
    no_verdict.as_object().erase("complete");
    EXPECT_FALSE(v.is_valid(no_verdict));
    auto wrong_data = good;
    wrong_data.as_object()["data"] = "not an array";
    EXPECT_FALSE(v.is_valid(wrong_data));
    auto bad_continuation = good;
    bad_continuation.as_object()["continuation"] = boost::json::object{{"kind", "next_cursor"}};
    EXPECT_FALSE(v.is_valid(bad_continuation));
}
