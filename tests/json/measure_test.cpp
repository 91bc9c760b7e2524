// SPDX-License-Identifier: BSL-1.0
#include <candor/json/intake.hpp>

#include <gtest/gtest.h>

TEST(Measure, AgreesWithIntakeOnDepthAndNodes) {
    for (const char* text : {"{}", "[1,2,3]", R"({"and":[{"status":"open"}]})", "7", R"({"a":{"b":[[],{}]}})"}) {
        auto doc = candor::json::parse(text);
        ASSERT_TRUE(doc) << text;
        auto s = candor::json::measure(doc->root(), {});
        ASSERT_TRUE(s) << text;
        EXPECT_EQ(s->depth, doc->depth()) << text;
        EXPECT_EQ(s->nodes, doc->nodes()) << text;
    }
}

TEST(Measure, ReportsDepthViolationWithPath) {
    auto doc = candor::json::parse(R"({"filter":{"and":[{"or":[{"x":1}]}]}})");
    ASSERT_TRUE(doc);
    candor::json::limits l;
    l.max_depth = 4;
    auto s = candor::json::measure(doc->root(), l);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, candor::json::intake_code::depth_limit);
    EXPECT_EQ(s.error().path, "/filter/and/0/or");
    EXPECT_EQ(s.error().limit, 4u);
}

TEST(Measure, ReportsNodeViolationWithPath) {
    auto doc = candor::json::parse(R"({"ids":["a","b","c"]})");
    ASSERT_TRUE(doc);
    candor::json::limits l;
    l.max_nodes = 3;
    auto s = candor::json::measure(doc->root(), l);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, candor::json::intake_code::node_limit);
    EXPECT_EQ(s.error().path, "/ids/1");
}
