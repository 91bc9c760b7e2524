#include <candor/envelope/schema.hpp>

#include <gtest/gtest.h>

#include <algorithm>

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
