// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/log.hpp>

#include <candor/ops/journal.hpp>

#include "ops/ops_fixture.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace {

using namespace candor;

const auto noon = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

boost::json::object json_line(std::string_view text, const mcp::log_fields& fields = {},
                              mcp::log_level l = mcp::log_level::error, ops::log_options opts = {}) {
    opts.format = ops::log_format::json;
    const auto line = ops::format_log_line(opts, noon, l, text, fields);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    return boost::json::parse(line).as_object();
}

TEST(LogFormat, JsonLineHoldsTimeLevelMessageAndTheFieldsThatAreSet) {
    const std::array<std::string_view, 2> codes = {"INTERNAL_ERROR", "DEADLINE_EXCEEDED"};
    const auto o =
        json_line("the tool threw", {.tool = "search",
                                     .request_id = "7",
                                     .principal = "alice",
                                     .session = "a1b2",
                                     .codes = codes,
                                     .traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"});
    EXPECT_EQ(o.at("time").as_string(), ops::format_time(noon));
    EXPECT_EQ(o.at("level"), "error");
    EXPECT_EQ(o.at("message"), "the tool threw");
    EXPECT_EQ(o.at("tool"), "search");
    EXPECT_EQ(o.at("request_id"), "7");
    EXPECT_EQ(o.at("principal"), "alice");
    EXPECT_EQ(o.at("session"), "a1b2");
    EXPECT_EQ(o.at("codes"), boost::json::parse(R"(["INTERNAL_ERROR","DEADLINE_EXCEEDED"])"));
    EXPECT_EQ(o.at("traceparent"), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    EXPECT_FALSE(o.contains("tracestate"));
    // A line about nothing in particular has the three fields only.
    EXPECT_EQ(json_line("listening", {}, mcp::log_level::info).size(), 3u);
}

TEST(LogFormat, JsonLineIsOneValidObjectWhateverTheMessageHolds) {
    const std::string text = std::string("quote \" backslash \\ newline\n tab\t nul") + '\0' + " bad \xC3\x28 end \xFF";
    const auto o = json_line(text);
    const std::string message(o.at("message").as_string());
    EXPECT_NE(message.find("quote \" backslash \\ newline\n tab\t nul"), std::string::npos);
    EXPECT_NE(message.find("bad \xEF\xBF\xBD( end \xEF\xBF\xBD"), std::string::npos) << message;
}

TEST(LogFormat, LongMessagesAreCutOnACodePointAndSaySo) {
    ops::log_options opts;
    opts.max_message_bytes = 10;
    const auto o =
        json_line("aaaaaaaa\xC3\xA9\xC3\xA9tail", {}, mcp::log_level::error, opts);  // "é" at bytes 8-9, 10-11
    EXPECT_EQ(o.at("message"), "aaaaaaaa\xC3\xA9\xE2\x80\xA6");
    opts.format = ops::log_format::text;
    EXPECT_EQ(ops::format_log_line(opts, noon, mcp::log_level::info, "0123456789abc", {}),
              "[candor] info: 0123456789\xE2\x80\xA6");
}

TEST(LogFormat, TextLinesKeepTheirFormatWithTheFieldsAfter) {
    const std::array<std::string_view, 1> code = {"INTERNAL_ERROR"};
    ops::log_options opts;
    EXPECT_EQ(ops::format_log_line(opts, noon, mcp::log_level::error, "the tool threw:\nboom",
                                   {.tool = "search", .request_id = "7", .codes = code}),
              "[candor] error: the tool threw: boom (tool=search request_id=7 codes=INTERNAL_ERROR)");
    EXPECT_EQ(ops::format_log_line(opts, noon, mcp::log_level::info, "listening", {}), "[candor] info: listening");
}

TEST(LogFormat, FormatsAndLevelsAreNamed) {
    EXPECT_EQ(ops::parse_log_format("json"), ops::log_format::json);
    EXPECT_EQ(ops::parse_log_format("text"), ops::log_format::text);
    EXPECT_FALSE(ops::parse_log_format("JSON"));
    EXPECT_EQ(ops::to_string(ops::log_format::json), "json");
}

// Everything written to stderr while it lives (the writer thread writes to file descriptor 2).
class stderr_capture {
public:
    stderr_capture() : path_("/tmp/candor-log-XXXXXX") {
        const int fd = ::mkstemp(path_.data());
        std::fflush(stderr);
        saved_ = ::dup(2);
        ::dup2(fd, 2);
        ::close(fd);
    }
    ~stderr_capture() { restore(); }
    std::vector<std::string> lines() {
        restore();
        std::ifstream in(path_);
        std::vector<std::string> out;
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        ::dup2(saved_, 2);
        ::close(saved_);
        saved_ = -1;
    }
    std::string path_;
    int saved_ = -1;
};

TEST(LogWriter, WritesJsonLinesAtOrAboveItsLevelOnStderr) {
    stderr_capture capture;
    {
        auto log = ops::log_writer::open({.format = ops::log_format::json, .level = mcp::log_level::warning});
        auto sink = log->sink();
        sink(mcp::log_level::info, "not written");
        sink(mcp::log_level::warning, "written", {.tool = "search"});
        sink(mcp::log_level::critical, "written too");
        log->flush();
        EXPECT_EQ(log->dropped(), 0u);
    }
    const auto lines = capture.lines();
    ASSERT_EQ(lines.size(), 2u);
    const auto first = boost::json::parse(lines[0]).as_object();
    EXPECT_EQ(first.at("level"), "warning");
    EXPECT_EQ(first.at("tool"), "search");
    EXPECT_EQ(boost::json::parse(lines[1]).at("level"), "critical");
}

// The server's own lines about calls carry the call's tool, request id and codes, and never a
// value the caller sent.
struct captured_line {
    mcp::log_level level;
    std::string text, tool, request_id;
    std::vector<std::string> codes;
};

TEST(ServerLog, LinesAboutACallNameItsToolRequestIdAndCodesButNoArgument) {
    auto lines = std::make_shared<std::vector<captured_line>>();
    auto opts = test::quiet_options();
    opts.log = [lines](mcp::log_level l, std::string_view text, const mcp::log_fields& f) {
        lines->push_back({l, std::string(text), std::string(f.tool), std::string(f.request_id),
                          std::vector<std::string>(f.codes.begin(), f.codes.end())});
    };
    mcp::server srv(opts);
    test::add_marker_tools(srv);
    srv.add_tool(mcp::make_tool(
                     mcp::tool_info("boom", "throws"),
                     [](const boost::json::object&, mcp::call_context&) -> boost::asio::awaitable<envelope::envelope> {
                         throw std::runtime_error("a bug in the tool");
                     }))
        .value();
    boost::asio::io_context io;
    {
        mcp::memory_client c(srv, io);
        test::make_marker_calls(c);
        c.exchange(R"({"jsonrpc":"2.0","id":"b-1","method":"tools/call","params":{"name":"boom","arguments":{}}})",
                   "b-1");
    }
    const captured_line* intake = nullptr;
    const captured_line* threw = nullptr;
    for (const auto& l : *lines) {
        if (l.request_id == "dup") intake = &l;
        if (l.request_id == "b-1") threw = &l;
        for (const auto& s : {l.text, l.tool, l.request_id})
            EXPECT_EQ(s.find(test::marker), std::string::npos) << "log line holds a caller's value: " << s;
    }
    ASSERT_NE(intake, nullptr);
    EXPECT_EQ(intake->tool, "search");
    EXPECT_EQ(intake->codes, std::vector<std::string>{"DUPLICATE_KEY"});
    ASSERT_NE(threw, nullptr);
    EXPECT_EQ(threw->level, mcp::log_level::error);
    EXPECT_EQ(threw->tool, "boom");
    EXPECT_EQ(threw->codes, std::vector<std::string>{"INTERNAL_ERROR"});
    EXPECT_NE(threw->text.find("a bug in the tool"), std::string::npos);
}

}  // namespace
