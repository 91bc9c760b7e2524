// SPDX-License-Identifier: BSL-1.0
// The tasks extension (io.modelcontextprotocol/tasks) on the stateless revision: a call that
// becomes a task, tasks/get|update|cancel, the gate, requests to the client inside a task,
// owner isolation, the limits, expiry, and the records observers get.
#include <candor/mcp/task_store.hpp>

#include "fixture.hpp"
#include "stateless_support.hpp"

#include <candor/evidence/request_state.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/json/value_to.hpp>

#include <thread>

namespace candor::test {
namespace {

using boost::json::array;
using boost::json::object;

object task_meta(object capabilities) { return modern_meta(std::move(capabilities), "task-client"); }

object with_tasks(object caps = {}) {
    caps["extensions"] = object{{"io.modelcontextprotocol/tasks", object{}}};
    return caps;
}

object accept(const char* name, const char* value) {
    return object{{"action", "accept"}, {"content", object{{name, value}}}};
}

struct recorder : mcp::call_observer {
    std::vector<mcp::call_record> records;
    void on_record(const mcp::call_record& r) override { records.push_back(r); }
};

class Tasks : public ::testing::Test {
protected:
    std::shared_ptr<server_log> log = std::make_shared<server_log>();
    std::shared_ptr<recorder> observer = std::make_shared<recorder>();
    boost::asio::io_context ioc;
    std::unique_ptr<mcp::server> srv;
    std::unique_ptr<mcp::memory_client> client;
    std::shared_ptr<boost::asio::steady_timer> gate;
    bool saw_cancellation = false;

    void SetUp() override { start(); }
    void TearDown() override {
        client.reset();
        gate->cancel();
        ioc.run_for(std::chrono::milliseconds(50));
    }

    void start(mcp::task_options o = {}) {
        auto opts = test_options(log);
        opts.tasks = o;
        opts.observers.push_back(observer);
        srv = std::make_unique<mcp::server>(opts);
        srv->set_request_state_sealer(test_sealer());
        gate = std::make_shared<boost::asio::steady_timer>(ioc, std::chrono::hours(1));
        auto g = gate;
        // gated: waits until the test opens the gate (or the call is cancelled).
        add("gated", mcp::task_support::optional,
            [this, g](const object& args, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                co_await g->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                saw_cancellation = ctx.cancelled();
                const auto* size = args.if_contains("size");
                std::string text = size ? std::string(static_cast<std::size_t>(size->as_int64()), 'x') : "opened";
                co_return mcp::content_result{array{object{{"type", "text"}, {"text", text}}}};
            });
        add("required_job", mcp::task_support::required,
            [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                co_await pause(ctx);
                co_return mcp::content_result{array{object{{"type", "text"}, {"text", "failed"}}}, std::nullopt, true};
            });
        // says, at its start and at its end, under which task id it runs.
        add("named", mcp::task_support::optional,
            [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                const std::string at_start = ctx.task_id();
                co_await pause(ctx);
                co_return mcp::content_result{
                    array{object{{"type", "text"}, {"text", at_start + "|" + ctx.task_id()}}}};
            });
        add("instant", mcp::task_support::optional,
            [](const object&, mcp::call_context&) -> awaitable<mcp::content_result> {
                co_return mcp::content_result{array{object{{"type", "text"}, {"text", "at once"}}}};
            });
        add("faulty", mcp::task_support::optional,
            [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                co_await pause(ctx);
                throw std::runtime_error("secret internals");
            });
        // asks two questions at once, then one more under a key it used before.
        add("asking", mcp::task_support::optional,
            [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                co_await pause(ctx);
                std::vector<mcp::client_request> two;
                two.push_back(form("name", "name"));
                two.push_back(form("color", "color"));
                auto a = co_await ctx.request_client_all(std::move(two));
                std::vector<mcp::client_request> again;
                again.push_back(form("name", "city"));
                auto b = co_await ctx.request_client_all(std::move(again));
                co_return mcp::content_result{
                    array{object{{"type", "text"},
                                 {"text", answer_field(a[0], "name") + "/" + answer_field(a[1], "color") + "/" +
                                              answer_field(b[0], "city")}}}};
            });
        // asks before it first waits: answered input_required in the request, a task on the retry.
        add("ask_first", mcp::task_support::required,
            [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                std::vector<mcp::client_request> one;
                one.push_back(form("user_name", "name"));
                auto a = co_await ctx.request_client_all(std::move(one));
                co_await pause(ctx);
                co_return mcp::content_result{
                    array{object{{"type", "text"}, {"text", "Hello, " + answer_field(a[0], "name")}}}};
            });
        // waits for work on another thread that is back before the tool's first slice ends: it
        // waited, so it is a task, however soon the wait came back.
        add("quick_wait", mcp::task_support::required,
            [](const object&, mcp::call_context&) -> awaitable<mcp::content_result> {
                co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
                    [](auto handler) { std::thread([&handler] { boost::asio::post(std::move(handler)); }).join(); },
                    boost::asio::use_awaitable);
                co_return mcp::content_result{array{object{{"type", "text"}, {"text", "waited"}}}};
            });
        srv->add_tool(
               mcp::make_content_tool(mcp::tool_info("too_slow", "Runs out of time.")
                                          .with_task_support(mcp::task_support::optional)
                                          .with_deadline(std::chrono::milliseconds(20)),
                                      [](const object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                                          boost::asio::steady_timer t(ctx.executor(), std::chrono::hours(1));
                                          co_await t.async_wait(boost::asio::use_awaitable);
                                          co_return mcp::content_result{};
                                      }))
            .value();
        client = connect("alice");
    }

    static awaitable<void> pause(mcp::call_context& ctx) {
        boost::asio::steady_timer t(ctx.executor(), std::chrono::milliseconds(1));
        co_await t.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    }

    void add(const char* name, mcp::task_support support, mcp::content_tool_function fn) {
        srv->add_tool(mcp::make_content_tool(mcp::tool_info(name, "A task fixture.").with_task_support(support),
                                             std::move(fn)))
            .value();
    }

    std::unique_ptr<mcp::memory_client> connect(const char* who) {
        return std::make_unique<mcp::memory_client>(*srv, ioc, mcp::connection_options{{who}, ""});
    }

    static boost::json::value call(mcp::memory_client& c, std::string_view tool, object args = {},
                                   object caps = with_tasks(), object extra = {}) {
        extra["name"] = tool;
        extra["arguments"] = std::move(args);
        extra["_meta"] = task_meta(std::move(caps));
        return c.request("tools/call", std::move(extra));
    }
    boost::json::value call(std::string_view tool, object args = {}, object caps = with_tasks()) {
        return call(*client, tool, std::move(args), std::move(caps));
    }
    static boost::json::value task_request(mcp::memory_client& c, std::string_view method, const boost::json::value& id,
                                           object extra = {}, object caps = with_tasks()) {
        extra["taskId"] = id;
        extra["_meta"] = task_meta(std::move(caps));
        return c.request(method, std::move(extra));
    }
    boost::json::value get(const boost::json::value& id) { return task_request(*client, "tasks/get", id); }

    std::string new_task(std::string_view tool, object args = {}, object caps = with_tasks()) {
        auto r = call(tool, std::move(args), std::move(caps));
        EXPECT_EQ(at(r, "result", "resultType"), "task") << r;
        const auto id = at(r, "result", "taskId");
        return id.is_string() ? std::string(id.as_string()) : std::string();
    }

    // Poll tasks/get (as a client would) until the task has `status`; between polls the
    // io_context runs for a millisecond. Bounded: gives up after 5000 polls.
    boost::json::value wait_for(const std::string& id, std::string_view status) {
        boost::json::value r;
        for (int i = 0; i < 5000; ++i) {
            r = get(boost::json::value(id));
            if (at(r, "result", "status") == boost::json::value(boost::json::string_view(status.data(), status.size())))
                return r;
            ioc.run_for(std::chrono::milliseconds(1));
        }
        ADD_FAILURE() << "task " << id << " never reached " << status << "; last: " << r;
        return r;
    }
};

TEST_F(Tasks, AToolKnowsItsTaskIdFromItsStartAndACallInTheRequestHasNone) {
    const auto id = new_task("named");
    auto done = wait_for(id, "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), boost::json::value(id + "|" + id));
    // Without the extension the call is answered in its request: no task, no id.
    auto r = call("named", {}, object{});
    EXPECT_EQ(at(item(at(r, "result", "content"), 0), "text"), "|");
}

TEST_F(Tasks, CallDeclaringTheExtensionAnswersWithATaskThatCompletes) {
    auto r = call("gated");
    const auto result = at(r, "result");
    EXPECT_EQ(at(result, "resultType"), "task");
    EXPECT_EQ(at(result, "status"), "working");
    EXPECT_TRUE(at(result, "ttlMs").is_int64() && at(result, "ttlMs").as_int64() > 0);
    EXPECT_TRUE(at(result, "pollIntervalMs").is_int64() && at(result, "pollIntervalMs").as_int64() > 0);
    EXPECT_EQ(at(result, "createdAt").as_string().size(), 24u);
    for (const char* forbidden : {"task", "result", "content", "requestState", "inputRequests"})
        EXPECT_FALSE(result.as_object().contains(forbidden)) << forbidden;
    const auto id = at(result, "taskId");
    auto working = get(id);
    EXPECT_EQ(at(working, "result", "status"), "working");
    EXPECT_EQ(at(working, "result", "resultType"), "complete");
    EXPECT_EQ(at(working, "result", "taskId"), id);

    gate->cancel();
    client->run_ready();
    auto done = get(id);
    EXPECT_EQ(at(done, "result", "status"), "completed");
    EXPECT_EQ(at(done, "result", "result", "isError"), false);
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "opened");
    EXPECT_FALSE(saw_cancellation);
}

TEST_F(Tasks, WithoutTheExtensionAnOptionalToolAnswersInTheRequest) {
    auto r = call("faulty", {}, object{});
    EXPECT_EQ(at(r, "result", "resultType"), "complete");
    EXPECT_FALSE(at(r, "result").as_object().contains("taskId"));
    EXPECT_EQ(at(r, "result", "isError"), true);
}

TEST_F(Tasks, ARequiredToolWithoutTheExtensionIsRefused) {
    auto r = call("required_job", {}, object{});
    EXPECT_EQ(at(r, "error", "code"), -32021);
    EXPECT_TRUE(at(r, "error", "data", "requiredCapabilities")
                    .at("extensions")
                    .as_object()
                    .contains("io.modelcontextprotocol/tasks"));
    // A legacy `task` hint does not make a task either.
    r = call(*client, "instant", {}, object{}, object{{"task", object{{"ttl", 60000}}}});
    EXPECT_EQ(at(r, "result", "resultType"), "complete");
}

TEST_F(Tasks, TaskMethodsAreGatedBeforeTheTaskIsLookedUp) {
    for (const char* m : {"tasks/get", "tasks/update", "tasks/cancel"}) {
        auto r = task_request(*client, m, "gate-test", object{{"inputResponses", object{}}}, object{});
        EXPECT_EQ(at(r, "error", "code"), -32021) << m;
        r = task_request(*client, m, "gate-test", object{{"inputResponses", object{}}});
        EXPECT_EQ(at(r, "error", "code"), -32602) << m;
    }
    for (const char* removed : {"tasks/result", "tasks/list"}) {
        auto r = client->request(removed, object{{"taskId", "x"}, {"_meta", task_meta(with_tasks())}});
        EXPECT_EQ(at(r, "error", "code"), -32601) << removed;
    }
}

TEST_F(Tasks, DiscoveryAdvertisesTheExtension) {
    auto r = client->request("server/discover", object{{"_meta", task_meta(object{})}});
    EXPECT_TRUE(at(r, "result", "capabilities", "extensions").as_object().contains("io.modelcontextprotocol/tasks"));
    EXPECT_FALSE(at(r, "result", "capabilities").as_object().contains("tasks"));
}

TEST_F(Tasks, AToolThatFinishesWithoutWaitingIsAnsweredInTheRequestAndHoldsNoTask) {
    start(mcp::task_options{.max_tasks = 1});
    for (int i = 0; i < 3; ++i) EXPECT_EQ(at(call("instant"), "result", "resultType"), "complete");
    // The reservations were given back: the one task allowed can still be made.
    EXPECT_FALSE(new_task("gated").empty());
}

TEST_F(Tasks, CancelEndsTheToolAtOnceAndIsIdempotent) {
    const auto id = new_task("gated");
    auto ack = task_request(*client, "tasks/cancel", boost::json::value(id));
    EXPECT_EQ(at(ack, "result", "resultType"), "complete");
    for (const char* none : {"taskId", "status", "result", "error"})
        EXPECT_FALSE(at(ack, "result").as_object().contains(none)) << none;
    EXPECT_EQ(at(get(boost::json::value(id)), "result", "status"), "cancelled");
    client->run_ready();
    EXPECT_TRUE(saw_cancellation);
    ack = task_request(*client, "tasks/cancel", boost::json::value(id));
    EXPECT_EQ(at(ack, "result", "resultType"), "complete");
    EXPECT_EQ(at(get(boost::json::value(id)), "result", "status"), "cancelled");
}

TEST_F(Tasks, AToolErrorCompletesAndAnExceptionFails) {
    auto completed = wait_for(new_task("required_job"), "completed");
    EXPECT_EQ(at(completed, "result", "result", "isError"), true);
    auto failed = wait_for(new_task("faulty"), "failed");
    EXPECT_EQ(at(failed, "result", "error", "code"), -32603);
    EXPECT_TRUE(at(failed, "result", "error", "message").is_string());
    EXPECT_FALSE(at(failed, "result").as_object().contains("result"));
    EXPECT_EQ(boost::json::serialize(failed).find("secret"), std::string::npos);
    EXPECT_TRUE(log->contains("secret internals"));
}

TEST_F(Tasks, RequestsToTheClientBecomeInputRequiredAndResumeOnPartialUpdates) {
    const auto id = new_task("asking", {}, with_tasks(object{{"elicitation", object{}}}));
    auto asked = wait_for(id, "input_required");
    const auto requests = at(asked, "result", "inputRequests");
    ASSERT_TRUE(requests.is_object());
    EXPECT_EQ(requests.as_object().size(), 2u);
    EXPECT_EQ(at(requests, "name", "method"), "elicitation/create");

    auto ack = task_request(*client, "tasks/update", boost::json::value(id),
                            object{{"inputResponses", object{{"name", accept("name", "Ada")}, {"unknown", 1}}}});
    EXPECT_EQ(at(ack, "result", "resultType"), "complete");
    auto partial = get(boost::json::value(id));
    EXPECT_EQ(at(partial, "result", "status"), "input_required");
    EXPECT_FALSE(at(partial, "result", "inputRequests").as_object().contains("name"));
    EXPECT_TRUE(at(partial, "result", "inputRequests").as_object().contains("color"));

    // A malformed answer to an outstanding request is refused; nothing changes.
    auto bad = task_request(*client, "tasks/update", boost::json::value(id),
                            object{{"inputResponses", object{{"color", object{{"action", "maybe"}}}}}});
    EXPECT_EQ(at(bad, "error", "code"), -32602);

    task_request(*client, "tasks/update", boost::json::value(id),
                 object{{"inputResponses", object{{"color", accept("color", "red")}}}});
    // The third question reuses the tool's key "name": keys are unique over the task's life.
    auto again = wait_for(id, "input_required");
    EXPECT_TRUE(at(again, "result", "inputRequests").as_object().contains("name_2")) << again;
    task_request(*client, "tasks/update", boost::json::value(id),
                 object{{"inputResponses", object{{"name_2", accept("city", "Oslo")}}}});
    auto done = wait_for(id, "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "Ada/red/Oslo");
}

TEST_F(Tasks, AToolThatWaitedIsATaskHoweverSoonItsWaitCameBack) {
    auto r = call("quick_wait");
    EXPECT_EQ(at(r, "result", "resultType"), "task") << r;
    const auto id = at(r, "result", "taskId");
    ASSERT_TRUE(id.is_string());
    auto done = wait_for(std::string(id.as_string()), "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "waited");
}

TEST_F(Tasks, QuestionsBeforeTheFirstWaitAreAnsweredInTheRequest) {
    auto first = call("ask_first", {}, with_tasks(object{{"elicitation", object{}}}));
    EXPECT_EQ(at(first, "result", "resultType"), "input_required");
    EXPECT_FALSE(at(first, "result").as_object().contains("taskId"));
    auto retry = call(*client, "ask_first", {}, with_tasks(object{{"elicitation", object{}}}),
                      object{{"inputResponses", object{{"user_name", accept("name", "Alice")}}},
                             {"requestState", at(first, "result", "requestState")}});
    EXPECT_EQ(at(retry, "result", "resultType"), "task") << retry;
    auto done = wait_for(std::string(at(retry, "result", "taskId").as_string()), "completed");
    EXPECT_EQ(at(item(at(done, "result", "result", "content"), 0), "text"), "Hello, Alice");
}

TEST_F(Tasks, AnotherPrincipalSeesAnotherPrincipalsTaskAsUnknown) {
    const auto id = new_task("gated");
    auto bob = connect("bob");
    auto unknown = task_request(*bob, "tasks/get", "no-such-task");
    for (const char* m : {"tasks/get", "tasks/update", "tasks/cancel"}) {
        auto r = task_request(*bob, m, boost::json::value(id), object{{"inputResponses", object{}}});
        EXPECT_EQ(at(r, "error"), at(unknown, "error")) << m;
    }
    EXPECT_EQ(at(get(boost::json::value(id)), "result", "status"), "working");
}

TEST_F(Tasks, TasksHeldAreLimitedPerPrincipalAndServerWide) {
    start(mcp::task_options{.max_tasks = 2, .max_tasks_per_principal = 1});
    EXPECT_FALSE(new_task("gated").empty());
    auto refused = call("gated");
    EXPECT_EQ(at(refused, "result", "isError"), true);
    EXPECT_EQ(at(first_error(refused), "code"), "TOO_MANY_TASKS");
    EXPECT_EQ(at(first_error(refused), "scope"), "principal");
    EXPECT_EQ(at(first_error(refused), "limit"), 1);
    auto bob = connect("bob");
    EXPECT_EQ(at(call(*bob, "gated"), "result", "resultType"), "task");
    auto carol = connect("carol");
    auto full = call(*carol, "gated");
    EXPECT_EQ(at(first_error(full), "scope"), "server");
    EXPECT_EQ(at(first_error(full), "limit"), 2);
}

TEST_F(Tasks, ATerminalTaskExpiresAfterItsTtl) {
    start(mcp::task_options{.ttl = std::chrono::milliseconds(20)});
    auto r = call("gated");
    EXPECT_EQ(at(r, "result", "ttlMs"), 20);
    const auto id = at(r, "result", "taskId");
    gate->cancel();
    client->run_ready();
    EXPECT_EQ(at(get(id), "result", "status"), "completed");
    bool gone = false;
    for (int i = 0; i < 5000 && !gone; ++i) {
        gone = at(get(id), "error", "code") == -32602;
        if (!gone) ioc.run_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(gone);
}

TEST_F(Tasks, AResultLargerThanTheLimitIsAToolError) {
    start(mcp::task_options{.max_result_bytes = 256});
    const auto id = new_task("gated", object{{"size", 1000}});
    gate->cancel();
    client->run_ready();
    auto done = get(boost::json::value(id));
    EXPECT_EQ(at(done, "result", "status"), "completed");
    EXPECT_EQ(at(done, "result", "result", "isError"), true);
    EXPECT_EQ(at(item(at(at(done, "result", "result"), "structuredContent", "errors"), 0), "code"),
              "TASK_RESULT_TOO_LARGE");
}

TEST_F(Tasks, ATaskPastItsDeadlineCompletesWithDeadlineExceeded) {
    auto done = wait_for(new_task("too_slow"), "completed");
    EXPECT_EQ(at(item(at(at(done, "result", "result"), "structuredContent", "errors"), 0), "code"),
              "DEADLINE_EXCEEDED");
}

TEST_F(Tasks, ObserversRecordTheCreationAndTheEndWithTheTaskId) {
    const auto id = new_task("gated", object{{"size", 3}});
    gate->cancel();
    client->run_ready();
    ASSERT_EQ(observer->records.size(), 2u);
    EXPECT_EQ(observer->records[0].status, "task");
    EXPECT_EQ(observer->records[0].task_id, id);
    EXPECT_EQ(observer->records[0].tool, "gated");
    EXPECT_EQ(observer->records[1].status, "content");
    EXPECT_EQ(observer->records[1].task_id, id);
    EXPECT_EQ(observer->records[1].request_id, observer->records[0].request_id);
    const auto cancelled = new_task("gated");
    task_request(*client, "tasks/cancel", boost::json::value(cancelled));
    client->run_ready();
    EXPECT_EQ(observer->records.back().status, "cancelled");
    EXPECT_EQ(observer->records.back().task_id, cancelled);
}

}  // namespace
}  // namespace candor::test
