// SPDX-License-Identifier: BSL-1.0
// Prompts and completion over the in-memory transport: listing, argument checking before the
// prompt runs, the result, and completion of prompt arguments and template variables.
#include <candor/mcp/prompt.hpp>

#include <candor/mcp/completion.hpp>

#include "fixture.hpp"

#include <boost/asio/as_tuple.hpp>

using namespace candor::test;

namespace {

using boost::json::array;
using boost::json::object;

struct prompt_calls {
    int runs = 0;
};

// Plain functions called from the coroutines (GCC 12 and string literals in coroutines).
mcp::prompt_result greeting(const mcp::prompt_request& r) {
    const auto style = r.arguments.count("style") ? r.arguments.at("style") : std::string("plain");
    return mcp::prompt_result{
        "A greeting",
        array{mcp::prompt_message(
            "user", object{{"type", "text"}, {"text", "Greet " + r.arguments.at("name") + " (" + style + ")"}})}};
}

mcp::completion_result cities(const mcp::completion_request& r) {
    mcp::completion_result out;
    for (const char* c : {"paris", "park", "party", "rome"})
        if (std::string_view(c).substr(0, r.value.size()) == r.value) out.values.emplace_back(c);
    if (r.context.count("name")) out.values.push_back("for-" + r.context.at("name"));
    out.total = out.values.size();
    return out;
}

mcp::completion_result many(const mcp::completion_request&) {
    mcp::completion_result out;
    for (int i = 0; i < 150; ++i) out.values.push_back("v" + std::to_string(i));
    return out;
}

class Prompts : public server_fixture {
protected:
    std::shared_ptr<prompt_calls> calls = std::make_shared<prompt_calls>();

    void SetUp() override {
        server_fixture::SetUp();
        srv.add_prompt({"greet",
                        "Greeting",
                        "Greets someone.",
                        {{"name", "Name", "Who to greet", true}, {"style", "", "How", false}}},
                       [c = calls](const mcp::prompt_request& r) -> awaitable<mcp::prompt_result> {
                           ++c->runs;
                           co_return greeting(r);
                       })
            .value();
        srv.add_completion(
               {mcp::completion_ref::kind::prompt, "greet"},
               [](const mcp::completion_request& r) -> awaitable<mcp::completion_result> { co_return cities(r); })
            .value();
        srv.add_resource_template(
               {"mem://notes/{id}", "note", "", "", ""},
               [](const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                   co_return std::nullopt;
               })
            .value();
        srv.add_completion(
               {mcp::completion_ref::kind::resource_template, "mem://notes/{id}"},
               [](const mcp::completion_request& r) -> awaitable<mcp::completion_result> { co_return many(r); })
            .value();
        client->initialize();
    }

    boost::json::value get(object params) { return client->request("prompts/get", std::move(params)); }
    boost::json::value complete(object ref, std::string_view name, std::string_view value, object context = {}) {
        object params{{"ref", std::move(ref)}, {"argument", object{{"name", name}, {"value", value}}}};
        if (!context.empty()) params["context"] = std::move(context);
        return client->request("completion/complete", std::move(params));
    }
};

}  // namespace

TEST_F(Prompts, ListShowsNameTitleDescriptionAndArguments) {
    auto r = client->request("prompts/list");
    const auto expected =
        boost::json::parse(R"([{"name":"greet","title":"Greeting","description":"Greets someone.","arguments":[)"
                           R"({"name":"name","required":true,"title":"Name","description":"Who to greet"},)"
                           R"({"name":"style","required":false,"description":"How"}]}])");
    EXPECT_EQ(at(r, "result", "prompts"), expected);
}

TEST_F(Prompts, GetRunsThePromptWithItsArguments) {
    auto r = get(object{{"name", "greet"}, {"arguments", object{{"name", "Ada"}}}});
    EXPECT_EQ(at(r, "result", "description"), "A greeting");
    EXPECT_EQ(at(r, "result", "messages"),
              boost::json::parse(R"j([{"role":"user","content":{"type":"text","text":"Greet Ada (plain)"}}])j"));
}

TEST_F(Prompts, BadArgumentsAreInvalidParamsAndThePromptNeverRuns) {
    EXPECT_EQ(at(get(object{{"name", "nope"}}), "error", "code"), -32602);
    EXPECT_EQ(at(get(object{}), "error", "code"), -32602);
    EXPECT_EQ(at(get(object{{"name", "greet"}}), "error", "code"), -32602);  // name is required
    EXPECT_EQ(
        at(get(object{{"name", "greet"}, {"arguments", object{{"name", "A"}, {"colour", "red"}}}}), "error", "code"),
        -32602);  // undeclared
    EXPECT_EQ(at(get(object{{"name", "greet"}, {"arguments", object{{"name", 5}}}}), "error", "code"), -32602);
    EXPECT_EQ(at(get(object{{"name", "greet"}, {"arguments", array{}}}), "error", "code"), -32602);
    EXPECT_EQ(calls->runs, 0);
}

TEST_F(Prompts, RegistrationValidatesNamesAndArguments) {
    auto fn = [](const mcp::prompt_request& r) -> awaitable<mcp::prompt_result> { co_return greeting(r); };
    EXPECT_EQ(srv.add_prompt({"bad name", "", "", {}}, fn).error(), mcp::registration_error::invalid_name);
    EXPECT_EQ(srv.add_prompt({"greet", "", "", {}}, fn).error(), mcp::registration_error::duplicate_name);
    EXPECT_EQ(srv.add_prompt({"twice", "", "", {{"a", "", "", false}, {"a", "", "", false}}}, fn).error(),
              mcp::registration_error::duplicate_name);
    EXPECT_EQ(srv.add_prompt({"none", "", "", {}}, nullptr).error(), mcp::registration_error::null_handler);
}

TEST_F(Prompts, ListChangedIsSentWhenPromptsChange) {
    auto fn = [](const mcp::prompt_request& r) -> awaitable<mcp::prompt_result> { co_return greeting(r); };
    srv.add_prompt({"other", "", "", {}}, fn).value();
    EXPECT_TRUE(srv.remove_prompt("other"));
    EXPECT_FALSE(srv.remove_prompt("other"));
    client->run_ready();
    EXPECT_EQ(client->notifications("notifications/prompts/list_changed").size(), 2u);
}

TEST_F(Prompts, CapabilitiesIncludePromptsAndCompletions) {
    mcp::memory_client fresh(srv, ioc);
    const auto caps = at(fresh.initialize(), "result", "capabilities");
    EXPECT_EQ(at(caps, "prompts"), boost::json::parse(R"({"listChanged":true})"));
    EXPECT_EQ(at(caps, "completions"), object{});
}

TEST_F(Prompts, CompletionOfAPromptArgumentUsesTheCompleterAndTheContext) {
    auto r = complete(object{{"type", "ref/prompt"}, {"name", "greet"}}, "name", "par");
    EXPECT_EQ(at(r, "result", "completion"),
              boost::json::parse(R"({"values":["paris","park","party"],"hasMore":false,"total":3})"));
    auto c = complete(object{{"type", "ref/prompt"}, {"name", "greet"}}, "name", "ro",
                      object{{"arguments", object{{"name", "Ada"}}}});
    EXPECT_EQ(at(r, "result", "completion", "values").as_array().size(), 3u);
    EXPECT_EQ(at(c, "result", "completion", "values"), boost::json::parse(R"(["rome","for-Ada"])"));
}

TEST_F(Prompts, CompletionIsCutToOneHundredValuesWithHasMore) {
    auto r = complete(object{{"type", "ref/resource"}, {"uri", "mem://notes/{id}"}}, "id", "");
    EXPECT_EQ(at(r, "result", "completion", "values").as_array().size(), 100u);
    EXPECT_EQ(at(r, "result", "completion", "hasMore"), true);
}

TEST_F(Prompts, CompletionOfUnknownRefsOrArgumentsIsInvalidParams) {
    EXPECT_EQ(at(complete(object{{"type", "ref/prompt"}, {"name", "nope"}}, "name", ""), "error", "code"), -32602);
    EXPECT_EQ(at(complete(object{{"type", "ref/prompt"}, {"name", "greet"}}, "colour", ""), "error", "code"), -32602);
    EXPECT_EQ(at(complete(object{{"type", "ref/resource"}, {"uri", "mem://other/{x}"}}, "x", ""), "error", "code"),
              -32602);
    EXPECT_EQ(at(complete(object{{"type", "ref/tool"}, {"name", "greet"}}, "name", ""), "error", "code"), -32602);
    EXPECT_EQ(
        at(client->request("completion/complete", object{{"ref", object{{"type", "ref/prompt"}, {"name", "greet"}}}}),
           "error", "code"),
        -32602);
}

TEST_F(Prompts, DeclaredArgumentWithoutACompleterCompletesToNothing) {
    auto fn = [](const mcp::prompt_request& r) -> awaitable<mcp::prompt_result> { co_return greeting(r); };
    srv.add_prompt({"plain", "", "", {{"x", "", "", false}}}, fn).value();
    auto r = complete(object{{"type", "ref/prompt"}, {"name", "plain"}}, "x", "a");
    EXPECT_EQ(at(r, "result", "completion"), boost::json::parse(R"({"values":[],"hasMore":false})"));
}

namespace {

// Waits an hour unless cancelled; says whether it saw the cancellation.
awaitable<void> wait_an_hour(std::shared_ptr<bool> cancelled) {
    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
    t.expires_after(std::chrono::hours(1));
    auto [ec] = co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    *cancelled = ec == boost::asio::error::operation_aborted;
}

void expect_deadline_error(const boost::json::value& r, std::int64_t limit_ms) {
    EXPECT_EQ(at(r, "error", "code"), -32001) << boost::json::serialize(r);
    EXPECT_EQ(at(r, "error", "data", "code"), "DEADLINE_EXCEEDED");
    EXPECT_EQ(at(r, "error", "data", "limit_ms"), limit_ms);
}

}  // namespace

TEST(RequestDeadlines, ReadersPromptsAndCompletersPastTheDeadlineAreStoppedAndAnsweredOnce) {
    auto log = std::make_shared<server_log>();
    auto opts = test_options(log);
    opts.default_deadline = std::chrono::milliseconds(20);
    mcp::server s(opts);
    auto reader_cancelled = std::make_shared<bool>(false);
    auto prompt_cancelled = std::make_shared<bool>(false);
    auto completer_cancelled = std::make_shared<bool>(false);
    s.add_resource({"mem://slow", "slow", "", "", "", std::nullopt},
                   [reader_cancelled](
                       const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                       co_await wait_an_hour(reader_cancelled);
                       co_return std::nullopt;
                   })
        .value();
    s.add_prompt({"slow", "", "", {{"x", "", "", false}}},
                 [prompt_cancelled](const mcp::prompt_request&) -> awaitable<mcp::prompt_result> {
                     co_await wait_an_hour(prompt_cancelled);
                     co_return mcp::prompt_result{};
                 })
        .value();
    s.add_completion({mcp::completion_ref::kind::prompt, "slow"},
                     [completer_cancelled](const mcp::completion_request&) -> awaitable<mcp::completion_result> {
                         co_await wait_an_hour(completer_cancelled);
                         co_return mcp::completion_result{};
                     })
        .value();
    boost::asio::io_context io;
    mcp::memory_client c(s, io);
    c.initialize();

    auto read = c.request("resources/read", {{"uri", "mem://slow"}});
    expect_deadline_error(read, 20);
    auto get = c.request("prompts/get", {{"name", "slow"}});
    expect_deadline_error(get, 20);
    auto done = c.request("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "slow"}}},
                                                  {"argument", {{"name", "x"}, {"value", ""}}}});
    expect_deadline_error(done, 20);
    c.run_ready();
    EXPECT_TRUE(*reader_cancelled);
    EXPECT_TRUE(*prompt_cancelled);
    EXPECT_TRUE(*completer_cancelled);
    // One answer per request: nothing more arrived when the handlers ended.
    for (const auto* r : {&read, &get, &done}) {
        std::size_t answers = 0;
        for (const auto& m : c.received())
            if (m.as_object().contains("id") && at(m, "id") == at(*r, "id")) ++answers;
        EXPECT_EQ(answers, 1u);
    }
    // The server can still answer.
    EXPECT_EQ(at(c.request("ping"), "result"), boost::json::object{});
}
