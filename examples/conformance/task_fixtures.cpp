// SPDX-License-Identifier: BSL-1.0
// The fixtures of the conformance suite's tasks scenarios (`io.modelcontextprotocol/tasks`):
// ordinary tools that declare task support. Whether a call runs as a task is the framework's
// business: a tool runs in the request until it first waits, then as a task if the request
// declared the extension; its requests to the client become the task's `inputRequests`.

#include "fixtures.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <stdexcept>

namespace mcp = candor::mcp;
namespace net = boost::asio;
using boost::json::array;
using boost::json::object;

namespace conformance {

namespace {

// Requests and schemas are built in plain functions: GCC 12 miscompiles string literals in
// braced initializers inside coroutine bodies.
object schema_of(object properties, array required = {}) {
    object s{{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) s["required"] = std::move(required);
    return s;
}

object string_property(const char* about) { return {{"type", "string"}, {"description", about}}; }

mcp::client_request confirm_request(const char* key, std::string message) {
    return {"elicitation/create",
            object{{"message", std::move(message)},
                   {"requestedSchema", schema_of(object{{"confirm", object{{"type", "boolean"}}}}, array{"confirm"})}},
            key};
}

mcp::client_request name_request(const char* key) {
    return {"elicitation/create",
            object{{"message", "What is your name?"},
                   {"requestedSchema", schema_of(object{{"name", object{{"type", "string"}}}}, array{"name"})}},
            key};
}

// Work that takes a while: a wait that ends early when the call is cancelled (false then).
net::awaitable<bool> work_for(mcp::call_context& ctx, std::chrono::milliseconds how_long) {
    net::steady_timer t(ctx.executor(), how_long);
    auto [ec] = co_await t.async_wait(net::as_tuple(net::use_awaitable));
    co_return !ec;
}

std::string answered_field(const boost::system::result<object, mcp::client_request_error>& a, const char* field) {
    if (!a) return {};
    const auto* content = a->if_contains("content");
    const auto* form = content ? content->if_object() : nullptr;
    const auto* v = form ? form->if_contains(field) : nullptr;
    if (!v) return {};
    return v->is_string() ? std::string(v->get_string()) : boost::json::serialize(*v);
}

bool accepted(const boost::system::result<object, mcp::client_request_error>& a) {
    if (!a) return false;
    const auto* action = a->if_contains("action");
    return action && action->is_string() && action->get_string() == "accept";
}

void add(mcp::server& srv, mcp::tool_info i, mcp::content_tool_function fn) {
    srv.add_tool(mcp::make_content_tool(std::move(i), std::move(fn))).value();
}

}  // namespace

void add_task_fixtures(mcp::server& srv) {
    add(srv,
        mcp::tool_info("greet", "Greets someone by name (always answered in the request).")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(schema_of(object{{"name", string_property("Who to greet")}}, array{"name"})),
        [](const object& args, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return text_result("Hello, " + std::string(args.at("name").as_string()) + "!");
        });
    add(srv,
        mcp::tool_info("slow_compute", "Computes for the given number of seconds; a task when the client allows.")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(
                schema_of(object{{"seconds", object{{"type", "number"}, {"minimum", 0}, {"maximum", 120}}},
                                 {"label", string_property("A label echoed in the result")}},
                          array{"seconds"}))
            .with_task_support(mcp::task_support::optional)
            .with_deadline(std::chrono::minutes(3)),
        [](const object& args, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            const double seconds = args.at("seconds").to_number<double>();
            const auto* label = args.if_contains("label");
            std::string name = label && label->is_string() ? std::string(label->get_string()) : "slow_compute";
            if (seconds > 0 && !co_await work_for(ctx, std::chrono::milliseconds(
                                                           static_cast<std::int64_t>(std::llround(seconds * 1000)))))
                co_return text_result(name + ": cancelled", true);
            co_return text_result(name + ": computed for " + boost::json::serialize(args.at("seconds")) + " s");
        });
    add(srv,
        mcp::tool_info("failing_job", "Works for a second, then fails with a tool error; runs only as a task.")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(schema_of(object{}))
            .with_task_support(mcp::task_support::required),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            co_await work_for(ctx, std::chrono::seconds(1));
            co_return text_result("the job failed: the input could not be processed", true);
        });
    add(srv,
        mcp::tool_info("protocol_error_job", "Works briefly, then fails with an internal error (a JSON-RPC error).")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(schema_of(object{}))
            .with_task_support(mcp::task_support::optional),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            co_await work_for(ctx, std::chrono::milliseconds(200));
            throw std::runtime_error("protocol_error_job fails by design");
        });
    add(srv,
        mcp::tool_info("confirm_delete", "Looks the file up, asks the user to confirm, then deletes it (pretends to).")
            .with_action(mcp::action_class::irreversible_write)
            .with_input_schema(schema_of(object{{"filename", string_property("The file to delete")}}))
            .with_task_support(mcp::task_support::optional),
        [](const object& args, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            const auto* f = args.if_contains("filename");
            const std::string file = f && f->is_string() ? std::string(f->get_string()) : "the file";
            if (!co_await work_for(ctx, std::chrono::milliseconds(100))) co_return text_result("cancelled", true);
            std::vector<mcp::client_request> asks;
            asks.push_back(confirm_request("confirm_delete", "Delete " + file + "?"));
            auto answers = co_await ctx.request_client_all(std::move(asks));
            if (accepted(answers[0]) && answered_field(answers[0], "confirm") == "true")
                co_return text_result("Deleted " + file + ".");
            co_return text_result("Kept " + file + ".");
        });
    add(srv,
        mcp::tool_info("multi_input", "Asks two things at once (a name and a confirmation), then reports both.")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(schema_of(object{}))
            .with_task_support(mcp::task_support::optional),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            if (!co_await work_for(ctx, std::chrono::milliseconds(100))) co_return text_result("cancelled", true);
            std::vector<mcp::client_request> asks;
            asks.push_back(name_request("name"));
            asks.push_back(confirm_request("confirm", "Proceed?"));
            auto answers = co_await ctx.request_client_all(std::move(asks));
            co_return text_result("name: " + answered_field(answers[0], "name") +
                                  "; confirm: " + answered_field(answers[1], "confirm"));
        });
    add(srv,
        mcp::tool_info("test_tool_with_task", "Asks the user's name first, then greets them as a task.")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(schema_of(object{}))
            .with_task_support(mcp::task_support::required),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            // Asked before the tool first waits: answered input_required in the request, and the
            // task starts on the retry that brings the answer.
            std::vector<mcp::client_request> asks;
            asks.push_back(name_request("user_name"));
            auto answers = co_await ctx.request_client_all(std::move(asks));
            if (!co_await work_for(ctx, std::chrono::milliseconds(200))) co_return text_result("cancelled", true);
            co_return text_result("Hello, " + answered_field(answers[0], "name") + "!");
        });
}

}  // namespace conformance
