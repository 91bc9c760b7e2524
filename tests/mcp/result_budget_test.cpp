// SPDX-License-Identifier: BSL-1.0
// Every tool result within its byte budget (the server's, the tool's, the request's): a result
// too large has its longest strings cut at a character boundary (FIELD_TRUNCATED, never a cut
// JSON), or is RESULT_TOO_LARGE when nothing can be cut; a budget asked for in _meta holds, is
// raised to the floor with a warning, and is refused when it is not a positive integer.
#include <candor/envelope/envelope.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>

namespace {

namespace ce = candor::envelope;
namespace mcp = candor::mcp;
using boost::json::array;
using boost::json::object;

class ResultBudgets : public ::testing::Test {
protected:
    void SetUp() override {
        mcp::server_options o;
        o.log = {};
        o.max_result_bytes = 4000;
        srv_ = std::make_unique<mcp::server>(o);
        // An article: a long body of two-byte characters and quotes, or a short one.
        srv_
            ->add_tool(mcp::make_tool(
                mcp::tool_info("article", "Reads an article.")
                    .with_input_schema(boost::json::parse(R"({"type":"object","properties":{"size":{}}})").as_object())
                    .with_action(mcp::action_class::read_only)
                    .with_truncated_rest("call article with offset = kept for the rest"),
                [this](const object& args, mcp::call_context&) -> boost::asio::awaitable<ce::envelope> {
                    std::string body;
                    const auto n = args.at("size").to_number<std::size_t>();
                    while (body.size() < n) body += "\xC3\xA9\"a";
                    body_ = body;
                    co_return ce::complete(object{{"id", "a-1"}, {"title", "On budgets"}, {"body", body}});
                }))
            .value();
        // Numbers only: nothing to cut.
        srv_->add_tool(
                mcp::make_tool(mcp::tool_info("numbers", "Many numbers.").with_action(mcp::action_class::read_only),
                               [](const object&, mcp::call_context&) -> boost::asio::awaitable<ce::envelope> {
                                   array a;
                                   for (int i = 0; i < 3000; ++i) a.emplace_back(i);
                                   co_return ce::complete(std::move(a));
                               }))
            .value();
        srv_
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("blob", "A large text block.").with_action(mcp::action_class::read_only),
                [](const object&, mcp::call_context&) -> boost::asio::awaitable<mcp::content_result> {
                    co_return mcp::content_result{array{object{{"type", "text"}, {"text", std::string(10'000, 'b')}}}};
                }))
            .value();
        client_ = std::make_unique<mcp::memory_client>(*srv_, ioc_);
        client_->initialize();
    }

    boost::json::value call(std::string tool, object args = {}, object meta = {}) {
        object params{{"name", std::move(tool)}, {"arguments", std::move(args)}};
        if (!meta.empty()) params["_meta"] = std::move(meta);
        auto r = client_->request("tools/call", std::move(params));
        last_bytes_ = client_->received_bytes().back();
        return r;
    }
    static boost::json::value env(const boost::json::value& r) { return r.at("result").at("structuredContent"); }

    boost::asio::io_context ioc_;
    std::unique_ptr<mcp::server> srv_;
    std::unique_ptr<mcp::memory_client> client_;
    std::string body_;
    std::size_t last_bytes_ = 0;
};

TEST_F(ResultBudgets, ALongStringIsCutAtACharacterBoundaryNeverTheJson) {
    auto r = call("article", object{{"size", 20'000}});
    EXPECT_LE(last_bytes_, 4000u);
    const auto e = env(r);
    EXPECT_EQ(e.at("status"), "partial");
    EXPECT_EQ(e.at("complete"), false);
    const auto& reason = e.at("incomplete_reasons").at(0);
    EXPECT_EQ(reason.at("code"), "RESULT_SIZE_LIMIT");
    EXPECT_EQ(reason.at("limit"), 4000);
    const auto& w = e.at("warnings").at(0);
    EXPECT_EQ(w.at("code"), "FIELD_TRUNCATED");
    EXPECT_EQ(w.at("path"), "/data/body");
    EXPECT_EQ(w.at("bytes"), body_.size());
    EXPECT_EQ(w.at("rest"), "call article with offset = kept for the rest");
    const std::string kept(e.at("data").at("body").as_string());
    EXPECT_EQ(static_cast<std::int64_t>(kept.size()), w.at("kept").as_int64());
    EXPECT_EQ(body_.compare(0, kept.size(), kept), 0) << "a prefix of the body";
    EXPECT_NE(static_cast<unsigned char>(kept.back()), 0xC3) << "cut inside a character";
    // The other fields are whole, and the text block is the same envelope, whole JSON.
    EXPECT_EQ(e.at("data").at("title"), "On budgets");
    EXPECT_EQ(boost::json::parse(r.at("result").at("content").at(0).at("text").as_string()), e);
}

TEST_F(ResultBudgets, WithRoomTheResultIsWholeAndComplete) {
    auto r = call("article", object{{"size", 300}});
    const auto e = env(r);
    EXPECT_EQ(e.at("complete"), true);
    EXPECT_TRUE(e.at("warnings").as_array().empty());
    EXPECT_EQ(e.at("data").at("body"), boost::json::value(body_));
}

TEST_F(ResultBudgets, NothingToCutIsResultTooLargeNotACutMessage) {
    auto r = call("numbers");
    EXPECT_LE(last_bytes_, 4000u);
    const auto e = env(r);
    EXPECT_EQ(e.at("status"), "error");
    const auto& i = e.at("errors").at(0);
    EXPECT_EQ(i.at("code"), "RESULT_TOO_LARGE");
    EXPECT_EQ(i.at("limit"), 4000);
    EXPECT_GT(i.at("bytes").as_int64(), 4000);
    EXPECT_EQ(r.at("result").at("isError"), true);
    // A content result is never cut either.
    auto blob = call("blob");
    EXPECT_LE(last_bytes_, 4000u);
    EXPECT_EQ(env(blob).at("errors").at(0).at("code"), "RESULT_TOO_LARGE");
}

TEST_F(ResultBudgets, TheRequestMayAskForLessNeverMore) {
    auto smaller = call("article", object{{"size", 20'000}}, object{{"io.candor/maxResultBytes", 2500}});
    EXPECT_LE(last_bytes_, 2500u);
    EXPECT_EQ(env(smaller).at("incomplete_reasons").at(0).at("limit"), 2500);
    auto larger = call("article", object{{"size", 20'000}}, object{{"io.candor/maxResultBytes", 100'000}});
    EXPECT_LE(last_bytes_, 4000u);
    EXPECT_EQ(env(larger).at("incomplete_reasons").at(0).at("limit"), 4000);
    auto anthropic = call("article", object{{"size", 20'000}}, object{{"anthropic/maxResultSizeChars", 3000}});
    EXPECT_LE(last_bytes_, 3000u);
    EXPECT_EQ(env(anthropic).at("incomplete_reasons").at(0).at("limit"), 3000);
    // Below the floor: raised to it, and said.
    auto tiny = call("article", object{{"size", 10}}, object{{"io.candor/maxResultBytes", 10}});
    EXPECT_LE(last_bytes_, 1024u);
    const auto w = env(tiny).at("warnings").at(0);
    EXPECT_EQ(w.at("code"), "RESULT_BUDGET_RAISED");
    EXPECT_EQ(w.at("limit"), 1024);
}

TEST_F(ResultBudgets, ABudgetThatIsNotAPositiveIntegerIsRefusedNamingTheKey) {
    for (const auto& bad : {boost::json::value(-5), boost::json::value(0), boost::json::value("3000"),
                            boost::json::value(1.5), boost::json::value(nullptr)}) {
        SCOPED_TRACE(boost::json::serialize(bad));
        auto r = call("article", object{{"size", 10}}, object{{"io.candor/maxResultBytes", bad}});
        EXPECT_EQ(r.at("error").at("code"), -32602);
        EXPECT_EQ(r.at("error").at("data").at("code"), "INVALID_RESULT_BUDGET");
        EXPECT_EQ(r.at("error").at("data").at("key"), "io.candor/maxResultBytes");
    }
    EXPECT_TRUE(body_.empty()) << "the tool never ran";
}

TEST_F(ResultBudgets, AToolMayHoldItsResultsTighter) {
    srv_->add_tool(mcp::make_tool(mcp::tool_info("terse", "Small results only.")
                                      .with_action(mcp::action_class::read_only)
                                      .with_max_result_bytes(1500),
                                  [](const object&, mcp::call_context&) -> boost::asio::awaitable<ce::envelope> {
                                      co_return ce::complete(object{{"text", std::string(5000, 't')}});
                                  }))
        .value();
    auto r = call("terse");
    EXPECT_LE(last_bytes_, 1500u);
    EXPECT_EQ(env(r).at("incomplete_reasons").at(0).at("limit"), 1500);
}

TEST_F(ResultBudgets, ASummaryTextSaysTheVerdictFirstAndTheDataWhileItFits) {
    srv_->set_result_text(mcp::result_text::summary);
    auto small = call("article", object{{"size", 40}});
    const std::string text(small.at("result").at("content").at(0).at("text").as_string());
    EXPECT_EQ(text.rfind("status: complete", 0), 0u) << text;
    const auto json_at = text.find("data (JSON):\n");
    ASSERT_NE(json_at, std::string::npos) << text;
    EXPECT_EQ(boost::json::parse(text.substr(json_at + 13)), env(small).at("data"));
    // Cut: the verdict and why come first; the data would not fit, so the text says where it is.
    auto cut = call("article", object{{"size", 20'000}});
    EXPECT_LE(last_bytes_, 4000u);
    const std::string cut_text(cut.at("result").at("content").at(0).at("text").as_string());
    EXPECT_EQ(cut_text.rfind("status: partial (complete: false)\nincomplete: RESULT_SIZE_LIMIT", 0), 0u) << cut_text;
    EXPECT_NE(cut_text.find("FIELD_TRUNCATED"), std::string::npos) << cut_text;
    EXPECT_EQ(env(cut).at("complete"), false);
    // An error says its code and message.
    auto refused = call("numbers");
    const std::string refused_text(refused.at("result").at("content").at(0).at("text").as_string());
    EXPECT_NE(refused_text.find("error: RESULT_TOO_LARGE"), std::string::npos) << refused_text;
}

}  // namespace
