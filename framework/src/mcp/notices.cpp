// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Notices across replicas (shared_notices.hpp): what this server raises goes to the feed, and
// while a connection here can hear a change, a loop reads the other replicas' and acts on them.
#include "connection_impl.hpp"

#include <candor/json/intake.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace candor::mcp::detail {

namespace {

// A request id as `notice::detail` holds it (its JSON: a string or an integer).
std::optional<jsonrpc::request_id> request_id_of(const std::string& text) {
    json::limits lim;
    lim.max_bytes = 4096;
    lim.max_depth = 1;
    auto doc = json::parse(text, lim);
    if (!doc) return std::nullopt;
    const auto& v = doc->root();
    if (const auto* s = v.if_string()) return jsonrpc::request_id(std::string(*s));
    if (const auto* i = v.if_int64()) return jsonrpc::request_id(*i);
    return std::nullopt;
}

bool is_list_changed(std::string_view method) {
    return method == "notifications/tools/list_changed" || method == "notifications/prompts/list_changed" ||
           method == "notifications/resources/list_changed";
}

// While the server has a feed and a connection that can hear a change: read the other
// replicas' notices every poll interval and act on them. Ends when neither holds (the next
// connection starts it again).
boost::asio::awaitable<void> read_notices(std::weak_ptr<server_core> weak, boost::asio::any_io_executor ex) {
    // Should the loop's executor end under it, the next connection starts another.
    struct restart_later {
        std::weak_ptr<server_core> core;
        ~restart_later() {
            if (auto c = core.lock()) {
                std::lock_guard lock(c->mu);
                c->reading_notices = false;
            }
        }
    } guard{weak};
    boost::asio::steady_timer timer(ex);
    // None until the first read, which starts at the notices published since now: a first read
    // that comes late misses nothing raised after the first listener came.
    std::optional<std::int64_t> after;
    const auto since = std::chrono::system_clock::now();
    bool warned = false;
    for (;;) {
        std::shared_ptr<shared_notices> feed;
        shared_notice_options options;
        std::string origin;
        {
            auto core = weak.lock();
            if (!core) co_return;
            std::lock_guard lock(core->mu);
            std::erase_if(core->connections, [](const auto& w) { return w.expired(); });
            if (!core->notices || core->connections.empty()) co_return;  // `guard` says it stopped
            feed = core->notices;
            options = core->notice_options;
            origin = core->replica_id;
        }
        if (after) {
            timer.expires_after(options.poll_interval);
            auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (ec) co_return;
        }
        auto batch = co_await feed->read(after, origin, options.max_per_read, since);
        auto core = weak.lock();
        if (!core) co_return;
        if (!batch) {
            if (!warned)
                core->opts.log(log_level::warning,
                               "the notices of other replicas cannot be read (" + batch.error().message +
                                   "); their changes are not heard here until the feed can be read again");
            warned = true;
            if (!after) {
                // Retry the first read after an interval, not at once.
                timer.expires_after(options.poll_interval);
                auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                if (ec) co_return;
            }
            continue;
        }
        if (warned) core->opts.log(log_level::info, "the notices of other replicas are read again");
        warned = false;
        after = batch->last;
        for (const auto& n : batch->notices) core->deliver(n);
    }
}

}  // namespace

void server_core::enlist(std::weak_ptr<connection_impl> c) {
    auto conn = c.lock();
    if (!conn) return;
    conn->enlisted = true;
    bool start = false;
    {
        std::lock_guard lock(mu);
        std::erase_if(connections, [](const auto& w) { return w.expired(); });
        connections.push_back(std::move(c));
        serving = true;
        if (notices && !reading_notices) start = reading_notices = true;
    }
    if (start) boost::asio::co_spawn(conn->strand, read_notices(conn->core, conn->strand), boost::asio::detached);
}

void server_core::withdraw(const connection_impl* c) {
    // The others, held until the lock is let go: a connection whose last owner is this list
    // is destroyed outside it.
    std::vector<std::shared_ptr<connection_impl>> others;
    std::lock_guard lock(mu);
    std::vector<std::weak_ptr<connection_impl>> kept;
    for (const auto& w : connections)
        if (auto live = w.lock(); live && live.get() != c) {
            kept.push_back(live);
            others.push_back(std::move(live));
        }
    connections = std::move(kept);
}

void server_core::notify_resource_updated(const std::string& uri) const {
    for (auto& c : live_connections()) c->notify_resource_updated(uri);
    share({notice::kind::resource_updated, uri, {}});
}

void server_core::share(notice n) const {
    std::shared_ptr<shared_notices> feed;
    {
        std::lock_guard lock(mu);
        // What a replica registers before it serves is its set-up, not a change.
        if (n.what == notice::kind::list_changed && !serving) return;
        feed = notices;
    }
    if (feed) feed->publish(replica_id, std::move(n));
}

void server_core::deliver(const notice& n) const {
    switch (n.what) {
        case notice::kind::list_changed:
            if (!is_list_changed(n.subject)) return;  // a method this version does not know
            for (auto& c : live_connections()) c->notify_list_changed(n.subject);
            return;
        case notice::kind::resource_updated:
            for (auto& c : live_connections()) c->notify_resource_updated(n.subject);
            return;
        case notice::kind::cancelled:
            if (n.subject.empty()) return;
            if (auto id = request_id_of(n.detail))
                for (auto& c : live_connections()) c->cancel_in_session(n.subject, *id);
            return;
    }
}

}  // namespace candor::mcp::detail
