// SPDX-License-Identifier: BSL-1.0
#pragma once
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive. Here once, for every test that includes this.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Running the client against a server in this process (Streamable HTTP on a free port) or a
// scripted one (a shell script over stdio): each test's coroutine runs to its end on an
// io_context of its own.
#include "mcp/stateless_support.hpp"

#include <candor/client/walk.hpp>
#include <candor/http/server.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

namespace candor::test {

namespace cc = candor::client;
namespace net = boost::asio;

/// Run `body` (a coroutine taking the executor) to its end.
inline void run_client(const std::function<net::awaitable<void>(net::any_io_executor)>& body) {
    net::io_context ioc;
    bool done = false;
    net::co_spawn(
        ioc,
        [&]() -> net::awaitable<void> {
            co_await body(ioc.get_executor());
            done = true;
        },
        [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
        });
    ioc.run();
    EXPECT_TRUE(done);
}

/// A server whose `env` tool answers `pages(arguments)` as its structured content, over HTTP.
class envelope_server {
public:
    using page_fn = std::function<boost::json::object(const boost::json::object& arguments)>;

    explicit envelope_server(std::function<void(mcp::server&)> add) {
        srv_ = std::make_unique<mcp::server>(mcp::server_options{.name = "envelopes", .log = {}});
        srv_->set_request_state_sealer(test_sealer());
        add(*srv_);
        transport::http_options o;
        o.threads = 1;
        http_ = std::make_unique<transport::http_server>(*srv_, o);
        EXPECT_TRUE(http_->start());
    }
    ~envelope_server() { http_->stop(); }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(http_->port()) + "/mcp"; }

    /// Adds tool `name` answering with `fn(arguments)` as structuredContent (and as text).
    static void add(mcp::server& s, const char* name, page_fn fn) {
        s
            .add_tool(mcp::make_content_tool(
                mcp::tool_info(name, "A scripted envelope.").with_action(mcp::action_class::read_only),
                [fn](const boost::json::object& args, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                    auto env = fn(args);
                    mcp::content_result r;
                    r.content = content_of(env);
                    r.structured_content = std::move(env);
                    co_return r;
                }))
            .value();
    }

private:
    static boost::json::array content_of(const boost::json::object& env);
    std::unique_ptr<mcp::server> srv_;
    std::unique_ptr<transport::http_server> http_;
};

/// A text content block.
inline boost::json::object text_block(boost::json::string_view text) {
    return boost::json::object{{"type", "text"}, {"text", text}};
}

/// Adds `echo`: answers its `text` argument as a text block.
inline void add_echo(mcp::server& s) {
    s.add_tool(mcp::make_content_tool(
                   mcp::tool_info("echo", "Echoes text.").with_action(mcp::action_class::read_only),
                   [](const boost::json::object& args, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                       mcp::content_result r;
                       r.content.push_back(text_block(args.at("text").as_string()));
                       co_return r;
                   }))
        .value();
}

inline boost::json::array envelope_server::content_of(const boost::json::object& env) {
    return boost::json::array{boost::json::object{{"type", "text"}, {"text", boost::json::serialize(env)}}};
}

}  // namespace candor::test
