// SPDX-License-Identifier: BSL-1.0
#include <candor/json/pointer.hpp>

#include <gtest/gtest.h>

TEST(Pointer, EscapesTildeAndSlash) {
    std::string p;
    candor::json::append_token(p, "a/b~c");
    candor::json::append_index(p, 12);
    EXPECT_EQ(p, "/a~1b~0c/12");
    EXPECT_EQ(candor::json::child_pointer("/x", "~1"), "/x/~01");
}

TEST(Pointer, UnescapeUndoesEscapeAndRejectsBadTilde) {
    std::string out;
    EXPECT_TRUE(candor::json::unescape_token("a~1b~0c", out));
    EXPECT_EQ(out, "a/b~c");
    EXPECT_FALSE(candor::json::unescape_token("a~2", out));
    EXPECT_FALSE(candor::json::unescape_token("a~", out));
}
