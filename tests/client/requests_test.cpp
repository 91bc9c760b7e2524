// SPDX-License-Identifier: BSL-1.0
// One request's own options: its progress reaches its callback, on either revision; a request
// the host cancels ends CANCELLED and is cancelled at the server (the tool sees it), over HTTP
// on both revisions; over stdio a cancelled or timed-out request is followed by
// notifications/cancelled naming it.
#include "client/client_support.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <unistd.h>

namespace candor::test {
namespace {

using boost::json::object;

// `count` reports two steps of progress, then answers; `wait` reports that it started, then
// waits until it is cancelled, and says so through `cancelled_seen`.
struct progress_server {
    std::shared_ptr<std::promise<void>> cancelled_seen = std::make_shared<std::promise<void>>();
    envelope_server server{[this](mcp::server& s) {
        s.add_tool(
             mcp::make_content_tool(mcp::tool_info("count", "Counts to two.").with_action(mcp::action_class::read_only),
                                    [](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                                        ctx.progress(1, 2, "one");
                                        ctx.progress(2, 2, "two");
                                        co_return mcp::content_result{};
                                    }))
            .value();
        auto seen = cancelled_seen;
        s.add_tool(mcp::make_content_tool(
                       mcp::tool_info("wait", "Waits until cancelled.").with_action(mcp::action_class::read_only),
                       [seen](const object&, mcp::call_context& ctx) -> net::awaitable<mcp::content_result> {
                           ctx.progress(1, {}, "started");
                           net::steady_timer never(co_await net::this_coro::executor, std::chrono::hours(1));
                           co_await never.async_wait(net::as_tuple(net::use_awaitable));
                           if (ctx.cancelled()) seen->set_value();
                           co_return mcp::content_result{};
                       }))
            .value();
    }};
};

cc::session_options era_options(cc::era e) {
    cc::session_options o;
    o.protocol = e;
    return o;
}

class Requests : public ::testing::TestWithParam<cc::era> {};

TEST_P(Requests, ProgressOfACallReachesItsOwnCallback) {
    progress_server p;
    std::vector<double> steps;
    std::vector<std::string> elsewhere;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto o = era_options(GetParam());
        o.on_notification = [&](const std::string& method, const object&) { elsewhere.push_back(method); };
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(p.server.url()), o);
        EXPECT_TRUE(s);
        if (!s) co_return;
        cc::request_options how;
        how.on_progress = [&](const object& params) { steps.push_back(params.at("progress").to_number<double>()); };
        const std::string tool = "count";
        auto r = co_await (*s)->call_tool(tool, object{}, object{}, how);
        EXPECT_TRUE(r);
        co_await (*s)->close();
    });
    EXPECT_EQ(steps, (std::vector<double>{1, 2}));
    EXPECT_EQ(std::count(elsewhere.begin(), elsewhere.end(), "notifications/progress"), 0);
}

TEST_P(Requests, ACallTheHostCancelsEndsCancelledAndTheToolSeesIt) {
    progress_server p;
    std::optional<boost::system::result<cc::tool_result, cc::client_error>> outcome;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(p.server.url()), era_options(GetParam()));
        EXPECT_TRUE(s);
        if (!s) co_return;
        auto& session = **s;
        net::cancellation_signal stop;
        net::steady_timer done(ex, std::chrono::steady_clock::time_point::max());
        cc::request_options how;
        // The tool says it started: the host cancels (once the call is back to waiting).
        how.on_progress = [&](const object&) { net::post(ex, [&] { stop.emit(net::cancellation_type::terminal); }); };
        net::co_spawn(
            ex,
            [&]() -> net::awaitable<void> {
                const std::string tool = "wait";
                outcome = co_await session.call_tool(tool, object{}, object{}, how);
                done.cancel();
            },
            net::bind_cancellation_slot(stop.slot(), net::detached));
        while (!outcome) co_await done.async_wait(net::as_tuple(net::use_awaitable));
        // The session goes on after a cancelled request.
        const std::string count = "count";
        auto again = co_await session.call_tool(count, object{});
        EXPECT_TRUE(again) << again.error().code;
        co_await session.close();
    });
    ASSERT_TRUE(outcome);
    EXPECT_FALSE(*outcome);
    if (!*outcome) {
        EXPECT_EQ(outcome->error().code, "CANCELLED");
    }
    EXPECT_EQ(p.cancelled_seen->get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);
}

INSTANTIATE_TEST_SUITE_P(BothRevisions, Requests, ::testing::Values(cc::era::modern, cc::era::legacy),
                         [](const auto& which) { return which.param == cc::era::modern ? "Modern" : "Legacy"; });

// Over stdio a request that times out (as one the host cancels) is followed by
// notifications/cancelled naming it: the scripted server writes what it read to a file.
TEST(RequestsOverStdio, ATimedOutRequestIsFollowedByNotificationsCancelledNamingIt) {
    const auto log =
        (std::filesystem::temp_directory_path() / ("candor-cancel-" + std::to_string(::getpid()))).string();
    const std::string body = R"(
read init
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}'
read initialized
read call
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"candor-progress-2","progress":1}}'
while read line; do printf '%s\n' "$line" >> )" +
                             log + R"(; done
)";
    std::string code;
    const auto where = cc::endpoint::of_command({"/bin/sh", "-c", body});  // outside the coroutine (GCC 12)
    const auto legacy = era_options(cc::era::legacy);
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where, legacy);
        EXPECT_TRUE(s);
        if (!s) co_return;
        cc::request_options how;
        how.timeout = std::chrono::milliseconds(100);  // what this test is about: no answer comes
        how.on_progress = [](const object&) {};
        const std::string tool = "slow";  // named before co_await (GCC 12)
        auto r = co_await (*s)->call_tool(tool, object{}, object{}, how);
        if (r) code = "answered";
        else code = r.error().code;
        co_await (*s)->close();
    });
    EXPECT_EQ(code, "TIMEOUT");
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::filesystem::remove(log);
    const auto line = text.str();
    EXPECT_NE(line.find(R"("method":"notifications/cancelled")"), std::string::npos) << line;
    EXPECT_NE(line.find(R"("requestId":2)"), std::string::npos) << line;
}

}  // namespace
}  // namespace candor::test
