// SPDX-License-Identifier: BSL-1.0
#pragma once
// Shared fixtures for the completeness tests: fixed keys, controllable clocks, an in-memory
// collection served over MCP, and a way to run one coroutine to its end.

#include <candor/evidence/store.hpp>
#include <candor/mcp/connection.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/paging/collection.hpp>
#include <candor/paging/memory_source.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

namespace candor::test {

namespace pg = candor::paging;
namespace ev = candor::evidence;
namespace mcp = candor::mcp;

inline std::shared_ptr<const candor::seal::key_ring> test_keys(std::string id = "k1", char fill = 'a') {
    return std::make_shared<const candor::seal::key_ring>(
        candor::seal::key_ring::from_keys({{std::move(id), std::string(32, fill)}}).value());
}

// A wall clock and a steady clock that move only when a test says so.
struct manual_clocks {
    std::chrono::system_clock::time_point wall =
        std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 56));
    std::chrono::steady_clock::time_point steady = std::chrono::steady_clock::now();
    std::function<std::chrono::system_clock::time_point()> wall_fn() {
        return [this] { return wall; };
    }
    std::function<std::chrono::steady_clock::time_point()> steady_fn() {
        return [this] { return steady; };
    }
};

// Run one coroutine on `ioc` to its end and return its value.
template <class T>
T run(boost::asio::io_context& ioc, boost::asio::awaitable<T> a) {
    std::optional<T> out;
    std::exception_ptr error;
    boost::asio::co_spawn(ioc, std::move(a), [&](std::exception_ptr ep, T v) {
        error = ep;
        if (!ep) out = std::move(v);
    });
    ioc.restart();
    ioc.run();
    if (error) std::rethrow_exception(error);
    return std::move(*out);
}

inline boost::json::object item(int i, std::string group = "g") {
    char id[16];
    std::snprintf(id, sizeof id, "i-%05d", i);
    return boost::json::object{{"id", id}, {"group", std::move(group)}, {"n", i}};
}

inline std::string id_of(int i) { return boost::json::value(item(i)).at("id").as_string().c_str(); }

// Field lookups that fail as test failures rather than dereferences.
inline boost::json::value at(const boost::json::value& v, std::string_view key) {
    if (const auto* o = v.if_object())
        if (const auto* f = o->if_contains(key)) return *f;
    return "<missing>";
}
inline bool has(const boost::json::value& v, std::string_view key) {
    const auto* o = v.if_object();
    return o && o->contains(key);
}
inline boost::json::value at(const boost::json::value& v, std::string_view a, std::string_view b) {
    return at(at(v, a), b);
}

/// The envelope's continuation cursor, or "" when it has none.
inline std::string cursor_of(const boost::json::value& env) {
    auto c = at(env, "continuation", "cursor");
    return c.is_string() ? std::string(c.as_string()) : std::string();
}
inline boost::json::value at(const boost::json::value& v, std::string_view a, std::string_view b, std::string_view c) {
    return at(at(at(v, a), b), c);
}
inline std::vector<std::string> reason_codes(const boost::json::value& env) {
    std::vector<std::string> out;
    const auto list = at(env, "incomplete_reasons");
    if (auto* a = list.if_array())
        for (const auto& r : *a) out.emplace_back(at(r, "code").as_string());
    return out;
}
inline std::string first_error_code(const boost::json::value& env) {
    const auto list = at(env, "errors");
    if (auto* a = list.if_array(); a && !a->empty()) return std::string(at((*a)[0], "code").as_string());
    return "<none>";
}

// A server with a collection `items` over a memory source, talking to an in-memory client.
struct collection_harness {
    manual_clocks clocks;
    std::shared_ptr<const candor::seal::key_ring> keys = test_keys();
    std::shared_ptr<ev::evidence_store> store = ev::make_memory_store();
    std::shared_ptr<pg::memory_source> source;
    std::shared_ptr<pg::collection_tool> tool;
    boost::asio::io_context ioc;
    std::unique_ptr<mcp::server> srv;
    std::map<std::string, std::unique_ptr<mcp::memory_client>> clients;

    explicit collection_harness(pg::snapshot_mode mode = pg::snapshot_mode::pinned,
                                std::function<void(pg::collection_options&)> tune = {}) {
        source = std::make_shared<pg::memory_source>("items_db", pg::ordering{{"id"}}, mode);
        pg::collection_options o;
        o.default_page_size = 3;
        o.max_page_size = 50;
        o.keys = keys;
        o.evidence = store;
        o.accept_deadline = true;
        o.wall_clock = clocks.wall_fn();
        o.steady_clock = clocks.steady_fn();
        if (tune) tune(o);
        auto info =
            mcp::tool_info("items", "Lists items.")
                .with_input_schema(
                    boost::json::parse(
                        R"({"type":"object","properties":{"group":{"type":"string"}},"additionalProperties":false})")
                        .as_object());
        tool = std::make_shared<pg::collection_tool>(std::move(info), pg::ordering{{"id"}}, source, o);
        mcp::server_options so;
        so.log = {};
        srv = std::make_unique<mcp::server>(so);
        srv->add_tool(tool).value();
    }

    void fill(int n, std::string group = "g") {
        for (int i = 1; i <= n; ++i) source->put(item(i, group));
    }

    mcp::memory_client& client(const std::string& principal = "alice") {
        auto& c = clients[principal];
        if (!c) {
            c = std::make_unique<mcp::memory_client>(*srv, ioc, mcp::connection_options{{principal}, ""});
            c->initialize();
        }
        return *c;
    }

    // The envelope (structuredContent) of one call.
    boost::json::value call(std::string_view tool_name, boost::json::object args,
                            const std::string& principal = "alice") {
        auto r = client(principal).request("tools/call", {{"name", tool_name}, {"arguments", std::move(args)}});
        return at(at(r, "result"), "structuredContent");
    }
    boost::json::value page(boost::json::object args, const std::string& principal = "alice") {
        return call("items", std::move(args), principal);
    }
};

}  // namespace candor::test
