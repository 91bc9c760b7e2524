// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/logging.hpp>

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {

using namespace candor;

TEST(LogSink, TakesFunctionsOfTextOnlyOrOfTextAndFields) {
    std::string seen;
    mcp::log_sink text_only = [&](mcp::log_level l, std::string_view text) {
        seen = std::string(mcp::to_string(l)) + " " + std::string(text);
    };
    text_only(mcp::log_level::warning, "hello", {.tool = "ignored"});
    EXPECT_EQ(seen, "warning hello");
    mcp::log_sink with_fields = [&](mcp::log_level, std::string_view text, const mcp::log_fields& f) {
        seen = std::string(text) + "@" + std::string(f.tool);
    };
    with_fields(mcp::log_level::info, "call", {.tool = "search"});
    EXPECT_EQ(seen, "call@search");
    const mcp::log_sink copy = with_fields;
    copy(mcp::log_level::info, "copied", {.tool = "t"});
    EXPECT_EQ(seen, "copied@t");
}

TEST(LogSink, AnEmptySinkDoesNothing) {
    mcp::log_sink none = nullptr;
    EXPECT_FALSE(none);
    none(mcp::log_level::error, "nowhere");
    EXPECT_FALSE(mcp::log_sink{});
    EXPECT_TRUE(mcp::stderr_log_sink());
}

TEST(LogText, FieldsFollowTheMessageAndControlCharactersBecomeSpaces) {
    const std::array<std::string_view, 2> codes = {"A", "B"};
    EXPECT_EQ(mcp::format_log_text(mcp::log_level::info, "line one\nline two",
                                   {.tool = "t", .principal = "p", .codes = codes, .tracestate = "k=v"}),
              "[candor] info: line one line two (tool=t principal=p codes=A,B tracestate=k=v)");
    EXPECT_EQ(mcp::format_log_text(mcp::log_level::debug, "plain"), "[candor] debug: plain");
}

}  // namespace
