// SPDX-License-Identifier: BSL-1.0
// Requests from a tool to the client (elicitation, sampling) over the in-memory transport:
// capability checks, the reply routed back to the awaiting call, timeouts, cancellation,
// error and malformed replies.
#include <candor/mcp/call_context.hpp>

#include "fixture.hpp"

#include <boost/json/serialize.hpp>

using namespace candor::test;

namespace {

using boost::json::array;
using boost::json::object;

struct outcomes {
    std::vector<std::string> seen;  // what each finished wait produced, in order
};

// "accept {...}" / "decline" / an error name.
std::string describe(const boost::system::result<mcp::elicitation_result, mcp::client_request_error>& r) {
    if (!r) return std::string(mcp::to_string(r.error()));
    switch (r->action) {
        case mcp::elicitation_action::accept: return "accept " + boost::json::serialize(r->content);
        case mcp::elicitation_action::decline: return "decline";
        case mcp::elicitation_action::cancel: return "cancel";
    }
    return "?";
}

mcp::content_result text_result(std::string t) {
    return mcp::content_result{array{object{{"type", "text"}, {"text", std::move(t)}}}};
}

object ask_schema() { return {{"type", "object"}, {"properties", object{{"name", object{{"type", "string"}}}}}}; }

std::string describe_sample(const boost::system::result<mcp::sampling_result, mcp::client_request_error>& r) {
    if (!r) return std::string(mcp::to_string(r.error()));
    return r->role + " " + r->model + " " + r->stop_reason + " " + boost::json::serialize(r->content);
}

object sample_options() { return object{{"temperature", 0.5}}; }

array one_message() { return array{object{{"role", "user"}, {"content", object{{"type", "text"}, {"text", "hi"}}}}}; }

void add_asking_tools(mcp::server& srv, std::shared_ptr<outcomes> out) {
    // ask: elicits with a 5 s timeout (ask_quick: 30 ms) and answers with what came back.
    for (const auto& entry :
         {std::pair{"ask", std::chrono::milliseconds(5000)}, std::pair{"ask_quick", std::chrono::milliseconds(30)}}) {
        const auto name = entry.first;
        const auto timeout = entry.second;
        srv.add_tool(mcp::make_content_tool(
                         mcp::tool_info(name, "Asks the user.").with_action(mcp::action_class::read_only),
                         [out, timeout](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                             auto r = co_await ctx.elicit(std::string("Your name?"), ask_schema(), timeout);
                             out->seen.push_back(describe(r));
                             co_return text_result(out->seen.back());
                         }))
            .value();
    }
    srv.add_tool(mcp::make_content_tool(
                     mcp::tool_info("think", "Asks the client's model.").with_action(mcp::action_class::read_only),
                     [out](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                         auto r = co_await ctx.sample(one_message(), 50, sample_options());
                         out->seen.push_back(describe_sample(r));
                         co_return text_result(out->seen.back());
                     }))
        .value();
}

class ClientRequests : public server_fixture {
protected:
    std::shared_ptr<outcomes> out = std::make_shared<outcomes>();

    void SetUp() override {
        server_fixture::SetUp();
        add_asking_tools(srv, out);
    }

    // Send tools/call `tool` with `id` and run until the server sends a request to the client.
    boost::json::value call_until_request(std::string_view tool, std::int64_t id) {
        const auto before = client->received().size();
        object msg{{"jsonrpc", "2.0"},
                   {"id", id},
                   {"method", "tools/call"},
                   {"params", object{{"name", tool}, {"arguments", object{}}}}};
        client->send(boost::json::serialize(msg));
        boost::json::value found = nullptr;
        client->run_until([&] {
            for (std::size_t i = before; i < client->received().size(); ++i) {
                const auto& m = client->received()[i];
                if (m.as_object().contains("method") && m.as_object().contains("id")) {
                    found = m;
                    return true;
                }
            }
            return false;
        });
        return found;
    }

    void reply(const boost::json::value& request, boost::json::object result) {
        object msg{{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"result", std::move(result)}};
        client->send(boost::json::serialize(msg));
    }

    boost::json::value answer_to(std::int64_t id) {
        client->run_until([&] { return !client->response_to(id).is_null(); });
        return client->response_to(id);
    }

    static std::string text_of(const boost::json::value& response) {
        return std::string(at(item(at(at(response, "result"), "content"), 0), "text").as_string());
    }
};

}  // namespace

TEST_F(ClientRequests, ElicitationReplyReachesTheAwaitingTool) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}});
    auto req = call_until_request("ask", 10);
    ASSERT_FALSE(req.is_null());
    EXPECT_EQ(at(req, "method"), "elicitation/create");
    EXPECT_EQ(at(req, "params", "message"), "Your name?");
    EXPECT_EQ(at(req, "params", "requestedSchema"), ask_schema());
    reply(req, object{{"action", "accept"}, {"content", object{{"name", "Ada"}}}});
    EXPECT_EQ(text_of(answer_to(10)), R"(accept {"name":"Ada"})");
}

TEST_F(ClientRequests, WithoutTheCapabilityNothingIsSentAndTheToolGetsNotSupported) {
    client->initialize();  // declares no capabilities
    auto r = call("ask");
    EXPECT_EQ(text_of(r), "not_supported");
    for (const auto& m : client->received()) EXPECT_NE(at(m, "method"), "elicitation/create");
    auto s = call("think");
    EXPECT_EQ(text_of(s), "not_supported");
}

TEST_F(ClientRequests, NoReplyWithinTheTimeoutIsTimeoutAndTheClientIsToldToCancel) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}});
    auto req = call_until_request("ask_quick", 11);
    ASSERT_FALSE(req.is_null());
    EXPECT_EQ(text_of(answer_to(11)), "timeout");
    auto cancels = client->notifications("notifications/cancelled");
    ASSERT_EQ(cancels.size(), 1u);
    EXPECT_EQ(at(cancels[0], "params", "requestId"), at(req, "id"));
    // The late reply is dropped: nothing answers it.
    const auto before = client->received().size();
    reply(req, object{{"action", "decline"}});
    client->run_ready();
    EXPECT_EQ(client->received().size(), before);
}

TEST_F(ClientRequests, ErrorReplyIsRejected) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}});
    auto req = call_until_request("ask", 12);
    ASSERT_FALSE(req.is_null());
    object msg{{"jsonrpc", "2.0"},
               {"id", at(req, "id")},
               {"error", object{{"code", -1}, {"message", "user closed the dialog"}}}};
    client->send(boost::json::serialize(msg));
    EXPECT_EQ(text_of(answer_to(12)), "rejected");
}

TEST_F(ClientRequests, ReplyOfTheWrongShapeIsMalformed) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}, {"sampling", object{}}});
    auto req = call_until_request("ask", 13);
    ASSERT_FALSE(req.is_null());
    reply(req, object{{"action", "maybe"}});
    EXPECT_EQ(text_of(answer_to(13)), "malformed_reply");
    auto req2 = call_until_request("think", 14);
    ASSERT_FALSE(req2.is_null());
    reply(req2, object{{"role", "assistant"}, {"model", "m"}});  // no content
    EXPECT_EQ(text_of(answer_to(14)), "malformed_reply");
}

TEST_F(ClientRequests, SamplingSendsTheMessagesAndReturnsTheModelsAnswer) {
    client->initialize("2025-11-25", object{{"sampling", object{}}});
    auto req = call_until_request("think", 15);
    ASSERT_FALSE(req.is_null());
    EXPECT_EQ(at(req, "method"), "sampling/createMessage");
    EXPECT_EQ(at(req, "params", "maxTokens"), 50);
    EXPECT_EQ(at(req, "params", "temperature"), 0.5);
    EXPECT_EQ(at(req, "params", "messages"), one_message());
    reply(req, object{{"role", "assistant"},
                      {"content", object{{"type", "text"}, {"text", "hello"}}},
                      {"model", "test-model"},
                      {"stopReason", "endTurn"}});
    EXPECT_EQ(text_of(answer_to(15)), R"(assistant test-model endTurn {"type":"text","text":"hello"})");
}

TEST_F(ClientRequests, CancellingTheCallEndsTheWaitWithCancelled) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}});
    auto req = call_until_request("ask", 16);
    ASSERT_FALSE(req.is_null());
    client->notify("notifications/cancelled", object{{"requestId", 16}});
    client->run_until([&] { return !out->seen.empty(); });
    ASSERT_EQ(out->seen.size(), 1u);
    EXPECT_EQ(out->seen[0], "cancelled");
    EXPECT_TRUE(client->response_to(16).is_null());  // a cancelled call is never answered
}

TEST_F(ClientRequests, ClosingTheConnectionEndsTheWaitWithCancelled) {
    client->initialize("2025-11-25", object{{"elicitation", object{}}});
    auto req = call_until_request("ask", 17);
    ASSERT_FALSE(req.is_null());
    client->connection()->close();
    client->run_until([&] { return !out->seen.empty(); });
    ASSERT_EQ(out->seen.size(), 1u);
    EXPECT_EQ(out->seen[0], "cancelled");
}

TEST_F(ClientRequests, TwoWaitingCallsEachGetTheirOwnReplyOnTheirOwnRoute) {
    // A routed connection shows which request each outbound message belongs to.
    std::vector<std::pair<boost::json::value, mcp::message_route>> sent;
    auto conn = srv.connect_routed(ioc.get_executor(), [&](std::string text, const mcp::message_route& r) {
        sent.emplace_back(boost::json::parse(text), r);
    });
    auto run_until = [&](const std::function<bool()>& done) {
        ioc.restart();
        while (!done())
            if (ioc.run_one() == 0) break;
        return done();
    };
    auto send = [&](const object& msg) { conn->receive(boost::json::serialize(msg)); };
    auto count_requests = [&] {
        std::vector<std::pair<boost::json::value, mcp::message_route>> out_;
        for (const auto& s : sent)
            if (s.first.as_object().contains("method") && s.first.as_object().contains("id")) out_.push_back(s);
        return out_;
    };
    send(object{{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "initialize"},
                {"params", object{{"protocolVersion", "2025-11-25"},
                                  {"capabilities", object{{"elicitation", object{}}}},
                                  {"clientInfo", object{{"name", "t"}, {"version", "1"}}}}}});
    send(object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    send(object{{"jsonrpc", "2.0"}, {"id", "A"}, {"method", "tools/call"}, {"params", object{{"name", "ask"}}}});
    send(object{{"jsonrpc", "2.0"}, {"id", "B"}, {"method", "tools/call"}, {"params", object{{"name", "ask"}}}});
    ASSERT_TRUE(run_until([&] { return count_requests().size() == 2; }));
    auto requests = count_requests();
    // Each request travels on its call's route, not as that call's response.
    ASSERT_TRUE(requests[0].second.request.has_value());
    ASSERT_TRUE(requests[1].second.request.has_value());
    EXPECT_FALSE(requests[0].second.is_response);
    EXPECT_NE(*requests[0].second.request, *requests[1].second.request);
    EXPECT_NE(requests[0].first.at("id"), requests[1].first.at("id"));
    // Answer the second call's request first; each call gets its own answer.
    auto request_of = [&](const candor::jsonrpc::request_id& call) {
        for (const auto& [msg, route] : requests)
            if (*route.request == call) return msg.at("id");
        return boost::json::value();
    };
    auto accept = [&](const boost::json::value& id, std::string_view name) {
        send(object{{"jsonrpc", "2.0"},
                    {"id", id},
                    {"result", object{{"action", "accept"}, {"content", object{{"name", name}}}}}});
    };
    auto answer_of = [&](std::string_view id) -> std::string {
        for (const auto& [msg, route] : sent)
            if (route.is_response && msg.at("id") == boost::json::value(id))
                return std::string(msg.at("result").at("content").at(0).at("text").as_string());
        return {};
    };
    auto dump = [&] {
        std::string all;
        for (const auto& m : sent) all += boost::json::serialize(m.first) + "\n";
        return all;
    };
    accept(request_of("B"), "Bea");
    ASSERT_TRUE(run_until([&] { return !answer_of("B").empty(); })) << dump();
    EXPECT_EQ(answer_of("B"), R"(accept {"name":"Bea"})");
    EXPECT_TRUE(answer_of("A").empty());
    accept(request_of("A"), "Al");
    ASSERT_TRUE(run_until([&] { return !answer_of("A").empty(); })) << dump();
    EXPECT_EQ(answer_of("A"), R"(accept {"name":"Al"})");
    conn->close();
    ioc.restart();
    ioc.poll();
}
