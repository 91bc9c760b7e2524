// SPDX-License-Identifier: BSL-1.0
// The server the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16)
// tests: the fixture's tools, each returning exactly the content blocks the suite's scenarios
// expect. This is the low-level path, deliberately: input schemas written by hand
// (the suite fixes them, 2020-12 keywords included) and MCP content blocks
// (`make_content_tool`) instead of envelopes — media tools return MCP content; tools that ask
// the client (sampling, elicitation) through the call context; the fixture's resources,
// resource template, prompts and a completer; tasks and skills.
//
//     conformance-server --http 3001        (listens on 127.0.0.1:3001/mcp)

#include "fixtures.hpp"

#include <candor/app/command_line.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>

namespace mcp = candor::mcp;
namespace net = boost::asio;
using boost::json::array;
using boost::json::object;
using conformance::text_result;

namespace {

// A 1x1 PNG and a 16-bit mono WAV of 8 silent samples: the smallest valid media.
constexpr const char* png_base64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr const char* wav_base64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

object text(const char* t) { return {{"type", "text"}, {"text", t}}; }
object image() { return {{"type", "image"}, {"data", png_base64}, {"mimeType", "image/png"}}; }

mcp::tool_info info(const char* name, const char* description) {
    return mcp::tool_info(name, description)
        .with_action(mcp::action_class::read_only)
        .with_input_schema({{"type", "object"}, {"properties", object{}}});
}

// The scenarios ask for ~50 ms between notifications, so that a client sees them arrive
// during the call; the wait honours the call's cancellation.
net::awaitable<void> pause(mcp::call_context& ctx) {
    net::steady_timer t(ctx.executor(), std::chrono::milliseconds(50));
    co_await t.async_wait(net::as_tuple(net::use_awaitable));
}

void add(mcp::server& srv, mcp::tool_info i, mcp::content_tool_function fn) {
    srv.add_tool(mcp::make_content_tool(std::move(i), std::move(fn))).value();
}

// A tool with one required string argument.
mcp::tool_info info_with(const char* name, const char* description, const char* argument, const char* about) {
    return mcp::tool_info(name, description)
        .with_action(mcp::action_class::read_only)
        .with_input_schema({{"type", "object"},
                            {"properties", object{{argument, object{{"type", "string"}, {"description", about}}}}},
                            {"required", array{argument}}});
}

// What a tool answers when its request to the client has no usable reply.
mcp::content_result client_failure(const char* what, mcp::client_request_error e) {
    return text_result(std::string(what) + " failed: " + std::string(mcp::to_string(e)), true);
}

std::string_view action_name(mcp::elicitation_action a) {
    switch (a) {
        case mcp::elicitation_action::accept: return "accept";
        case mcp::elicitation_action::decline: return "decline";
        case mcp::elicitation_action::cancel: return "cancel";
    }
    return "cancel";
}

std::string describe(const mcp::elicitation_result& r) {
    return "action=" + std::string(action_name(r.action)) + ", content=" + boost::json::serialize(r.content);
}

object elicitation_schema() {
    return {{"type", "object"},
            {"properties", object{{"username", object{{"type", "string"}, {"description", "User's response"}}},
                                  {"email", object{{"type", "string"}, {"description", "User's email address"}}}}},
            {"required", array{"username", "email"}}};
}

// SEP-1034: a default for every primitive type.
object defaults_schema() {
    return {
        {"type", "object"},
        {"properties",
         object{{"name", object{{"type", "string"}, {"default", "John Doe"}}},
                {"age", object{{"type", "integer"}, {"default", 30}}},
                {"score", object{{"type", "number"}, {"default", 95.5}}},
                {"status",
                 object{{"type", "string"}, {"enum", array{"active", "inactive", "pending"}}, {"default", "active"}}},
                {"verified", object{{"type", "boolean"}, {"default", true}}}}}};
}

// SEP-1330: the five enum shapes.
object enums_schema() {
    auto titled = [](const char* prefix, const char* first, const char* second, const char* third) {
        return array{object{{"const", std::string(prefix) + "1"}, {"title", first}},
                     object{{"const", std::string(prefix) + "2"}, {"title", second}},
                     object{{"const", std::string(prefix) + "3"}, {"title", third}}};
    };
    const array options{"option1", "option2", "option3"};
    return {
        {"type", "object"},
        {"properties",
         object{{"untitledSingle", object{{"type", "string"}, {"enum", options}}},
                {"titledSingle", object{{"type", "string"},
                                        {"oneOf", titled("value", "First Option", "Second Option", "Third Option")}}},
                {"legacyEnum", object{{"type", "string"},
                                      {"enum", array{"opt1", "opt2", "opt3"}},
                                      {"enumNames", array{"Option One", "Option Two", "Option Three"}}}},
                {"untitledMulti", object{{"type", "array"}, {"items", object{{"type", "string"}, {"enum", options}}}}},
                {"titledMulti", object{{"type", "array"},
                                       {"items", object{{"anyOf", titled("value", "First Choice", "Second Choice",
                                                                         "Third Choice")}}}}}}}};
}

object sampling_message(std::string_view prompt) {
    return {{"role", "user"}, {"content", object{{"type", "text"}, {"text", prompt}}}};
}

std::string sampled_text(const boost::json::value& content) {
    const auto* block = content.is_array() && !content.get_array().empty() ? &content.get_array().front() : &content;
    if (const auto* o = block->if_object())
        if (const auto* t = o->if_contains("text"); t && t->is_string()) return std::string(t->get_string());
    return boost::json::serialize(content);
}

// The coroutines below only call plain functions like this one: GCC 12 miscompiles string
// literals in braced initializers inside coroutine bodies.
std::vector<mcp::resource_contents> template_data(const mcp::resource_request& r) {
    const auto& id = r.variables.at("id");
    const object data{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
    return {mcp::resource_contents::of_text(r.uri, "application/json", boost::json::serialize(data))};
}

mcp::prompt_result prompt_of(array messages) { return mcp::prompt_result{{}, std::move(messages)}; }

mcp::prompt_result simple_prompt() {
    return prompt_of(array{mcp::prompt_message("user", text("This is a simple prompt for testing."))});
}

mcp::prompt_result prompt_with_arguments(const mcp::prompt_request& r) {
    const std::string t =
        "Prompt with arguments: arg1='" + r.arguments.at("arg1") + "', arg2='" + r.arguments.at("arg2") + "'";
    return prompt_of(array{mcp::prompt_message("user", object{{"type", "text"}, {"text", t}})});
}

mcp::prompt_result prompt_with_resource(const mcp::prompt_request& r) {
    const object resource{{"uri", r.arguments.at("resourceUri")},
                          {"mimeType", "text/plain"},
                          {"text", "Embedded resource content for testing."}};
    return prompt_of(array{mcp::prompt_message("user", object{{"type", "resource"}, {"resource", resource}}),
                           mcp::prompt_message("user", text("Please process the embedded resource above."))});
}

mcp::prompt_result prompt_with_image() {
    return prompt_of(array{mcp::prompt_message("user", image()),
                           mcp::prompt_message("user", text("Please analyze the image above."))});
}

// Completes from a short word list by prefix.
mcp::completion_result complete_word(const mcp::completion_request& r) {
    static const std::vector<std::string> words{"paris", "park", "party", "test", "testing"};
    mcp::completion_result out;
    for (const auto& w : words)
        if (w.compare(0, r.value.size(), r.value) == 0) out.values.push_back(w);
    out.total = out.values.size();
    return out;
}

std::string string_argument(const object& args, std::string_view key) {
    const auto* v = args.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}
std::string prompt_argument_of(const object& args) { return string_argument(args, "prompt"); }
std::string message_argument_of(const object& args) { return string_argument(args, "message"); }

mcp::content_result sampling_answer(const mcp::sampling_result& r) {
    return text_result("LLM response: " + sampled_text(r.content));
}
mcp::content_result elicitation_answer(const char* prefix, const mcp::elicitation_result& r) {
    return text_result(std::string(prefix) + describe(r));
}
mcp::content_result sampling_failure(mcp::client_request_error e) { return client_failure("sampling", e); }
mcp::content_result elicitation_failure(mcp::client_request_error e) { return client_failure("elicitation", e); }
array sampling_messages(const std::string& prompt) { return array{sampling_message(prompt)}; }

constexpr const char* completed_prefix = "Elicitation completed: ";
constexpr const char* response_prefix = "User response: ";

// A tool that elicits with a fixed schema and reports the answer.
void add_elicitation_tool(mcp::server& srv, mcp::tool_info i, object schema, const char* message) {
    add(srv, std::move(i),
        [schema = std::move(schema), message = std::string(message)](
            const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto reply = co_await ctx.elicit(message, schema);
            if (!reply) co_return elicitation_failure(reply.error());
            co_return elicitation_answer(completed_prefix, *reply);
        });
}

void add_resources(mcp::server& srv) {
    auto fixed = [](mcp::resource_contents c) -> mcp::resource_reader {
        return [c](const mcp::resource_request&) -> net::awaitable<std::optional<std::vector<mcp::resource_contents>>> {
            co_return std::vector<mcp::resource_contents>{c};
        };
    };
    srv.add_resource({"test://static-text", "static-text", "Static text", "A fixed text resource.", "text/plain", {}},
                     fixed(mcp::resource_contents::of_text("test://static-text", "text/plain",
                                                           "This is the content of the static text resource.")))
        .value();
    srv.add_resource({"test://static-binary", "static-binary", "Static binary", "A fixed PNG image.", "image/png", {}},
                     fixed(mcp::resource_contents::of_blob("test://static-binary", "image/png", png_base64)))
        .value();
    srv.add_resource(
           {"test://watched-resource", "watched-resource", "Watched", "A resource to subscribe to.", "text/plain", {}},
           fixed(mcp::resource_contents::of_text("test://watched-resource", "text/plain", "Watched resource content.")))
        .value();
    srv.add_resource_template(
           {"test://template/{id}/data", "template-data", "Data by id", "JSON data for an id.", "application/json"},
           [](const mcp::resource_request& r) -> net::awaitable<std::optional<std::vector<mcp::resource_contents>>> {
               co_return template_data(r);
           })
        .value();
}

void add_prompts(mcp::server& srv) {
    srv.add_prompt({"test_simple_prompt", "Simple prompt", "A prompt without arguments.", {}},
                   [](const mcp::prompt_request&) -> net::awaitable<mcp::prompt_result> { co_return simple_prompt(); })
        .value();
    srv.add_prompt({"test_prompt_with_arguments",
                    "Prompt with arguments",
                    "A prompt with two required arguments.",
                    {{"arg1", "", "First test argument", true}, {"arg2", "", "Second test argument", true}}},
                   [](const mcp::prompt_request& r) -> net::awaitable<mcp::prompt_result> {
                       co_return prompt_with_arguments(r);
                   })
        .value();
    srv.add_prompt({"test_prompt_with_embedded_resource",
                    "Prompt with a resource",
                    "A prompt that embeds a resource.",
                    {{"resourceUri", "", "URI of the resource to embed", true}}},
                   [](const mcp::prompt_request& r) -> net::awaitable<mcp::prompt_result> {
                       co_return prompt_with_resource(r);
                   })
        .value();
    srv.add_prompt(
           {"test_prompt_with_image", "Prompt with an image", "A prompt with an image.", {}},
           [](const mcp::prompt_request&) -> net::awaitable<mcp::prompt_result> { co_return prompt_with_image(); })
        .value();
    srv.add_completion({mcp::completion_ref::kind::prompt, "test_prompt_with_arguments"},
                       [](const mcp::completion_request& r) -> net::awaitable<mcp::completion_result> {
                           co_return complete_word(r);
                       })
        .value();
}

}  // namespace

int main(int argc, char** argv) {
    mcp::server srv(mcp::server_options{.name = "candor-conformance-server", .version = "0.1.0"});

    add(srv, info("test_simple_text", "Returns a simple text block."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{text("This is a simple text response for testing.")}};
        });
    add(srv, info("test_image_content", "Returns a 1x1 PNG image."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{image()}};
        });
    add(srv, info("test_audio_content", "Returns a short WAV clip."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{
                array{object{{"type", "audio"}, {"data", wav_base64}, {"mimeType", "audio/wav"}}}};
        });
    add(srv, info("test_embedded_resource", "Returns an embedded text resource."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{
                array{object{{"type", "resource"},
                             {"resource", object{{"uri", "test://embedded-resource"},
                                                 {"mimeType", "text/plain"},
                                                 {"text", "This is an embedded resource content."}}}}}};
        });
    add(srv, info("test_multiple_content_types", "Returns text, an image and an embedded resource."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{
                array{text("Multiple content types test:"), image(),
                      object{{"type", "resource"},
                             {"resource", object{{"uri", "test://mixed-content-resource"},
                                                 {"mimeType", "application/json"},
                                                 {"text", R"({"test":"data","value":123})"}}}}}};
        });
    add(srv, info("test_tool_with_logging", "Sends three info log messages while it runs."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            ctx.log(mcp::log_level::info, "Tool execution started");
            co_await pause(ctx);
            ctx.log(mcp::log_level::info, "Tool processing data");
            co_await pause(ctx);
            ctx.log(mcp::log_level::info, "Tool execution completed");
            co_return mcp::content_result{array{text("Tool with logging executed successfully")}};
        });
    add(srv, info("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            ctx.progress(0, 100);
            co_await pause(ctx);
            ctx.progress(50, 100);
            co_await pause(ctx);
            ctx.progress(100, 100);
            co_return mcp::content_result{array{text("Tool with progress executed successfully")}};
        });
    // The suite's SSE polling scenario (2025-11-25): a call whose answer is a stream, which
    // opens with a priming event (an id and `retry`) to resume from.
    add(srv, info("test_reconnection", "Sends a log message before its result, so that its answer is a stream."),
        [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            ctx.log(mcp::log_level::info, "Reconnection test started");
            co_await pause(ctx);
            co_return mcp::content_result{array{text("Reconnection test completed")}};
        });
    add(srv, info("test_error_handling", "Always fails with a tool error (isError)."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{text("This tool intentionally returns an error for testing")},
                                          std::nullopt, true};
        });
    // SEP-1613: the input schema travels as written, 2020-12 keywords included.
    add(srv,
        mcp::tool_info("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features")
            .with_action(mcp::action_class::read_only)
            .with_input_schema(object{
                {"$schema", "https://json-schema.org/draft/2020-12/schema"},
                {"type", "object"},
                {"$defs", object{{"address", object{{"$anchor", "addressDef"},
                                                    {"type", "object"},
                                                    {"properties", object{{"street", object{{"type", "string"}}},
                                                                          {"city", object{{"type", "string"}}}}}}}}},
                {"properties", object{{"name", object{{"type", "string"}}},
                                      {"address", object{{"$ref", "#/$defs/address"}}},
                                      {"contactMethod", object{{"type", "string"}, {"enum", array{"phone", "email"}}}},
                                      {"phone", object{{"type", "string"}}},
                                      {"email", object{{"type", "string"}}}}},
                {"allOf", array{object{{"anyOf", array{object{{"required", array{"phone"}}},
                                                       object{{"required", array{"email"}}}}}}}},
                {"if", object{{"properties", object{{"contactMethod", object{{"const", "phone"}}}}},
                              {"required", array{"contactMethod"}}}},
                {"then", object{{"required", array{"phone"}}}},
                {"else", object{{"required", array{"email"}}}},
                {"additionalProperties", false}}),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{text("ok")}};
        });

    add(srv,
        info_with("test_sampling", "Asks the client's model to answer a prompt.", "prompt",
                  "The prompt to send to the LLM"),
        [](const object& args, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto reply = co_await ctx.sample(sampling_messages(prompt_argument_of(args)), 100);
            if (!reply) co_return sampling_failure(reply.error());
            co_return sampling_answer(*reply);
        });
    add(srv,
        info_with("test_elicitation", "Asks the user for a username and an email.", "message",
                  "The message to show the user"),
        [](const object& args, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
            auto reply = co_await ctx.elicit(message_argument_of(args), elicitation_schema());
            if (!reply) co_return elicitation_failure(reply.error());
            co_return elicitation_answer(response_prefix, *reply);
        });
    add_elicitation_tool(srv,
                         info("test_elicitation_sep1034_defaults", "Elicits a form with a default for every field."),
                         defaults_schema(), "Please review your profile (defaults filled in)");
    add_elicitation_tool(srv, info("test_elicitation_sep1330_enums", "Elicits a form with every enum shape."),
                         enums_schema(), "Please choose your options");
    conformance::add_stateless_fixtures(srv);
    conformance::add_task_fixtures(srv);
    conformance::add_skill_fixtures(srv);
    add_resources(srv);
    add_prompts(srv);
    // Requests to the client on the stateless revision carry their state sealed with the server's
    // keys (without any configured, a key of this process: a fixture needs none that survives it).
    return candor::app::run(srv, argc, argv,
                            {.summary = "The MCP conformance suite's fixture server.",
                             .extensions = {std::make_shared<candor::app::http_command_line>(),
                                            std::make_shared<candor::keys::command_line>()}});
}
