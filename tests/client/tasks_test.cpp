// SPDX-License-Identifier: BSL-1.0
// The tasks extension on the client: a call the server answers with a task is followed to its
// result (tasks/get), the task's questions are answered by the host's handlers (tasks/update),
// and a call the host cancels cancels its task (tasks/cancel) — against Candor's own server.
#include "client/client_support.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <future>

namespace candor::test {
namespace {

using boost::json::object;

mcp::content_result text_result(std::string text) {
    mcp::content_result r;
    r.content.push_back(object{{"type", "text"}, {"text", std::move(text)}});
    return r;
}

object confirm_schema() {
    return object{{"type", "object"},
                  {"properties", object{{"confirmed", object{{"type", "boolean"}}}}},
                  {"required", boost::json::array{"confirmed"}}};
}

// Tools that become tasks at their first wait: one that works a moment, one that asks first,
// one that waits until it is cancelled (telling `entered` when it waits, `cancelled` after).
struct task_server {
    std::function<void()> entered;
    std::shared_ptr<std::promise<void>> cancelled = std::make_shared<std::promise<void>>();
    envelope_server server{[this](mcp::server& s) {
        const auto info = [](const char* name) {
            return mcp::tool_info(name, "Runs as a task.")
                .with_action(mcp::action_class::read_only)
                .with_task_support(mcp::task_support::optional);
        };
        s.add_tool(mcp::make_content_tool(info("work"),
                                          [](const object&, mcp::call_context&) -> net::awaitable<mcp::content_result> {
                                              net::steady_timer t(co_await net::this_coro::executor,
                                                                  std::chrono::milliseconds(20));
                                              co_await t.async_wait(net::as_tuple(net::use_awaitable));
                                              co_return text_result("done");
                                          }))
            .value();
        s.add_tool(mcp::make_content_tool(
                       info("ask"),
                       [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                           net::steady_timer t(co_await net::this_coro::executor, std::chrono::milliseconds(10));
                           co_await t.async_wait(net::as_tuple(net::use_awaitable));
                           auto answer = co_await ctx.elicit("Proceed?", confirm_schema());
                           std::string said = "no answer";
                           if (answer && answer->action == mcp::elicitation_action::accept)
                               said = boost::json::serialize(answer->content);
                           co_return text_result(said);
                       }))
            .value();
        s.add_tool(mcp::make_content_tool(
                       info("wait"),
                       [this](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                           net::steady_timer t(co_await net::this_coro::executor, std::chrono::milliseconds(10));
                           co_await t.async_wait(net::as_tuple(net::use_awaitable));
                           entered();
                           t.expires_after(std::chrono::hours(1));
                           co_await t.async_wait(net::as_tuple(net::use_awaitable));
                           if (ctx.cancelled()) cancelled->set_value();
                           co_return text_result("woke");
                       }))
            .value();
    }};
};

cc::session_options with_tasks(bool tasks) {
    cc::session_options o;
    o.protocol = cc::era::modern;
    o.tasks = tasks;
    o.min_poll = std::chrono::milliseconds(10);
    o.handlers.elicitation = [](const object&) -> net::awaitable<boost::system::result<object, cc::client_error>> {
        co_return object{{"action", "accept"}, {"content", object{{"confirmed", true}}}};
    };
    return o;
}

std::string text_of(const cc::tool_result& r) { return std::string(r.raw.at("content").at(0).at("text").as_string()); }

TEST(ClientTasks, ACallThatBecomesATaskIsFollowedToItsResult) {
    task_server t;
    std::string text, task, plain_task = "unset";
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(t.server.url()), with_tasks(true));
        EXPECT_TRUE(s);
        if (!s) co_return;
        const std::string tool = "work";
        auto r = co_await (*s)->call_tool(tool, object{});
        EXPECT_TRUE(r) << r.error().code << ": " << r.error().message;
        if (r) {
            text = text_of(*r);
            task = r->task_id;
        }
        co_await (*s)->close();
        // Without the extension declared the same call is answered in its request.
        auto plain = co_await cc::session::open(ex, cc::endpoint::of_url(t.server.url()), with_tasks(false));
        EXPECT_TRUE(plain);
        if (!plain) co_return;
        auto p = co_await (*plain)->call_tool(tool, object{});
        if (p) plain_task = p->task_id;
        co_await (*plain)->close();
    });
    EXPECT_EQ(text, "done");
    EXPECT_FALSE(task.empty());
    EXPECT_EQ(plain_task, "");
}

TEST(ClientTasks, ATasksQuestionIsAnsweredThroughTasksUpdate) {
    task_server t;
    std::string text;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(t.server.url()), with_tasks(true));
        EXPECT_TRUE(s);
        if (!s) co_return;
        const std::string tool = "ask";
        auto r = co_await (*s)->call_tool(tool, object{});
        EXPECT_TRUE(r) << r.error().code << ": " << r.error().message;
        if (r) {
            text = text_of(*r);
            EXPECT_FALSE(r->task_id.empty());
        }
        co_await (*s)->close();
    });
    EXPECT_EQ(text, R"({"confirmed":true})");
}

TEST(ClientTasks, ACallTheHostCancelsCancelsItsTask) {
    task_server t;
    std::optional<boost::system::result<cc::tool_result, cc::client_error>> outcome;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(t.server.url()), with_tasks(true));
        EXPECT_TRUE(s);
        if (!s) co_return;
        auto& session = **s;
        net::cancellation_signal stop;
        net::steady_timer done(ex, std::chrono::steady_clock::time_point::max());
        // The tool is in its long wait: the host cancels (from the server's thread, posted here).
        t.entered = [&stop, ex] { net::post(ex, [&stop] { stop.emit(net::cancellation_type::terminal); }); };
        net::co_spawn(
            ex,
            [&]() -> net::awaitable<void> {
                const std::string tool = "wait";
                outcome = co_await session.call_tool(tool, object{});
                done.cancel();
            },
            net::bind_cancellation_slot(stop.slot(), net::detached));
        while (!outcome) co_await done.async_wait(net::as_tuple(net::use_awaitable));
        co_await session.close();
    });
    ASSERT_TRUE(outcome);
    EXPECT_FALSE(*outcome);
    if (!*outcome) {
        EXPECT_EQ(outcome->error().code, "CANCELLED");
    }
    EXPECT_EQ(t.cancelled->get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);
}

TEST(ClientTasks, ATaskThatNeverEndsIsCancelledAtTheSessionsBound) {
    task_server t;
    t.entered = [] {};
    std::string code;
    auto o = with_tasks(true);
    o.max_task_wait = std::chrono::milliseconds(100);  // what this test is about: the bound
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(t.server.url()), o);
        EXPECT_TRUE(s);
        if (!s) co_return;
        const std::string tool = "wait";
        auto r = co_await (*s)->call_tool(tool, object{});
        if (r) code = "answered";
        else code = r.error().code;
        co_await (*s)->close();
    });
    EXPECT_EQ(code, "TIMEOUT");
    EXPECT_EQ(t.cancelled->get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);
}

}  // namespace
}  // namespace candor::test
