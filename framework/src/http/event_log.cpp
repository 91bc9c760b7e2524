// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include "event_log.hpp"

#include "bounded_work.hpp"

#include <candor/http/policy.hpp>
#include <candor/offload/worker.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>
#include <thread>

namespace candor::transport::detail {

namespace net = boost::asio;

namespace {

// Events read from the log at once: a resume replays a long stream page by page.
constexpr std::size_t read_page = 64;
// A stream id: its kind and 32 hex digits.
constexpr std::size_t stream_id_size = 33;

}  // namespace

std::string new_stream_id(char kind) { return kind + http_policy::new_session_id(); }

std::string event_id(std::string_view stream_id, std::uint64_t seq) {
    std::string out(stream_id);
    out += '-';
    out += std::to_string(seq);
    return out;
}

std::optional<event_ref> parse_event_id(std::string_view id) {
    if (id.size() < stream_id_size + 2 || id[stream_id_size] != '-') return std::nullopt;
    const auto stream = id.substr(0, stream_id_size);
    if (stream[0] != 'p' && stream[0] != 'g') return std::nullopt;
    if (!std::all_of(stream.begin() + 1, stream.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
        return std::nullopt;
    const auto digits = id.substr(stream_id_size + 1);
    event_ref out{std::string(stream), 0};
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.seq);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return out;
}

event_journal::event_journal(std::shared_ptr<event_log> log, std::shared_ptr<offload::worker> worker, settings s,
                             mcp::log_sink sink)
    : log_(std::move(log)), worker_(std::move(worker)), settings_(s), sink_(std::move(sink)) {}

net::awaitable<std::string> event_journal::record(stream_cursor& cursor, bool final, std::string text) {
    logged_event e;
    e.session_id = cursor.session_id;
    e.stream_id = cursor.stream_id;
    e.seq = cursor.next++;
    e.final = final;
    e.text = std::move(text);
    e.expires = std::chrono::system_clock::now() + settings_.retention;
    auto id = event_id(e.stream_id, e.seq);
    auto append = [log = log_, running = running_, keep = settings_.keep, e = std::move(e)] {
        return log->append(e, keep);
    };
    const auto done = co_await bounded(*worker_, settings_.timeout, std::move(append));
    if (done && *done) {
        notify(cursor.stream_id);
    } else if (!cursor.failed) {
        // Once per stream: the events still go out live, but a resume may find them missing.
        cursor.failed = true;
        sink_(mcp::log_level::error, "event log: stream " + cursor.stream_id + " cannot be logged (" +
                                         (done ? done->error().message : std::string("no answer in time")) +
                                         "); its events go out live only");
    }
    co_return id;
}

net::awaitable<std::optional<std::vector<logged_event>>> event_journal::read(std::string session_id,
                                                                             std::string stream_id,
                                                                             std::uint64_t from) {
    std::optional<std::vector<logged_event>> out;
    auto look = [log = log_, running = running_, session_id = std::move(session_id), stream_id = std::move(stream_id),
                 from, now = std::chrono::system_clock::now()] {
        return log->read(session_id, stream_id, from, read_page, now);
    };
    auto found = co_await bounded(*worker_, settings_.timeout, std::move(look));
    if (!found) sink_(mcp::log_level::error, "event log: no answer within the event log timeout");
    else if (!*found) sink_(mcp::log_level::error, found->error().message);
    else out = std::move(found->value());
    co_return out;
}

void event_journal::purge() {
    net::post(worker_->executor(), [log = log_, sink = sink_] {
        if (auto r = log->purge(std::chrono::system_clock::now()); !r) sink(mcp::log_level::warning, r.error().message);
    });
}

std::shared_ptr<stream_wake> event_journal::watch(const std::string& stream_id,
                                                  const boost::asio::any_io_executor& ex) {
    auto wake = std::make_shared<stream_wake>(ex);
    std::lock_guard lock(mu_);
    // Followers that ended leave their entries behind: swept here (there are few).
    for (auto it = watchers_.begin(); it != watchers_.end();) {
        std::erase_if(it->second, [](const std::weak_ptr<stream_wake>& w) { return w.expired(); });
        it = it->second.empty() ? watchers_.erase(it) : std::next(it);
    }
    watchers_[stream_id].push_back(wake);
    return wake;
}

net::awaitable<void> event_journal::wait(stream_wake& wake) const {
    // A wake-up that came while the caller read the log is not lost: it left `pending` set.
    if (wake.pending.exchange(false)) co_return;
    wake.timer.expires_after(settings_.poll);
    co_await wake.timer.async_wait(net::as_tuple(net::use_awaitable));
    wake.pending = false;
}

void event_journal::notify(const std::string& stream_id) {
    std::vector<std::shared_ptr<stream_wake>> woken;
    {
        std::lock_guard lock(mu_);
        const auto it = watchers_.find(stream_id);
        if (it == watchers_.end()) return;
        for (const auto& w : it->second)
            if (auto wake = w.lock()) woken.push_back(std::move(wake));
        if (woken.empty()) watchers_.erase(it);
    }
    for (auto& wake : woken) {
        wake->pending = true;
        // The timer belongs to the follower's strand: cancelled there.
        net::post(wake->timer.get_executor(), [wake] { wake->timer.cancel(); });
    }
}

void event_journal::wait_idle(std::chrono::milliseconds limit) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (running_.use_count() > 1 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace candor::transport::detail
