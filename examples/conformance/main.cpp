// The server the official MCP conformance suite tests: the fixture's tools, each returning
// exactly the content blocks the suite's scenarios expect, on the low-level content path
// (`make_content_tool`) — media tools return MCP content, not envelopes.
//
//     conformance-server --http 3001        (listens on 127.0.0.1:3001/mcp)
//
// Resources, prompts, sampling and elicitation tools are not here yet: the server core does
// not offer them (see issue 5, section 2).

// GCC 12 reports a false "potential null pointer dereference" inside Asio's any_executor.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <candor/app/command_line.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>

namespace mcp = candor::mcp;
namespace net = boost::asio;
using boost::json::array;
using boost::json::object;

namespace {

// A 1x1 PNG and a 16-bit mono WAV of 8 silent samples: the smallest valid media.
constexpr const char* png_base64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr const char* wav_base64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

object text(const char* t) { return {{"type", "text"}, {"text", t}}; }
object image() { return {{"type", "image"}, {"data", png_base64}, {"mimeType", "image/png"}}; }

mcp::tool_info info(const char* name, const char* description) {
    return mcp::tool_info(name, description).with_input_schema({{"type", "object"}, {"properties", object{}}});
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
            co_return mcp::content_result{array{object{
                {"type", "resource"},
                {"resource", object{{"uri", "test://embedded-resource"},
                                    {"mimeType", "text/plain"},
                                    {"text", "This is an embedded resource content."}}}}}};
        });
    add(srv, info("test_multiple_content_types", "Returns text, an image and an embedded resource."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{
                text("Multiple content types test:"), image(),
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
    add(srv, info("test_error_handling", "Always fails with a tool error (isError)."),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{text("This tool intentionally returns an error for testing")},
                                          std::nullopt, true};
        });
    // SEP-1613: the input schema travels as written, 2020-12 keywords included.
    add(srv,
        mcp::tool_info("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features")
            .with_input_schema(object{
                {"$schema", "https://json-schema.org/draft/2020-12/schema"},
                {"type", "object"},
                {"$defs", object{{"address", object{{"type", "object"},
                                                    {"properties", object{{"street", object{{"type", "string"}}},
                                                                          {"city", object{{"type", "string"}}}}}}}}},
                {"properties", object{{"name", object{{"type", "string"}}},
                                      {"address", object{{"$ref", "#/$defs/address"}}}}},
                {"additionalProperties", false}}),
        [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
            co_return mcp::content_result{array{text("ok")}};
        });

    return candor::app::run(srv, argc, argv, {.summary = "The MCP conformance suite's fixture server."});
}
