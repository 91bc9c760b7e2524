// SPDX-License-Identifier: BSL-1.0
#pragma once
// A server with one tool per behaviour under test, and an in-memory client talking to it.

#include <candor/envelope/envelope.hpp>
#include <candor/mcp/connection.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace candor::test {

namespace ce = candor::envelope;
namespace mcp = candor::mcp;
using boost::asio::awaitable;

// Field lookups that fail as test failures rather than dereferences.
inline boost::json::value at(const boost::json::value& v, std::string_view key) {
    if (const auto* o = v.if_object())
        if (const auto* f = o->if_contains(key)) return *f;
    return "<missing>";
}
inline boost::json::value at(const boost::json::value& v, std::string_view a, std::string_view b) {
    return at(at(v, a), b);
}
inline boost::json::value at(const boost::json::value& v, std::string_view a, std::string_view b, std::string_view c) {
    return at(at(at(v, a), b), c);
}
inline boost::json::value item(const boost::json::value& v, std::size_t i) {
    if (const auto* a = v.if_array())
        if (i < a->size()) return (*a)[i];
    return "<missing>";
}
// The error envelope (structuredContent) of a tools/call response.
inline boost::json::value envelope_of(const boost::json::value& response) {
    return at(at(response, "result"), "structuredContent");
}
inline boost::json::value first_error(const boost::json::value& response) {
    return item(at(envelope_of(response), "errors"), 0);
}

struct server_log {
    std::vector<std::string> lines;
    bool contains(std::string_view s) const {
        for (const auto& l : lines)
            if (l.find(s) != std::string::npos) return true;
        return false;
    }
};

struct shared_flags {
    bool slow_started = false;
    bool slow_finished = false;
    bool slow_saw_cancellation = false;
    int write_side_effects = 0;
};

inline mcp::server_options test_options(std::shared_ptr<server_log> log) {
    mcp::server_options o;
    o.name = "candor-test";
    o.version = "1.2.3";
    o.title = "Candor test server";
    o.instructions = "Use echo to test.";
    o.tools_page_size = 3;
    o.max_calls_in_flight = 2;
    o.log = [log](mcp::log_level l, std::string_view text) {
        log->lines.push_back(std::string(mcp::to_string(l)) + ": " + std::string(text));
    };
    return o;
}

inline void add_fixture_tools(mcp::server& srv, std::shared_ptr<shared_flags> flags) {
    // echo: a complete result holding its arguments.
    srv
        .add_tool(mcp::make_tool(
            mcp::tool_info("echo", "Returns its arguments.")
                .with_title("Echo")
                .with_input_schema(
                    boost::json::parse(
                        R"({"type":"object","properties":{"text":{"type":"string"},"limit":{"type":"integer"}}})")
                        .as_object())
                .with_data_schema(boost::json::parse(R"({"type":"object"})"))
                .with_budget({4u << 20, 3, 20})
                .with_action(mcp::action_class::read_only),
            [](const boost::json::object& args, mcp::call_context&) -> awaitable<ce::envelope> {
                co_return ce::complete(boost::json::object(args, boost::json::storage_ptr()));
            }))
        .value();
    // search: incomplete, more matches than the limit.
    srv.add_tool(mcp::make_tool(mcp::tool_info("search", "Finds notes.")
                                    .with_data_schema(boost::json::parse(R"({"type":"array"})"))
                                    .with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    co_return ce::partial(
                                        boost::json::array{"a", "b"},
                                        {std::string(ce::reason_codes::result_limit_reached),
                                         "more notes matched than limit", boost::json::object{{"limit", 2}}});
                                }))
        .value();
    // slow: waits an hour unless cancelled.
    srv.add_tool(mcp::make_tool(mcp::tool_info("slow", "Waits.")
                                    .with_deadline(std::chrono::milliseconds(3'600'000))
                                    .with_action(mcp::action_class::read_only),
                                [flags](const boost::json::object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                                    flags->slow_started = true;
                                    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
                                    t.expires_after(std::chrono::hours(1));
                                    try {
                                        co_await t.async_wait(boost::asio::use_awaitable);
                                    } catch (const boost::system::system_error&) {
                                        flags->slow_saw_cancellation = ctx.cancelled();
                                        flags->slow_finished = true;
                                        throw;
                                    }
                                    flags->slow_finished = true;
                                    co_return ce::complete(boost::json::array{});
                                }))
        .value();
    // quick_deadline: like slow, but with a 20 ms deadline.
    srv.add_tool(mcp::make_tool(mcp::tool_info("quick_deadline", "Runs out of time.")
                                    .with_deadline(std::chrono::milliseconds(20))
                                    .with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
                                    t.expires_after(std::chrono::hours(1));
                                    co_await t.async_wait(boost::asio::use_awaitable);
                                    co_return ce::complete(boost::json::array{});
                                }))
        .value();
    // boom: a bug.
    srv.add_tool(mcp::make_tool(mcp::tool_info("boom", "Throws.").with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    throw std::runtime_error("secret internals: db password");
                                    co_return ce::complete(1);
                                }))
        .value();
    // liar: claims completeness while giving a reason.
    srv.add_tool(mcp::make_tool(
                     mcp::tool_info("liar", "Breaks the envelope rules.").with_action(mcp::action_class::read_only),
                     [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                         auto e = ce::complete(boost::json::array{});
                         e.add_reason({"RESULT_LIMIT_REACHED", "but complete", {}});
                         co_return e;
                     }))
        .value();
    // nan: data that cannot be serialized.
    srv.add_tool(mcp::make_tool(mcp::tool_info("nan", "Returns NaN.").with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                    co_return ce::complete(std::numeric_limits<double>::quiet_NaN());
                                }))
        .value();
    // progress: reports progress and logs.
    srv.add_tool(
           mcp::make_tool(mcp::tool_info("progress", "Reports progress.").with_action(mcp::action_class::read_only),
                          [](const boost::json::object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                              ctx.progress(0.5, 1.0, "half");
                              ctx.progress(0.4, 1.0);  // not an increase: dropped
                              ctx.progress(1.0, 1.0);
                              ctx.log(mcp::log_level::debug, "debug detail");
                              ctx.log(mcp::log_level::warning, "index is stale", {{"age_s", 30}});
                              co_return ce::complete(boost::json::array{});
                          }))
        .value();
    // whoami: the principal and session facts.
    srv.add_tool(mcp::make_tool(mcp::tool_info("whoami", "Who is calling.").with_action(mcp::action_class::read_only),
                                [](const boost::json::object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                                    co_return ce::complete(
                                        boost::json::object{{"principal", ctx.caller().id},
                                                            {"client", ctx.session().client_name},
                                                            {"version", ctx.session().protocol_version},
                                                            {"remaining_positive", ctx.remaining().count() > 0}});
                                }))
        .value();
    // delete_note: an irreversible write with an observable side effect.
    srv
        .add_tool(mcp::make_tool(
            mcp::tool_info("delete_note", "Deletes a note.")
                .with_input_schema(
                    boost::json::parse(R"({"type":"object","properties":{"id":{"type":"string"}},"required":["id"]})")
                        .as_object())
                .with_action(mcp::action_class::irreversible_write),
            [flags](const boost::json::object&, mcp::call_context&) -> awaitable<ce::envelope> {
                ++flags->write_side_effects;
                co_return ce::complete(boost::json::object{{"deleted", true}});
            }))
        .value();
    // image: a low-level content tool.
    srv.add_tool(mcp::make_content_tool(
                     mcp::tool_info("image", "Returns an image.").with_action(mcp::action_class::read_only),
                     [](const boost::json::object&, mcp::call_context&) -> awaitable<mcp::content_result> {
                         mcp::content_result r;
                         r.content.push_back(boost::json::object{
                             {"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}});
                         co_return r;
                     }))
        .value();
}

class server_fixture : public ::testing::Test {
protected:
    std::shared_ptr<server_log> log = std::make_shared<server_log>();
    std::shared_ptr<shared_flags> flags = std::make_shared<shared_flags>();
    boost::asio::io_context ioc;
    mcp::server srv{test_options(log)};
    std::unique_ptr<mcp::memory_client> client;

    void SetUp() override {
        add_fixture_tools(srv, flags);
        client = std::make_unique<mcp::memory_client>(srv, ioc, mcp::connection_options{{"alice"}, ""});
    }
    void TearDown() override { client.reset(); }

    boost::json::value call(std::string_view tool, boost::json::object args = {}) {
        boost::json::object params{{"name", tool}, {"arguments", std::move(args)}};
        return client->request("tools/call", std::move(params));
    }
};

}  // namespace candor::test
