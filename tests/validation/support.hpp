// SPDX-License-Identifier: BSL-1.0
#pragma once
// A server with validated tools and an in-memory client: the helpers the validation tests share.

#include <candor/mcp/connection.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace validation_test {

inline boost::json::value at(const boost::json::value& v, std::string_view key) {
    if (const auto* o = v.if_object())
        if (const auto* f = o->if_contains(key)) return *f;
    return "<missing>";
}
inline boost::json::value item(const boost::json::value& v, std::size_t i) {
    if (const auto* a = v.if_array())
        if (i < a->size()) return (*a)[i];
    return "<missing>";
}
inline std::string text(const boost::json::value& v) {
    return v.is_string() ? std::string(v.get_string()) : boost::json::serialize(v);
}

/// The structuredContent of a tools/call response.
struct answer {
    boost::json::value env;

    std::string status() const { return text(at(env, "status")); }
    boost::json::array errors() const {
        auto e = at(env, "errors");
        return e.is_array() ? e.get_array() : boost::json::array{};
    }
    std::vector<std::string> codes() const {
        std::vector<std::string> out;
        for (const auto& e : errors()) out.push_back(text(at(e, "code")));
        return out;
    }
    boost::json::value error(std::string_view code) const {
        for (const auto& e : errors())
            if (text(at(e, "code")) == code) return e;
        return "<missing>";
    }
    std::vector<std::string> warning_codes() const {
        std::vector<std::string> out;
        auto w = at(env, "warnings");
        if (w.is_array())
            for (const auto& x : w.get_array()) out.push_back(text(at(x, "code")));
        return out;
    }
    boost::json::value warning(std::string_view code, std::size_t nth = 0) const {
        auto w = at(env, "warnings");
        if (w.is_array())
            for (const auto& x : w.get_array())
                if (text(at(x, "code")) == code && nth-- == 0) return x;
        return "<missing>";
    }
    std::vector<std::string> reason_codes() const {
        std::vector<std::string> out;
        auto w = at(env, "incomplete_reasons");
        if (w.is_array())
            for (const auto& x : w.get_array()) out.push_back(text(at(x, "code")));
        return out;
    }
    boost::json::value data() const { return at(env, "data"); }
};

/// A server and one client per principal, on one io_context.
class harness {
public:
    harness() : server_(options()) {}

    candor::mcp::server& server() { return server_; }

    /// A client for `principal`, initialized; `elicitation` declares the capability.
    candor::mcp::memory_client& client(const std::string& principal, bool elicitation = false,
                                       std::string session = {}) {
        candor::mcp::connection_options o;
        o.caller.id = principal;
        o.session_id = std::move(session);
        clients_.push_back(std::make_unique<candor::mcp::memory_client>(server_, ioc_, o));
        auto& c = *clients_.back();
        boost::json::object caps;
        if (elicitation) caps["elicitation"] = boost::json::object{};
        c.request("initialize", {{"protocolVersion", "2025-11-25"},
                                 {"capabilities", std::move(caps)},
                                 {"clientInfo", {{"name", "test-model"}, {"version", "1"}}}});
        c.notify("notifications/initialized");
        return c;
    }

    /// Call `tool` with `arguments` sent exactly as written (number texts such as 30.00 kept).
    static answer call(candor::mcp::memory_client& c, std::string_view tool, std::string_view arguments) {
        const auto id = c.next_id();
        std::string text =
            R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":)" +
            boost::json::serialize(boost::json::value(tool)) + R"(,"arguments":)" + std::string(arguments) + "}}";
        auto r = c.exchange(std::move(text), boost::json::value(id));
        answer a{at(at(r, "result"), "structuredContent")};
        EXPECT_TRUE(a.env.is_object()) << boost::json::serialize(r);
        return a;
    }

    boost::asio::io_context& io() { return ioc_; }

private:
    static candor::mcp::server_options options() {
        candor::mcp::server_options o;
        o.name = "validation-test";
        o.version = "1";
        o.log = [](candor::mcp::log_level, std::string_view) {};
        return o;
    }
    boost::asio::io_context ioc_;
    candor::mcp::server server_;
    std::vector<std::unique_ptr<candor::mcp::memory_client>> clients_;
};

}  // namespace validation_test
