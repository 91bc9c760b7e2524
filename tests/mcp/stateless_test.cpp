// SPDX-License-Identifier: BSL-1.0
// The stateless revision (2026-07-28) beside the handshake revisions on one connection:
// per-request _meta, discovery, result dressing, the checks before dispatch, multi round-trip
// requests with a sealed request state, subscriptions/listen.
#include <candor/mcp/stateless.hpp>

#include "fixture.hpp"
#include "stateless_support.hpp"

#include <candor/evidence/request_state.hpp>
#include <candor/jsonrpc/intake.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/json/value_to.hpp>

#include <map>

namespace candor::test {
namespace {

using boost::json::array;
using boost::json::object;

object meta(object capabilities = {}) { return modern_meta(std::move(capabilities), "modern-client"); }

object with_meta(object params, object capabilities = {}) {
    params["_meta"] = meta(std::move(capabilities));
    return params;
}

std::vector<mcp::client_request> one(mcp::client_request r) {
    std::vector<mcp::client_request> v;
    v.push_back(std::move(r));
    return v;
}

class Stateless : public server_fixture {
protected:
    int runs = 0;

    void SetUp() override {
        server_fixture::SetUp();
        srv.set_request_state_sealer(test_sealer());
        // Two questions in two rounds; counts its runs (each retry runs it again from the start).
        srv
            .add_tool(mcp::make_tool(
                mcp::tool_info("two_rounds", "Asks a name, then a colour.")
                    .with_input_schema(boost::json::parse(R"({"type":"object","properties":{"n":{}}})").as_object())
                    .with_action(mcp::action_class::read_only),
                [this](const object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                    ++runs;
                    auto first = co_await ctx.request_client_all(one(form("step1", "name")));
                    auto second = co_await ctx.request_client_all(one(form("step2", "color")));
                    co_return ce::complete(
                        object{{"name", answer_field(first[0], "name")}, {"color", answer_field(second[0], "color")}});
                }))
            .value();
        srv.add_tool(mcp::make_tool(mcp::tool_info("needs_sampling", "Needs sampling.")
                                        .with_required_client_capabilities(object{{"sampling", object{}}})
                                        .with_action(mcp::action_class::read_only),
                                    [](const object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                        co_return ce::complete(true);
                                    }))
            .value();
    }

    boost::json::value stateless(std::string_view method, object params = {}, object capabilities = {}) {
        return client->request(method, with_meta(std::move(params), std::move(capabilities)));
    }

    boost::json::value stateless_call(std::string_view tool, object extra = {}, object capabilities = {}) {
        extra["name"] = tool;
        if (!extra.contains("arguments")) extra["arguments"] = object{};
        return stateless("tools/call", std::move(extra), std::move(capabilities));
    }
};

object elicitation_caps() { return object{{"elicitation", object{}}}; }
object accept(object content) { return object{{"action", "accept"}, {"content", std::move(content)}}; }

TEST_F(Stateless, DiscoverNamesBothErasIdentityAndCachingHints) {
    auto r = stateless("server/discover");
    auto result = at(r, "result");
    EXPECT_EQ(at(result, "resultType"), "complete");
    const auto versions = at(result, "supportedVersions");
    ASSERT_TRUE(versions.is_array());
    EXPECT_EQ(item(versions, 0), "2026-07-28");
    EXPECT_NE(std::find(versions.as_array().begin(), versions.as_array().end(), boost::json::value("2025-11-25")),
              versions.as_array().end());
    EXPECT_TRUE(at(result, "capabilities", "tools").is_object());
    EXPECT_EQ(at(at(result, "_meta"), mcp::meta_key::server_info),
              (object{{"name", "candor-test"}, {"version", "1.2.3"}, {"title", "Candor test server"}}));
    EXPECT_TRUE(at(result, "ttlMs").is_int64());
    EXPECT_EQ(at(result, "cacheScope"), "public");
}

TEST_F(Stateless, MissingMetaFieldsAreInvalidParams) {
    auto no_meta = client->request("server/discover", object{{"_meta", object{{"unrelated", 1}}}});
    // Without a protocolVersion claim the request is not stateless: the handshake path answers.
    EXPECT_EQ(at(no_meta, "error", "code"), -32600);
    object no_caps{{std::string(mcp::meta_key::protocol_version), "2026-07-28"}};
    auto r = client->request("tools/list", object{{"_meta", no_caps}});
    EXPECT_EQ(at(r, "error", "code"), -32602);
    object bad_level = meta();
    bad_level[std::string(mcp::meta_key::log_level)] = "loud";
    r = client->request("tools/list", object{{"_meta", bad_level}});
    EXPECT_EQ(at(r, "error", "code"), -32602);
    // clientInfo is a SHOULD: served without it.
    object no_info{{std::string(mcp::meta_key::protocol_version), "2026-07-28"},
                   {std::string(mcp::meta_key::client_capabilities), object{}}};
    r = client->request("tools/list", object{{"_meta", no_info}});
    EXPECT_TRUE(at(r, "result", "tools").is_array());
}

TEST_F(Stateless, UnsupportedVersionNamesWhatIsSupported) {
    object m = meta();
    m[std::string(mcp::meta_key::protocol_version)] = "v999.0.0";
    auto r = client->request("server/discover", object{{"_meta", m}});
    EXPECT_EQ(at(r, "error", "code"), -32022);
    EXPECT_EQ(at(r, "error", "data", "requested"), "v999.0.0");
    EXPECT_EQ(at(r, "error", "data", "supported"), (array{"2026-07-28"}));
    // A handshake version named in _meta is not served statelessly either.
    m[std::string(mcp::meta_key::protocol_version)] = "2025-11-25";
    r = client->request("tools/list", object{{"_meta", m}});
    EXPECT_EQ(at(r, "error", "code"), -32022);
}

TEST_F(Stateless, HandshakeOnlyMethodsAreNotFound) {
    for (const char* method :
         {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"}) {
        auto r = stateless(method);
        EXPECT_EQ(at(r, "error", "code"), -32601) << method;
    }
}

TEST_F(Stateless, ResultsCarryResultTypeIdentityAndListsCachingHints) {
    auto list = stateless("tools/list");
    EXPECT_EQ(at(list, "result", "resultType"), "complete");
    EXPECT_EQ(at(list, "result", "cacheScope"), "public");
    EXPECT_EQ(at(list, "result", "ttlMs"), 300000);
    EXPECT_EQ(at(at(list, "result", "_meta"), mcp::meta_key::server_info, "name"), "candor-test");
    auto call = stateless_call("echo", object{{"arguments", object{{"text", "hi"}}}});
    EXPECT_EQ(at(call, "result", "resultType"), "complete");
    EXPECT_EQ(at(call, "result", "isError"), false);
    EXPECT_EQ(at(call, "result", "structuredContent", "status"), "complete");
    EXPECT_EQ(at(at(call, "result", "_meta"), mcp::meta_key::server_info, "version"), "1.2.3");
    EXPECT_FALSE(at(call, "result").as_object().contains("ttlMs"));  // a call is not cacheable
}

TEST_F(Stateless, HandshakeResultsStayAsTheyWere) {
    client->initialize();
    auto list = client->request("tools/list");
    EXPECT_FALSE(at(list, "result").as_object().contains("resultType"));
    EXPECT_FALSE(at(list, "result").as_object().contains("_meta"));
    auto answered = call("echo");
    EXPECT_FALSE(at(answered, "result").as_object().contains("resultType"));
}

TEST_F(Stateless, BothErasShareOneConnection) {
    client->initialize("2025-06-18");
    auto legacy = call("whoami");
    EXPECT_EQ(at(envelope_of(legacy), "data", "version"), "2025-06-18");
    auto modern = stateless_call("whoami");
    EXPECT_EQ(at(envelope_of(modern), "data", "version"), "2026-07-28");
    EXPECT_EQ(at(envelope_of(modern), "data", "client"), "modern-client");
    EXPECT_EQ(at(envelope_of(modern), "data", "principal"), "alice");
    // and the session keeps its own revision afterwards
    legacy = call("whoami");
    EXPECT_EQ(at(envelope_of(legacy), "data", "version"), "2025-06-18");
}

TEST_F(Stateless, ToolThatNeedsACapabilityIsRefusedWithWhatItNeeds) {
    auto r = stateless_call("needs_sampling");
    EXPECT_EQ(at(r, "error", "code"), -32021);
    EXPECT_EQ(at(r, "error", "data", "requiredCapabilities"), (object{{"sampling", object{}}}));
    r = stateless_call("needs_sampling", {}, object{{"sampling", object{}}});
    EXPECT_EQ(at(r, "result", "isError"), false);
}

TEST_F(Stateless, LogMessagesOnlyWhenTheRequestAsksAndAtItsLevel) {
    stateless_call("progress");
    EXPECT_TRUE(client->notifications("notifications/message").empty());
    object params{{"name", "progress"}, {"arguments", object{}}};
    object m = meta();
    m[std::string(mcp::meta_key::log_level)] = "warning";
    params["_meta"] = m;
    client->request("tools/call", params);
    auto logs = client->notifications("notifications/message");
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_EQ(at(logs[0], "params", "level"), "warning");
}

TEST_F(Stateless, UnknownResourceIsInvalidParamsOnlyOnTheStatelessRevision) {
    srv.add_resource({"test://a", "a", "", "", "text/plain", {}},
                     [](const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                         co_return std::nullopt;
                     })
        .value();
    auto r = stateless("resources/read", object{{"uri", "test://missing"}});
    EXPECT_EQ(at(r, "error", "code"), -32602);
    EXPECT_EQ(at(r, "error", "data", "uri"), "test://missing");
    client->initialize();
    r = client->request("resources/read", object{{"uri", "test://missing"}});
    EXPECT_EQ(at(r, "error", "code"), -32002);
}

TEST_F(Stateless, RequestsToTheClientBecomeInputRequiredAndTheRetryCompletes) {
    auto r1 = stateless_call("two_rounds", {}, elicitation_caps());
    auto result = at(r1, "result");
    EXPECT_EQ(at(result, "resultType"), "input_required");
    EXPECT_EQ(at(result, "inputRequests", "step1", "method"), "elicitation/create");
    EXPECT_FALSE(result.as_object().contains("ttlMs"));
    const auto state1 = at(result, "requestState");
    ASSERT_TRUE(state1.is_string());
    EXPECT_TRUE(client->notifications().empty());  // nothing was sent as a request of its own

    auto r2 = stateless_call(
        "two_rounds",
        object{{"inputResponses", object{{"step1", accept(object{{"name", "Alice"}})}}}, {"requestState", state1}},
        elicitation_caps());
    EXPECT_EQ(at(r2, "result", "resultType"), "input_required");
    EXPECT_EQ(at(at(r2, "result", "inputRequests"), "step2", "method"), "elicitation/create");
    const auto state2 = at(r2, "result", "requestState");
    EXPECT_NE(state2, state1);

    auto r3 = stateless_call(
        "two_rounds",
        object{{"inputResponses", object{{"step2", accept(object{{"color", "blue"}})}}}, {"requestState", state2}},
        elicitation_caps());
    EXPECT_EQ(at(r3, "result", "resultType"), "complete");
    EXPECT_EQ(at(envelope_of(r3), "data"), (object{{"name", "Alice"}, {"color", "blue"}}));
    EXPECT_EQ(runs, 3);
}

TEST_F(Stateless, WithoutTheCapabilityNothingIsAskedAndTheToolHearsNotSupported) {
    auto r = stateless_call("two_rounds");
    EXPECT_EQ(at(r, "result", "resultType"), "complete");
    EXPECT_EQ(at(envelope_of(r), "data", "name"), "error:not_supported");
}

TEST_F(Stateless, TamperedForeignMismatchedAndExpiredStatesAreRefused) {
    auto r1 = stateless_call("two_rounds", {}, elicitation_caps());
    const std::string state(at(r1, "result", "requestState").as_string());
    const object answer{{"step1", accept(object{{"name", "Alice"}})}};
    auto retry = [&](std::string s, object arguments = {}) {
        return stateless_call(
            "two_rounds",
            object{{"inputResponses", answer}, {"requestState", std::move(s)}, {"arguments", std::move(arguments)}},
            elicitation_caps());
    };
    auto tampered = retry(state + "-TAMPERED");
    EXPECT_EQ(at(tampered, "error", "code"), -32602);
    EXPECT_EQ(at(tampered, "error", "data", "code"), "REQUEST_STATE_INVALID");
    std::string flipped = state;
    flipped[flipped.size() / 2] = flipped[flipped.size() / 2] == 'A' ? 'B' : 'A';
    EXPECT_EQ(at(retry(flipped), "error", "data", "code"), "REQUEST_STATE_INVALID");
    // Another request: other arguments.
    EXPECT_EQ(at(retry(state, object{{"n", 1}}), "error", "data", "code"), "REQUEST_STATE_MISMATCH");
    // Another caller, same keys.
    mcp::memory_client bob(srv, ioc, mcp::connection_options{{"bob"}, ""});
    auto foreign = bob.request("tools/call", with_meta(object{{"name", "two_rounds"},
                                                              {"arguments", object{}},
                                                              {"inputResponses", answer},
                                                              {"requestState", state}},
                                                       elicitation_caps()));
    EXPECT_EQ(at(foreign, "error", "data", "code"), "REQUEST_STATE_FOREIGN");
    EXPECT_EQ(runs, 1);  // none of them ran the tool
}

TEST_F(Stateless, ExpiredStateIsRefused) {
    mcp::server_options o = test_options(log);
    o.request_state_ttl = std::chrono::milliseconds(-1);
    mcp::server s(o);
    s.set_request_state_sealer(test_sealer());
    s.add_tool(mcp::make_tool(mcp::tool_info("ask", "Asks.").with_action(mcp::action_class::read_only),
                              [](const object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                                  co_await ctx.request_client_all(one(form("q", "x")));
                                  co_return ce::complete(true);
                              }))
        .value();
    mcp::memory_client c(s, ioc);
    auto r1 = c.request("tools/call", with_meta(object{{"name", "ask"}}, elicitation_caps()));
    auto r2 = c.request("tools/call", with_meta(object{{"name", "ask"},
                                                       {"inputResponses", object{{"q", accept(object{})}}},
                                                       {"requestState", at(r1, "result", "requestState")}},
                                                elicitation_caps()));
    EXPECT_EQ(at(r2, "error", "data", "code"), "REQUEST_STATE_EXPIRED");
}

TEST_F(Stateless, MalformedInputResponsesAreInvalidParams) {
    auto r1 = stateless_call("two_rounds", {}, elicitation_caps());
    auto wrong_shape = stateless_call("two_rounds",
                                      object{{"inputResponses", object{{"step1", object{{"action", "maybe"}}}}},
                                             {"requestState", at(r1, "result", "requestState")}},
                                      elicitation_caps());
    EXPECT_EQ(at(wrong_shape, "error", "data", "code"), "INPUT_RESPONSES_INVALID");
    auto null_responses = stateless_call("two_rounds", object{{"inputResponses", nullptr}}, elicitation_caps());
    EXPECT_EQ(at(null_responses, "error", "code"), -32602);
}

TEST_F(Stateless, ArgumentsMayComeBackReserialized) {
    auto r1 = stateless_call("two_rounds", object{{"arguments", object{{"n", object{{"a", 1}, {"b", 2.0}}}}}},
                             elicitation_caps());
    // The same arguments, keys in another order and 2.0 written as 2.
    auto r2 = stateless_call("two_rounds",
                             object{{"arguments", boost::json::parse(R"({"n":{"b":2,"a":1}})").as_object()},
                                    {"inputResponses", object{{"step1", accept(object{{"name", "Alice"}})}}},
                                    {"requestState", at(r1, "result", "requestState")}},
                             elicitation_caps());
    EXPECT_EQ(at(at(r2, "result", "inputRequests"), "step2", "method"), "elicitation/create");
}

TEST_F(Stateless, AnswersWithoutAStateAreTakenByKey) {
    // A client may answer before it is asked (or answer a result that carried no state).
    auto r = stateless_call("two_rounds",
                            object{{"inputResponses", object{{"step1", accept(object{{"name", "Alice"}})},
                                                             {"unknown_extra", object{{"x", 1}}}}}},
                            elicitation_caps());
    EXPECT_EQ(at(r, "result", "resultType"), "input_required");
    EXPECT_TRUE(at(r, "result", "inputRequests").as_object().contains("step2"));
    EXPECT_FALSE(at(r, "result", "inputRequests").as_object().contains("step1"));
}

TEST_F(Stateless, WithoutASealerRequestsToTheClientAreNotSupported) {
    mcp::server s(test_options(log));
    s.add_tool(mcp::make_tool(mcp::tool_info("ask", "Asks.").with_action(mcp::action_class::read_only),
                              [](const object&, mcp::call_context& ctx) -> awaitable<ce::envelope> {
                                  auto a = co_await ctx.request_client_all(one(form("q", "x")));
                                  co_return ce::complete(boost::json::value(answer_field(a[0], "x")));
                              }))
        .value();
    mcp::memory_client c(s, ioc);
    auto r = c.request("tools/call", with_meta(object{{"name", "ask"}}, elicitation_caps()));
    EXPECT_EQ(at(envelope_of(r), "data"), "error:not_supported");
    EXPECT_TRUE(log->contains("no request-state sealer"));
}

TEST_F(Stateless, HandshakeSessionsAskWithRequestsAsBefore) {
    client->initialize("2025-11-25", elicitation_caps());
    client->send(R"({"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"two_rounds","arguments":{}}})");
    auto asked = [&] {
        for (const auto& m : client->received())
            if (at(m, "method") == "elicitation/create") return true;
        return false;
    };
    EXPECT_TRUE(client->run_until(asked));
    EXPECT_TRUE(client->response_to(77).is_null());  // waiting for the answer, not input_required
}

TEST_F(Stateless, ListenAcknowledgesThenDeliversOnlyWhatWasAskedForTagged) {
    client->send(boost::json::serialize(
        object{{"jsonrpc", "2.0"},
               {"id", 900},
               {"method", "subscriptions/listen"},
               {"params", with_meta(object{{"notifications", object{{"toolsListChanged", true}, {"bogus", true}}}})}}));
    client->run_ready();
    ASSERT_FALSE(client->received().empty());
    const auto ack = client->received().front();
    EXPECT_EQ(at(ack, "method"), "notifications/subscriptions/acknowledged");
    EXPECT_EQ(at(ack, "params", "notifications"), (object{{"toolsListChanged", true}}));
    EXPECT_EQ(at(at(ack, "params", "_meta"), mcp::meta_key::subscription_id), 900);

    srv.add_prompt({"p", "", "A prompt.", {}},
                   [](const mcp::prompt_request&) -> awaitable<mcp::prompt_result> { co_return mcp::prompt_result{}; })
        .value();
    srv.remove_tool("boom");
    client->run_ready();
    auto changed = client->notifications("notifications/tools/list_changed");
    ASSERT_EQ(changed.size(), 1u);
    EXPECT_EQ(at(at(changed[0], "params", "_meta"), mcp::meta_key::subscription_id), 900);
    EXPECT_TRUE(client->notifications("notifications/prompts/list_changed").empty());

    // Cancelled by the client: no response, nothing more.
    client->notify("notifications/cancelled", object{{"requestId", 900}});
    srv.remove_tool("liar");
    client->run_ready();
    EXPECT_EQ(client->notifications("notifications/tools/list_changed").size(), 1u);
    EXPECT_TRUE(client->response_to(900).is_null());
}

TEST_F(Stateless, ListenEndsGracefullyWhenTheServerCloses) {
    client->send(boost::json::serialize(object{
        {"jsonrpc", "2.0"},
        {"id", "sub-1"},
        {"method", "subscriptions/listen"},
        {"params", with_meta(object{{"notifications", object{{"resourceSubscriptions", array{"test://x"}}}}})}}));
    client->run_ready();
    srv.notify_resource_updated("test://x");
    srv.notify_resource_updated("test://y");
    client->run_ready();
    auto updated = client->notifications("notifications/resources/updated");
    ASSERT_EQ(updated.size(), 1u);
    EXPECT_EQ(at(updated[0], "params", "uri"), "test://x");
    client->connection()->close();
    client->run_ready();
    auto end = client->response_to("sub-1");
    EXPECT_EQ(at(end, "result", "resultType"), "complete");
    EXPECT_EQ(at(at(end, "result", "_meta"), mcp::meta_key::subscription_id), "sub-1");
}

TEST(StatelessHeaders, AnnotationsNoClientCouldHonourRefuseTheTool) {
    mcp::server s;
    auto tool = [](const char* schema) {
        return mcp::make_tool(
            mcp::tool_info("t", "T.")
                .with_input_schema(boost::json::parse(schema).as_object())
                .with_action(mcp::action_class::read_only),
            [](const object&, mcp::call_context&) -> awaitable<ce::envelope> { co_return ce::complete(true); });
    };
    for (
        const char* bad : {
            R"({"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}})",
            R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}})",
            R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}})",
            R"({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}})",
            R"({"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]})",
        }) {
        EXPECT_EQ(s.add_tool(tool(bad)).error(), mcp::registration_error::invalid_header_annotation) << bad;
    }
    EXPECT_TRUE(s.add_tool(tool(
        R"({"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"integer","x-mcp-header":"Deep"}}}}})")));
}

class StatelessPreflight : public ::testing::Test {
protected:
    mcp::server srv;
    std::map<std::string, std::string> headers;
    mcp::header_lookup lookup = [this](std::string_view name) -> std::optional<std::string_view> {
        for (const auto& [k, v] : headers)
            if (boost::algorithm::iequals(k, name)) return std::string_view(v);
        return std::nullopt;
    };
    std::shared_ptr<json::document> doc;

    void SetUp() override {
        srv.add_tool(mcp::make_tool(mcp::tool_info("region_tool", "R.")
                                        .with_input_schema(boost::json::parse(R"({"type":"object","properties":{
                                            "region":{"type":"string","x-mcp-header":"Region"},
                                            "count":{"type":"integer","x-mcp-header":"Count"}}})")
                                                               .as_object())
                                        .with_action(mcp::action_class::read_only),
                                    [](const object&, mcp::call_context&) -> awaitable<ce::envelope> {
                                        co_return ce::complete(true);
                                    }))
            .value();
        headers = {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "region_tool"}};
    }

    std::optional<mcp::request_refusal> check(object params, std::string method = "tools/call") {
        params["_meta"] = meta();
        auto text = boost::json::serialize(
            object{{"jsonrpc", "2.0"}, {"id", 5}, {"method", method}, {"params", std::move(params)}});
        auto in = jsonrpc::read_message(text, {});
        EXPECT_TRUE(in.has_value());
        doc = std::const_pointer_cast<json::document>(in->doc);
        return srv.preflight(std::get<jsonrpc::request>(in->msg), &lookup);
    }
};

TEST_F(StatelessPreflight, MirroredParametersMustMatchTheBody) {
    object args{{"region", "eu-west"}, {"count", 42}};
    headers["Mcp-Param-Region"] = "eu-west";
    headers["mcp-param-count"] = "42.0";  // numerically equal
    EXPECT_FALSE(check(object{{"name", "region_tool"}, {"arguments", args}}));
    headers["Mcp-Param-Region"] = "=?base64?ZXUtd2VzdA==?=";  // "eu-west"
    EXPECT_FALSE(check(object{{"name", "region_tool"}, {"arguments", args}}));
    headers["Mcp-Param-Region"] = "=?base64?ZXUtd2VzdA?=";  // bad padding
    auto r = check(object{{"name", "region_tool"}, {"arguments", args}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->http_status, 400u);
    EXPECT_EQ(r->error.code, -32020);
    headers["Mcp-Param-Region"] = "us-east";
    EXPECT_EQ(check(object{{"name", "region_tool"}, {"arguments", args}})->error.code, -32020);
    headers.erase("Mcp-Param-Region");
    EXPECT_EQ(check(object{{"name", "region_tool"}, {"arguments", args}})->error.code, -32020);
    // No value in the body, no header expected.
    EXPECT_FALSE(check(object{{"name", "region_tool"}, {"arguments", object{{"count", 42}}}}));
}

TEST_F(StatelessPreflight, StandardHeadersAreCheckedInOrder) {
    headers["Mcp-Name"] = "  region_tool  ";  // optional whitespace is trimmed
    EXPECT_FALSE(check(object{{"name", "region_tool"}}));
    headers["Mcp-Name"] = "other";
    EXPECT_EQ(check(object{{"name", "region_tool"}})->error.code, -32020);
    headers["Mcp-Name"] = "region_tool";
    headers["Mcp-Method"] = "TOOLS/CALL";  // values are case-sensitive
    EXPECT_EQ(check(object{{"name", "region_tool"}})->error.code, -32020);
    headers["Mcp-Method"] = "tools/call";
    headers["MCP-Protocol-Version"] = "2025-11-25";
    EXPECT_EQ(check(object{{"name", "region_tool"}})->error.code, -32020);
    headers["MCP-Protocol-Version"] = "2026-07-28";
    headers["Mcp-Method"] = "ping";
    auto r = check(object{}, "ping");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->http_status, 404u);
    EXPECT_EQ(r->error.code, -32601);
}

TEST_F(Stateless, OversizedMetaFieldsAreRefusedWithTheirOwnCodes) {
    // Far below the message limit, far above anything the server issues or W3C allows.
    const std::string huge(1 << 20, 'a');
    auto state = stateless_call("two_rounds", object{{"requestState", huge}}, elicitation_caps());
    EXPECT_EQ(at(state, "error", "code"), -32602);
    EXPECT_EQ(at(state, "error", "data", "code"), "REQUEST_STATE_INVALID");
    for (const char* key : {"traceparent", "tracestate", "baggage"}) {
        SCOPED_TRACE(key);
        auto params = with_meta(object{{"name", "two_rounds"}, {"arguments", object{}}}, elicitation_caps());
        params["_meta"].as_object()[key] = huge;
        auto r = client->request("tools/call", std::move(params));
        EXPECT_EQ(at(r, "error", "code"), -32602);
        EXPECT_EQ(at(r, "error", "data", "code"), "TRACE_CONTEXT_TOO_LARGE");
        EXPECT_EQ(at(r, "error", "data", "limit"), 8192);
    }
    // A merely malformed trace context is ignored, as W3C asks: the call runs.
    auto params = with_meta(object{{"name", "two_rounds"}, {"arguments", object{}}}, elicitation_caps());
    params["_meta"].as_object()["traceparent"] = "not-a-traceparent";
    EXPECT_EQ(at(client->request("tools/call", std::move(params)), "result", "resultType"), "input_required");
    EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace candor::test
