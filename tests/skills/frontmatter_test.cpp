// SPDX-License-Identifier: BSL-1.0
// A SKILL.md's frontmatter as JSON: the YAML subset read exactly (typed plain values, quoted
// strings, one nested mapping or list), and everything else refused with its line.
#include <candor/skills/skill.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>

namespace {

namespace sk = candor::skills;

boost::json::value parsed(const std::string& yaml) {
    auto r = sk::parse_frontmatter("---\n" + yaml + "---\nbody\n");
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? boost::json::value(*r) : boost::json::value();
}

sk::skill_error refused(const std::string& text) {
    auto r = sk::parse_frontmatter(text);
    EXPECT_FALSE(r) << "accepted: " << (r ? boost::json::serialize(*r) : "");
    return r ? sk::skill_error{} : r.error();
}

TEST(Frontmatter, PlainValuesAreTypedByTheCoreSchema) {
    EXPECT_EQ(parsed("name: refunds\n"
                     "a: 12\n"
                     "b: -7\n"
                     "c: 1.5\n"
                     "d: true\n"
                     "e: False\n"
                     "f: ~\n"
                     "g:\n"
                     "h: 0x1F\n"
                     "i: 0o17\n"
                     "j: 2e3\n"
                     "k: yes\n"
                     "l: text with spaces # and a comment\n"
                     "m: a#b\n"),
              boost::json::parse(R"j({"name":"refunds","a":12,"b":-7,"c":1.5,"d":true,"e":false,"f":null,"g":null,
                                     "h":31,"i":15,"j":2000.0,"k":"yes","l":"text with spaces","m":"a#b"})j"));
}

TEST(Frontmatter, QuotedValuesAreStrings) {
    EXPECT_EQ(parsed("a: \"12\"\n"
                     "b: 'it''s: fine'\n"
                     "c: \"tab\\there \\u00e9 \\\"q\\\" \\\\\"  # comment\n"
                     "d: \"\"\n"),
              boost::json::parse(R"j({"a":"12","b":"it's: fine","c":"tab\there é \"q\" \\","d":""})j"));
}

TEST(Frontmatter, OneLevelOfMappingOrListIsRead) {
    EXPECT_EQ(parsed("name: pdf\n"
                     "metadata:\n"
                     "  version: \"2.1\"\n"
                     "  # a comment\n"
                     "\n"
                     "  owner: docs team\n"
                     "allowed-tools:\n"
                     "  - Read\n"
                     "  - \"Bash(git:*)\"\n"
                     "description: last\n"),
              boost::json::parse(R"j({"name":"pdf","metadata":{"version":"2.1","owner":"docs team"},
                                     "allowed-tools":["Read","Bash(git:*)"],"description":"last"})j"));
}

TEST(Frontmatter, ByteOrderMarkAndCrLfAreRead) {
    auto r = sk::parse_frontmatter("\xEF\xBB\xBF---\r\nname: x\r\ndescription: y\r\n---\r\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, boost::json::parse(R"j({"name":"x","description":"y"})j").as_object());
}

TEST(Frontmatter, WithoutDelimitersItIsMissing) {
    EXPECT_EQ(refused("name: x\n").code, "FRONTMATTER_MISSING");
    EXPECT_EQ(refused("---\nname: x\n").code, "FRONTMATTER_MISSING");
    EXPECT_EQ(refused("").code, "FRONTMATTER_MISSING");
    EXPECT_EQ(refused("# Title\n---\nname: x\n---\n").code, "FRONTMATTER_MISSING");
}

TEST(Frontmatter, WhatCouldBeReadTwoWaysIsRefusedWithItsLine) {
    const std::pair<const char*, const char*> cases[] = {
        {"description: >\n  folded\n", "line 3"},
        {"description: |\n  literal\n", "line 3"},
        {"tools: [a, b]\n", "line 2"},
        {"meta: {a: 1}\n", "line 2"},
        {"name: x\nname: y\n", "line 3"},
        {"name: a: b\n", "line 2"},
        {"description: first\n  continued\n", "line 3"},
        {"\tname: x\n", "line 2"},
        {"date: 2024-01-15\n", "line 2"},
        {"ref: *anchor\n", "line 2"},
        {"v: !!str 1\n", "line 2"},
        {"deep:\n  a:\n    b: 1\n", "line 3"},
        {"mixed:\n  - a\n  b: 1\n", "line 4"},
        {"uneven:\n  a: 1\n    b: 2\n", "line 4"},
        {"x: \"unterminated\n", "line 2"},
        {"x: 'unterminated\n", "line 2"},
        {"x: \"bad \\x41 escape\"\n", "line 2"},
        {"x: \"after\" quote\n", "line 2"},
        {"x: .inf\n", "line 2"},
        {"x: 99999999999999999999\n", "line 2"},
        {"- a\n", "line 2"},
        {"\"quoted key\": 1\n", "line 2"},
        {"no colon here\n", "line 2"},
    };
    for (const auto& [yaml, where] : cases) {
        const auto e = refused(std::string("---\n") + yaml + "---\n");
        EXPECT_EQ(e.code, "FRONTMATTER_INVALID") << yaml;
        EXPECT_NE(e.message.find(where), std::string::npos) << yaml << " -> " << e.message;
    }
}

TEST(Frontmatter, ItsSizeIsBounded) {
    std::string big = "---\n";
    for (int i = 0; i < 5000; ++i) big += "key" + std::to_string(i) + ": some value here\n";
    big += "---\n";
    const auto e = refused(big);
    EXPECT_EQ(e.code, "FRONTMATTER_INVALID");
    EXPECT_NE(e.message.find("64 KiB"), std::string::npos);
}

}  // namespace
