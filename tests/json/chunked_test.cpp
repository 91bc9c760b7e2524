// SPDX-License-Identifier: BSL-1.0
#include <candor/json/intake.hpp>

#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {

struct verdict {
    bool ok;
    std::string code;
    std::string path;
    std::size_t depth = 0;
    std::size_t nodes = 0;
    std::string text{};  // re-serialized document

    bool operator==(const verdict&) const = default;
};

std::ostream& operator<<(std::ostream& os, const verdict& v) {
    return os << (v.ok ? "ok " : "rejected ") << v.code << " " << v.path << " d=" << v.depth << " n=" << v.nodes << " "
              << v.text;
}

verdict judge(boost::system::result<candor::json::scanned, candor::json::violation> r) {
    if (!r) return {false, std::string(to_string(r.error().code)), r.error().path};
    verdict v{true, "", "", r->doc.depth(), r->doc.nodes(), boost::json::serialize(r->doc.root())};
    for (const auto& x : r->violations) v.code += std::string(to_string(x.code)) + x.path + ";";
    return v;
}

verdict feed(std::string_view text, const std::vector<std::size_t>& cuts, const candor::json::limits& lim,
             candor::json::on_semantic_violation mode) {
    candor::json::parser p(lim, mode);
    std::size_t at = 0;
    for (std::size_t cut : cuts) {
        p.write(text.substr(at, cut - at));
        at = cut;
    }
    p.write(text.substr(at));
    return judge(p.finish());
}

const std::vector<std::string> documents = {
    R"({"and":[{"status":"open"}]})",
    R"({"limit":1,"limit":9})",
    R"({"a":1,"\u0061":2})",
    R"({"limit":NaN})",
    R"({"limit":1e400,"x":"\u00e9\ud83d\ude00 caf\u00e9"})",
    R"({"a":{"b":{"c":{}}}})",
    R"([1,2,3,4])",
    R"({"key with spaces and \"quotes\"":[true,false,null,-12.5e-3,18446744073709551615]})",
    R"({"k\/~":{"k\/~":[1,2,{"k\/~":3,"k\/~":4}]}})",
    "[1,2,]",
    "{\"a\":\"\xc3\xa9\"}",
    "\"\xc3\"",
    "  [ 1 , [ 2 , [ 3 ] ] ]  ",
    "[1] x",
};

}  // namespace

// Every split point, and 1-byte chunks, give the verdict of the whole text.
TEST(IntakeChunks, EverySplitPointGivesTheSameVerdict) {
    candor::json::limits lim;
    lim.max_depth = 3;
    lim.max_nodes = 10;
    for (auto mode : {candor::json::on_semantic_violation::stop, candor::json::on_semantic_violation::collect}) {
        for (const auto& doc : documents) {
            const verdict whole = feed(doc, {}, lim, mode);
            for (std::size_t cut = 0; cut <= doc.size(); ++cut) {
                EXPECT_EQ(feed(doc, {cut}, lim, mode), whole) << doc << " split at " << cut;
            }
            std::vector<std::size_t> bytes;
            for (std::size_t i = 1; i < doc.size(); ++i) bytes.push_back(i);
            EXPECT_EQ(feed(doc, bytes, lim, mode), whole) << doc << " in 1-byte chunks";
        }
    }
}

TEST(IntakeChunks, WholeTextParseAgreesWithParser) {
    for (const auto& doc : documents) {
        auto a = candor::json::parse(doc);
        candor::json::parser p;
        p.write(doc);
        auto b = p.finish();
        ASSERT_EQ(a.has_value(), b.has_value()) << doc;
        if (!a) {
            EXPECT_EQ(a.error().code, b.error().code) << doc;
            EXPECT_EQ(a.error().path, b.error().path) << doc;
        }
    }
}

TEST(IntakeChunks, ByteLimitCountsAcrossChunks) {
    candor::json::limits lim;
    lim.max_bytes = 10;
    candor::json::parser p(lim);
    EXPECT_TRUE(p.write("[1,2,3,"));
    EXPECT_FALSE(p.write("4,5]"));
    auto r = p.finish();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, candor::json::intake_code::input_too_large);
}

TEST(IntakeChunks, ParserIsReusableAfterReset) {
    candor::json::parser p;
    p.write(R"({"a":1,"a":2})");
    EXPECT_FALSE(p.finish());
    p.reset();
    p.write(R"({"a":1})");
    auto r = p.finish();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->doc.root().at("a").as_int64(), 1);
}
