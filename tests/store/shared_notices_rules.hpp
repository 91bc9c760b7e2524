// SPDX-License-Identifier: BSL-1.0
#pragma once
// Notices across replicas: two servers (two replicas) that share one notice feed, each with a
// client of the same 2025-11-25 session (as HTTP sessions shared across replicas are), on one
// io_context. What every `mcp::shared_notices` must let them do, written once and run on each
// (SQLite in tests/store, PostgreSQL in tests/postgres).
// GCC 12 reports -Wmismatched-new-delete on coroutine frames: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "mcp/fixture.hpp"

#include <candor/mcp/shared_notices.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include <functional>
#include <random>

namespace candor::test {

class noticed_replicas {
public:
    boost::asio::io_context ioc;
    std::shared_ptr<boost::asio::steady_timer> gate;
    std::unique_ptr<mcp::server> first;
    std::unique_ptr<mcp::server> second;
    std::unique_ptr<mcp::memory_client> on_first;
    std::unique_ptr<mcp::memory_client> on_second;
    bool slow_started = false;
    bool slow_saw_cancellation = false;

    /// @param feed the first replica's view of the shared feed
    /// @param other the second's (another connection to the same database), or the same
    noticed_replicas(const std::shared_ptr<mcp::shared_notices>& feed,
                     const std::shared_ptr<mcp::shared_notices>& other) {
        gate = std::make_shared<boost::asio::steady_timer>(ioc, std::chrono::hours(1));
        first = make_server(feed);
        second = make_server(other ? other : feed);
        const mcp::connection_options session{{"alice"}, "session-1"};
        on_first = std::make_unique<mcp::memory_client>(*first, ioc, session);
        on_second = std::make_unique<mcp::memory_client>(*second, ioc, session);
        on_first->initialize();
        on_second->initialize();
    }
    ~noticed_replicas() {
        on_first.reset();
        on_second.reset();
        gate->cancel();
        ioc.run_for(std::chrono::milliseconds(50));
    }

    /// Run the io_context until `done` (bounded: 10,000 slices of a millisecond).
    bool run_until(const std::function<bool()>& done) {
        for (int i = 0; i < 10000 && !done(); ++i) {
            ioc.run_for(std::chrono::milliseconds(1));
            on_first->run_ready();  // what the clients received, into their lists
            on_second->run_ready();
        }
        return done();
    }
    /// Let both replicas read the feed a few times (it has nothing to deliver, or the test
    /// checks what should not have come).
    void run_for_a_while() {
        ioc.run_for(std::chrono::milliseconds(50));
        on_first->run_ready();
        on_second->run_ready();
    }
    static std::size_t heard(mcp::memory_client& c, std::string_view method, std::string_view uri = {}) {
        std::size_t n = 0;
        for (const auto& m : c.notifications(method))
            if (uri.empty() ||
                at(m, "params", "uri") == boost::json::value(boost::json::string_view(uri.data(), uri.size())))
                ++n;
        return n;
    }

private:
    std::unique_ptr<mcp::server> make_server(std::shared_ptr<mcp::shared_notices> feed) {
        auto srv = std::make_unique<mcp::server>(test_options(std::make_shared<server_log>()));
        srv->set_shared_notices(std::move(feed), {.poll_interval = std::chrono::milliseconds(10)});
        for (const char* uri : {"note://1", "note://2"})
            srv->add_resource({uri, uri, "", "", "", {}},
                              [uri](const mcp::resource_request&)
                                  -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                                  co_return std::vector<mcp::resource_contents>{{uri, "text/plain", "a note", {}}};
                              })
                .value();
        auto g = gate;
        srv
            ->add_tool(mcp::make_content_tool(
                mcp::tool_info("slow", "Waits for the test's gate."),
                [this, g](const boost::json::object&, mcp::call_context& ctx) -> awaitable<mcp::content_result> {
                    slow_started = true;
                    co_await g->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                    slow_saw_cancellation = slow_saw_cancellation || ctx.cancelled();
                    co_return mcp::content_result{
                        boost::json::array{boost::json::object{{"type", "text"}, {"text", "opened"}}}};
                }))
            .value();
        return srv;
    }
};

/// A resource updated on one replica: its subscriber on the other hears it, once; the replica
/// that raised it does not hear its own notice back.
inline void an_update_reaches_the_subscriber_on_the_other_replica(const std::shared_ptr<mcp::shared_notices>& feed,
                                                                  const std::shared_ptr<mcp::shared_notices>& other) {
    noticed_replicas r(feed, other);
    for (auto* c : {r.on_first.get(), r.on_second.get()})
        for (const char* uri : {"note://1", "note://2"})
            EXPECT_TRUE(at(c->request("resources/subscribe", {{"uri", uri}}), "result").is_object());
    // Both replicas read the feed from its end before anything is raised.
    r.run_for_a_while();
    r.first->notify_resource_updated("note://1");
    EXPECT_TRUE(
        r.run_until([&] { return noticed_replicas::heard(*r.on_second, "notifications/resources/updated") > 0; }));
    // A second update, raised after: once it is heard, a repeat of the first would have been too.
    r.first->notify_resource_updated("note://2");
    EXPECT_TRUE(r.run_until(
        [&] { return noticed_replicas::heard(*r.on_second, "notifications/resources/updated", "note://2") > 0; }));
    EXPECT_EQ(noticed_replicas::heard(*r.on_second, "notifications/resources/updated", "note://1"), 1u);
    EXPECT_EQ(noticed_replicas::heard(*r.on_first, "notifications/resources/updated", "note://1"), 1u);
    EXPECT_EQ(noticed_replicas::heard(*r.on_first, "notifications/resources/updated", "note://2"), 1u);
}

/// A registry changed on one replica: the other replica's client hears list_changed.
inline void a_list_change_reaches_the_other_replica(const std::shared_ptr<mcp::shared_notices>& feed,
                                                    const std::shared_ptr<mcp::shared_notices>& other) {
    noticed_replicas r(feed, other);
    r.run_for_a_while();
    const auto before = noticed_replicas::heard(*r.on_second, "notifications/tools/list_changed");
    EXPECT_TRUE(r.first->remove_tool("slow"));
    EXPECT_TRUE(r.run_until(
        [&] { return noticed_replicas::heard(*r.on_second, "notifications/tools/list_changed") > before; }));
    EXPECT_EQ(noticed_replicas::heard(*r.on_first, "notifications/tools/list_changed"), 1u);
}

/// `notifications/cancelled` sent to the replica that does not run the call reaches the one
/// that does: the tool stops, and the call is never answered.
inline void a_cancellation_reaches_the_call_on_the_other_replica(const std::shared_ptr<mcp::shared_notices>& feed,
                                                                 const std::shared_ptr<mcp::shared_notices>& other) {
    noticed_replicas r(feed, other);
    r.run_for_a_while();
    r.on_first->send(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}})");
    EXPECT_TRUE(r.run_until([&] { return r.slow_started; }));
    r.on_second->notify("notifications/cancelled", {{"requestId", 7}, {"reason", "the user stopped it"}});
    EXPECT_TRUE(r.run_until([&] { return r.slow_saw_cancellation; }));
    r.run_for_a_while();
    EXPECT_TRUE(r.on_first->response_to(7).is_null());
}

/// The feed itself: a reader reads the others' notices in order, never its own, and a reader's
/// first read, however late, starts at the moment the reader began.
inline void the_feed_reads_the_others_in_order(const std::shared_ptr<mcp::shared_notices>& feed) {
    boost::asio::io_context ioc;
    const auto began = std::chrono::system_clock::now();
    auto read = [&](std::optional<std::int64_t> after, std::string origin) {
        auto f = boost::asio::co_spawn(ioc, feed->read(after, std::move(origin), 100, began), boost::asio::use_future);
        ioc.restart();
        ioc.run();
        return f.get();
    };
    // Origins of this run only: a shared database may hold other runs' notices.
    const std::string tag = std::to_string(std::random_device{}());
    const std::string r1 = "r1-" + tag, r2 = "r2-" + tag;
    auto start = read(std::nullopt, r2);
    ASSERT_TRUE(start);
    const std::string note = "note://a-" + tag, session = "session-" + tag, changed = "changed-" + tag;
    feed->publish(r1, {mcp::notice::kind::resource_updated, note, ""});
    feed->publish(r2, {mcp::notice::kind::list_changed, changed, ""});
    feed->publish(r1, {mcp::notice::kind::cancelled, session, "7"});
    // Publications are queued: read until the three are in (bounded).
    std::vector<mcp::notice> got;
    std::int64_t last = start->last;
    for (int i = 0; i < 1000 && got.size() < 2; ++i) {
        auto b = read(last, r2);
        ASSERT_TRUE(b);
        for (auto& n : b->notices)
            if (n.subject == note || n.subject == session) got.push_back(n);  // another run's may come between
        last = b->last;
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].subject, note);
    EXPECT_EQ(got[0].what, mcp::notice::kind::resource_updated);
    EXPECT_EQ(got[1].what, mcp::notice::kind::cancelled);
    EXPECT_EQ(got[1].detail, "7");
    std::vector<mcp::notice> own;
    for (int i = 0; i < 1000 && own.empty(); ++i) {
        auto b = read(start->last, r1);
        ASSERT_TRUE(b);
        for (auto& n : b->notices)
            if (n.subject == changed) own.push_back(n);
    }
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0].what, mcp::notice::kind::list_changed);
    // A reader whose first read comes only now, but that began before the three were published,
    // gets them all the same.
    auto late = read(std::nullopt, "r3-" + tag);
    ASSERT_TRUE(late);
    std::size_t mine = 0;
    for (const auto& n : late->notices) mine += n.subject == note || n.subject == session || n.subject == changed;
    EXPECT_EQ(mine, 3u);
}

}  // namespace candor::test
