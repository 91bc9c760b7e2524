// SPDX-License-Identifier: BSL-1.0
// The server's questions reach the host's handlers on both revisions: as input_required results
// answered by a retry with the sealed state echoed (2026-07-28), as requests answered on the
// side while the stream that asked stays open (2025-11-25 over HTTP) or on the pipe (stdio).
// Without a handler the capability is not declared; a server that asks without end is stopped.
#include "client/client_support.hpp"

namespace candor::test {
namespace {

using boost::json::object;

object name_form() { return object{{"type", "object"}, {"properties", object{{"name", object{{"type", "string"}}}}}}; }
object accept_ada() { return object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}}; }

// greet: asks the user's name (when the client can be asked) and greets them.
// pester: asks `times` questions in a row, one per round.
void add_askers(mcp::server& s) {
    s.add_tool(mcp::make_content_tool(mcp::tool_info("greet", "Asks a name.").with_action(mcp::action_class::read_only),
                                      [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                                          mcp::content_result r;
                                          if (!ctx.can_elicit()) {
                                              r.content.push_back(text_block("cannot ask"));
                                              co_return r;
                                          }
                                          auto answer = co_await ctx.elicit("Your name?", name_form());
                                          std::string text = "no answer";
                                          if (answer && answer->action == mcp::elicitation_action::accept)
                                              text = "hello " + std::string(answer->content.at("name").as_string());
                                          else if (answer) text = "declined";
                                          r.content.push_back(text_block(std::move(text)));
                                          co_return r;
                                      }))
        .value();
    s.add_tool(mcp::make_content_tool(
                   mcp::tool_info("pester", "Asks and asks.").with_action(mcp::action_class::read_only),
                   [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                       for (int i = 0; i < 20; ++i) {
                           auto answer = co_await ctx.elicit("Again " + std::to_string(i) + "?", name_form());
                           if (!answer) break;
                       }
                       mcp::content_result r;
                       r.content.push_back(text_block("done"));
                       co_return r;
                   }))
        .value();
}

struct outcome_of_call {
    std::string text, error;
    int asked = 0;
};

outcome_of_call call(const cc::endpoint& where, cc::era era, const char* tool, bool with_handler,
                     std::size_t rounds = 8) {
    outcome_of_call out;
    cc::session_options o;
    o.protocol = era;
    o.max_input_rounds = rounds;
    if (with_handler)
        o.handlers.elicitation =
            [&out](const object& params) -> net::awaitable<boost::system::result<object, cc::client_error>> {
            ++out.asked;
            EXPECT_TRUE(params.contains("message"));
            co_return accept_ada();
        };
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where, o);
        if (!s) {
            out.error = s.error().code;
            co_return;
        }
        auto r = co_await (*s)->call_tool(tool, object());
        if (!r) out.error = r.error().code;
        else out.text = r->raw.at("content").as_array().at(0).at("text").as_string();
        co_await (*s)->close();
    });
    return out;
}

TEST(Handlers, OnTheStatelessRevisionAQuestionIsAnsweredByARetry) {
    envelope_server server(add_askers);
    auto answered = call(cc::endpoint::of_url(server.url()), cc::era::modern, "greet", true);
    EXPECT_EQ(answered.error, "");
    EXPECT_EQ(answered.text, "hello Ada");
    EXPECT_EQ(answered.asked, 1);
    // Without a handler the client does not declare elicitation: the tool knows it cannot ask.
    auto unasked = call(cc::endpoint::of_url(server.url()), cc::era::modern, "greet", false);
    EXPECT_EQ(unasked.text, "cannot ask");
}

TEST(Handlers, OnTheHandshakeRevisionTheQuestionIsAnsweredWhileItsStreamStaysOpen) {
    envelope_server server(add_askers);
    auto answered = call(cc::endpoint::of_url(server.url()), cc::era::legacy, "greet", true);
    EXPECT_EQ(answered.error, "");
    EXPECT_EQ(answered.text, "hello Ada");
    EXPECT_EQ(answered.asked, 1);
    EXPECT_EQ(call(cc::endpoint::of_url(server.url()), cc::era::legacy, "greet", false).text, "cannot ask");
}

TEST(Handlers, AServerThatAsksWithoutEndIsStoppedAfterTheRounds) {
    envelope_server server(add_askers);
    auto r = call(cc::endpoint::of_url(server.url()), cc::era::modern, "pester", true, 3);
    EXPECT_EQ(r.error, "INPUT_REQUIRED");
    EXPECT_EQ(r.asked, 3);
}

TEST(Handlers, OverStdioTheServersRequestIsAnsweredOnThePipe) {
    // The script asks once, then answers the call with what the client answered.
    auto r = call(cc::endpoint::of_command({"/bin/sh", "-c", R"(
read init
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"asker","version":"1"}}}'
read initialized
read call
printf '%s\n' '{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object"}}}'
read answer
case "$answer" in *'"id":"q1"'*'"name":"Ada"'*) text=answered ;; *) text="not answered: $answer" ;; esac
printf '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$text"
read end
)"}),
                  cc::era::legacy, "anything", true);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.text, "answered");
    EXPECT_EQ(r.asked, 1);
}

}  // namespace
}  // namespace candor::test
