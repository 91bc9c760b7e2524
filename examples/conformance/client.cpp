// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// The client the official MCP conformance suite drives (`conformance client --command`): the
// suite starts a scenario server, then runs this program with the server's URL as the last
// argument and the scenario's name in MCP_CONFORMANCE_SCENARIO (its context, when it has one,
// in MCP_CONFORMANCE_CONTEXT). The client does what an agent would: it agrees on a revision,
// lists the tools, makes the calls the scenario is about, and answers the server's questions
// (an elicitation is accepted with the defaults of its form). A server that wants OAuth is
// authorized against; the browser is played headlessly (the authorization server's redirect is
// read, not followed), with pre-registered credentials from the scenario's context.
//
//     MCP_CONFORMANCE_SCENARIO=tools_call conformance-client http://127.0.0.1:PORT/mcp
#include <candor/client/client.hpp>
#include <candor/client/oauth.hpp>
#include <candor/http/auth/fetch.hpp>
#include <candor/json/intake.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

namespace cc = candor::client;
namespace net = boost::asio;
using boost::json::object;

std::string env(const char* name, const char* fallback = "") {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

// Accepts a form with the default of each field that has one (SEP-1034).
object accepted_with_defaults(const object& params) {
    object content;
    if (const auto* schema = params.if_contains("requestedSchema"); schema && schema->is_object())
        if (const auto* properties = schema->as_object().if_contains("properties");
            properties && properties->is_object())
            for (const auto& [name, field] : properties->as_object())
                if (const auto* d = field.is_object() ? field.as_object().if_contains("default") : nullptr)
                    content[name] = *d;
    if (content.empty()) content["confirmed"] = true;
    return object{{"action", "accept"}, {"content", std::move(content)}};
}

object numbers() { return object{{"a", 5}, {"b", 3}}; }

// The first item's `key` in `list` of a result, or empty.
std::string first(const object& result, const char* list, const char* key) {
    const auto* items = result.if_contains(list);
    if (!items || !items->is_array() || items->as_array().empty()) return {};
    const auto* v =
        items->as_array().front().is_object() ? items->as_array().front().as_object().if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

object with(const char* key, const std::string& value) { return object{{key, value}}; }

object with_schema(const object& tool) {
    const auto* schema = tool.if_contains("inputSchema");
    return object{{"schema", schema ? *schema : boost::json::value(object())}};
}

// The browser, headless: the authorization server answers the authorization request with a
// redirect at once (the suite's servers consent for the user); where it points is the answer.
net::awaitable<boost::system::result<std::string, cc::client_error>> follow(std::string url) {
    static const auto browser = *candor::auth::fetcher::create();
    auto r = co_await browser->get(std::move(url));
    if (r && r->status / 100 == 3 && !r->location.empty()) co_return r->location;
    cc::client_error e;
    e.code = "AUTHORIZATION_DECLINED";
    e.message = r ? "the authorization server answered HTTP " + std::to_string(r->status) + " without a redirect"
                  : std::string(candor::auth::to_string(r.error()));
    co_return e;
}

std::shared_ptr<cc::oauth_client> oauth_for(const std::string& scenario, const object& context) {
    cc::oauth_options o;
    o.authorize = follow;
    o.redirect_uri = "http://localhost:3000/callback";
    o.client_name = "candor-conformance-client";
    // The suite's authorization servers take this URL as the client's metadata document.
    o.client_metadata_url = "https://conformance-test.local/client-metadata.json";
    const auto text = [&](const char* key) {
        const auto* v = context.if_contains(key);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    // A machine's credentials (the client-credentials extension's scenarios) name no issuer: they
    // are for whichever authorization server the resource names.
    o.client_credentials = scenario.rfind("auth/client-credentials", 0) == 0;
    if (!text("client_id").empty() && (!text("issuer").empty() || o.client_credentials))
        o.preregistered.push_back(cc::preregistered_client{text("issuer"), text("client_id"), text("client_secret"),
                                                           text("private_key_pem")});
    auto client = cc::oauth_client::create(std::move(o));
    return client ? *client : nullptr;
}

void report(const std::string& what, const cc::client_error& e) {
    std::cerr << "conformance-client: " << what << ": " << e.code << ": " << e.message << "\n";
}

net::awaitable<int> run(net::any_io_executor ex, std::string url, std::string scenario, object context) {
    cc::session_options o;
    o.client_name = "candor-conformance-client";
    o.request_timeout = std::chrono::seconds(10);  // the suite gives a scenario 30 s
    const auto version = env("MCP_CONFORMANCE_PROTOCOL_VERSION");
    if (version == "2026-07-28") o.protocol = cc::era::modern;
    if (version == "2025-11-25") o.protocol = cc::era::legacy;
    o.handlers.elicitation =
        [](const object& params) -> net::awaitable<boost::system::result<object, cc::client_error>> {
        co_return accepted_with_defaults(params);
    };
    auto where = cc::endpoint::of_url(url);
    const bool authorizing = scenario.rfind("auth/", 0) == 0;
    if (authorizing) where.oauth = oauth_for(scenario, context);
    auto opened = co_await cc::session::open(ex, std::move(where), o);
    if (!opened) {
        report("no session", opened.error());
        co_return 1;
    }
    auto& s = **opened;
    int status = 0;
    auto tools = co_await s.list_tools();
    if (!tools) report("tools/list", tools.error());
    const auto call = [&](const std::string& name, object args) -> net::awaitable<void> {
        auto r = co_await s.call_tool(name, std::move(args));
        if (!r && r.error().code != "TOOL_REFUSED") {
            report("tools/call " + name, r.error());
            status = 1;
        }
    };
    if (const auto* calls = context.if_contains("toolCalls"); calls && calls->is_array()) {
        for (const auto& c : calls->as_array()) {
            const auto* name = c.is_object() ? c.as_object().if_contains("name") : nullptr;
            const auto* args = c.is_object() ? c.as_object().if_contains("arguments") : nullptr;
            if (!name || !name->is_string()) continue;
            // Named before co_await: GCC 12 mishandles temporaries in a co_await's operands.
            std::string tool(name->as_string());
            object arguments = args && args->is_object() ? args->as_object() : object();
            co_await call(tool, std::move(arguments));
        }
    } else if (scenario == "tools_call") {
        co_await call("add_numbers", numbers());
    } else if (tools && (authorizing || scenario == "sep-2322-client-request-state" ||
                         scenario == "http-invalid-tool-headers" || scenario == "elicitation-sep1034-client-defaults" ||
                         scenario == "http-standard-headers" || scenario == "sse-retry")) {
        for (const auto& t : *tools) {
            std::string tool(t.at("name").as_string());
            object none;
            co_await call(tool, std::move(none));
        }
    }
    if (tools && scenario == "json-schema-2020-12-preservation") {
        // The rich schema goes back to the echo tool as it was received: nothing dropped.
        const std::string echo = "json_schema_echo";  // named before co_await (GCC 12)
        for (const auto& t : *tools)
            if (t.at("name") == "json_schema_2020_12_tool") co_await call(echo, with_schema(t));
    }
    if (scenario == "http-standard-headers") {
        if (auto r = co_await s.request("resources/list", object()); r) {
            if (auto uri = first(*r, "resources", "uri"); !uri.empty())
                (void)co_await s.request("resources/read", with("uri", uri));
        }
        if (auto p = co_await s.request("prompts/list", object()); p) {
            if (auto name = first(*p, "prompts", "name"); !name.empty())
                (void)co_await s.request("prompts/get", with("name", name));
        }
    }
    co_await s.close();
    co_return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: conformance-client URL   (MCP_CONFORMANCE_SCENARIO names the scenario)\n";
        return 2;
    }
    object context;
    if (const auto text = env("MCP_CONFORMANCE_CONTEXT"); !text.empty()) {
        auto doc = candor::json::parse(text);
        if (doc && doc->root().is_object()) context = candor::json::detach(doc->root()).as_object();
    }
    net::io_context io;
    int status = 1;
    net::co_spawn(io, run(io.get_executor(), argv[argc - 1], env("MCP_CONFORMANCE_SCENARIO", "initialize"), context),
                  [&](std::exception_ptr e, int s) {
                      if (e) std::rethrow_exception(e);
                      status = s;
                  });
    io.run();
    return status;
}
