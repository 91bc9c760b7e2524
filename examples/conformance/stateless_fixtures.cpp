// SPDX-License-Identifier: BSL-1.0
// The fixtures the conformance suite's 2026-07-28 scenarios call: tools that ask the client
// (elicitation, sampling, roots) through the call context — an `input_required` result and a
// retry on the stateless revision, a request on the stream on the handshake ones — a tool that
// needs a client capability, tools that change the lists, a prompt that asks, a parameter
// mirrored into a header.

#include "fixtures.hpp"

#include <boost/json/serialize.hpp>

namespace mcp = candor::mcp;
namespace net = boost::asio;
using boost::json::array;
using boost::json::object;

namespace conformance {

namespace {

// Requests are built in plain functions: GCC 12 miscompiles string literals in braced
// initializers inside coroutine bodies.
object string_form(const char* property) {
    return {{"type", "object"},
            {"properties", object{{property, object{{"type", "string"}}}}},
            {"required", array{property}}};
}

object boolean_form(const char* property) {
    return {{"type", "object"},
            {"properties", object{{property, object{{"type", "boolean"}}}}},
            {"required", array{property}}};
}

mcp::client_request ask_form(const char* key, const char* message, object schema) {
    return {"elicitation/create", object{{"message", message}, {"requestedSchema", std::move(schema)}}, key};
}

mcp::client_request ask_model(const char* key, const char* question, std::int64_t max_tokens) {
    return {
        "sampling/createMessage",
        object{{"messages", array{object{{"role", "user"}, {"content", object{{"type", "text"}, {"text", question}}}}}},
               {"maxTokens", max_tokens}},
        key};
}

mcp::client_request ask_roots(const char* key) { return {"roots/list", object{}, key}; }

std::vector<mcp::client_request> one(mcp::client_request r) {
    std::vector<mcp::client_request> v;
    v.push_back(std::move(r));
    return v;
}

// "accept" answers carry their form; anything else is reported as the action taken.
std::string describe_answer(const boost::system::result<object, mcp::client_request_error>& a) {
    if (!a) return std::string("failed: ") + std::string(mcp::to_string(a.error()));
    return boost::json::serialize(*a);
}

std::string field_of(const boost::system::result<object, mcp::client_request_error>& a, const char* field) {
    if (!a) return {};
    const auto* content = a->if_contains("content");
    const auto* form = content ? content->if_object() : nullptr;
    const auto* v = form ? form->if_contains(field) : nullptr;
    if (!v) return {};
    return v->is_string() ? std::string(v->get_string()) : boost::json::serialize(*v);
}

mcp::tool_info info(const char* name, const char* description) {
    return mcp::tool_info(name, description)
        .with_action(mcp::action_class::read_only)
        .with_input_schema({{"type", "object"}, {"properties", object{}}});
}

void add(mcp::server& srv, mcp::tool_info i, mcp::content_tool_function fn) {
    srv.add_tool(mcp::make_content_tool(std::move(i), std::move(fn))).value();
}

std::vector<mcp::client_request> capability_questions(const mcp::call_context& ctx) {
    // Only what the client declared: a request for anything else is never sent.
    std::vector<mcp::client_request> asks;
    if (ctx.can_elicit()) asks.push_back(ask_form("user_name", "What is your name?", string_form("name")));
    if (ctx.can_sample()) asks.push_back(ask_model("greeting", "Say hello.", 50));
    return asks;
}

mcp::prompt_result prompt_with_context(const std::string& context) {
    mcp::prompt_result r;
    r.messages.push_back(mcp::prompt_message(
        "user", object{{"type", "text"}, {"text", "Answer with this context in mind: " + context}}));
    return r;
}

}  // namespace

void add_stateless_fixtures(mcp::server& srv) {
    add(srv,
        info("test_missing_capability", "Needs the client's sampling capability; refused (-32021) without it.")
            .with_required_client_capabilities(object{{"sampling", object{}}}),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return text_result("The client declared sampling.");
        });
    add(srv, info("test_streaming_elicitation", "Asks the user for a name (elicitation)."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers =
                co_await ctx.request_client_all(one(ask_form("user_name", "What is your name?", string_form("name"))));
            co_return text_result("Hello, " + field_of(answers[0], "name"));
        });
    add(srv, info("test_logging_tool", "Logs three messages (only to clients that asked for a log level)."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            ctx.log(mcp::log_level::info, "Tool execution started");
            ctx.log(mcp::log_level::info, "Tool processing data");
            ctx.log(mcp::log_level::info, "Tool execution completed");
            co_return text_result("Tool with logging executed successfully");
        });
    add(srv, info("test_trigger_tool_change", "Adds or removes a tool, so that the tool list changes."),
        [&srv](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            if (!srv.remove_tool("test_toggled_tool"))
                add(srv, info("test_toggled_tool", "Exists every other time the tool list changes."),
                    [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                        co_return text_result("toggled");
                    });
            co_return text_result("The tool list changed.");
        });
    add(srv, info("test_trigger_prompt_change", "Adds or removes a prompt, so that the prompt list changes."),
        [&srv](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            if (!srv.remove_prompt("test_toggled_prompt"))
                srv.add_prompt({"test_toggled_prompt", "", "Exists every other time the prompt list changes.", {}},
                               [](const mcp::prompt_request&) -> net::awaitable<mcp::prompt_result> {
                                   co_return mcp::prompt_result{};
                               })
                    .value();
            co_return text_result("The prompt list changed.");
        });

    add(srv, info("test_input_required_result_elicitation", "Asks the user's name, then greets them."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers =
                co_await ctx.request_client_all(one(ask_form("user_name", "What is your name?", string_form("name"))));
            co_return text_result("Hello, " + field_of(answers[0], "name") + "!");
        });
    add(srv, info("test_input_required_result_sampling", "Asks the client's model a question."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers = co_await ctx.request_client_all(
                one(ask_model("sample_request", "What is the capital of France?", 100)));
            co_return text_result("The model said: " + describe_answer(answers[0]));
        });
    add(srv, info("test_input_required_result_list_roots", "Asks the client for its roots."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers = co_await ctx.request_client_all(one(ask_roots("client_roots")));
            co_return text_result("The client's roots: " + describe_answer(answers[0]));
        });
    add(srv, info("test_input_required_result_request_state", "Asks for a confirmation carried in the request state."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers = co_await ctx.request_client_all(one(ask_form("confirm", "Proceed?", boolean_form("ok"))));
            co_return text_result(field_of(answers[0], "ok") == "true" ? "state-ok: confirmed" : "state-ok: declined");
        });
    add(srv, info("test_input_required_result_multiple_inputs", "Asks three things at once: a name, a model, roots."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            std::vector<mcp::client_request> asks;
            asks.push_back(ask_form("user_name", "What is your name?", string_form("name")));
            asks.push_back(ask_model("greeting", "Say hello.", 50));
            asks.push_back(ask_roots("client_roots"));
            auto answers = co_await ctx.request_client_all(std::move(asks));
            co_return text_result("name: " + field_of(answers[0], "name") + "; greeting: " +
                                  describe_answer(answers[1]) + "; roots: " + describe_answer(answers[2]));
        });
    add(srv, info("test_input_required_result_multi_round", "Asks for a name, then for a colour: two rounds."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto first =
                co_await ctx.request_client_all(one(ask_form("step1", "What is your name?", string_form("name"))));
            auto second = co_await ctx.request_client_all(
                one(ask_form("step2", "What is your favourite colour?", string_form("color"))));
            co_return text_result(field_of(first[0], "name") + " likes " + field_of(second[0], "color"));
        });
    add(srv, info("test_input_required_result_tampered_state", "Asks for a confirmation; a changed state is refused."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto answers = co_await ctx.request_client_all(one(ask_form("confirm", "Proceed?", boolean_form("ok"))));
            co_return text_result("confirmed: " + field_of(answers[0], "ok"));
        });
    add(srv,
        info("test_input_required_result_capabilities",
             "Asks only what the client declared: a name by elicitation, a greeting by sampling."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto asks = capability_questions(ctx);
            if (asks.empty()) co_return text_result("The client declared neither elicitation nor sampling.");
            auto answers = co_await ctx.request_client_all(std::move(asks));
            std::string out;
            for (const auto& a : answers) out += describe_answer(a) + "\n";
            co_return text_result(out);
        });

    // A parameter mirrored into the Mcp-Param-Region header (and checked against it).
    add(srv,
        mcp::tool_info("test_custom_header", "Echoes a region that clients also send as a header.")
            .with_action(mcp::action_class::read_only)
            .with_input_schema({{"type", "object"},
                                {"properties", object{{"region", object{{"type", "string"},
                                                                        {"description", "A region name"},
                                                                        {"x-mcp-header", "Region"}}}}},
                                {"required", array{"region"}}}),
        [](const object& args, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            const auto* region = args.if_contains("region");
            co_return text_result("region: " +
                                  (region && region->is_string() ? std::string(region->get_string()) : std::string()));
        });

    srv.add_prompt({"test_input_required_result_prompt", "Prompt that asks", "Asks the user for context first.", {}},
                   [](const mcp::prompt_request& r) -> net::awaitable<mcp::prompt_result> {
                       auto answers = co_await r.context->request_client_all(one(
                           ask_form("user_context", "What context should the prompt use?", string_form("context"))));
                       co_return prompt_with_context(field_of(answers[0], "context"));
                   })
        .value();
}

}  // namespace conformance
