// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include "shared_sessions.hpp"

#include "bounded_work.hpp"

#include <candor/offload/worker.hpp>

#include <boost/asio/post.hpp>

#include <thread>

namespace candor::transport::detail {

namespace net = boost::asio;

namespace {

// Log why the records gave no answer. @return whether they gave one
template <class T>
bool answered(const std::optional<session_records_result<T>>& r, const mcp::log_sink& log) {
    if (!r) log(mcp::log_level::error, "session records: no answer within the shared session timeout");
    else if (!*r) log(mcp::log_level::error, r->error().message);
    return r && *r;
}

}  // namespace

shared_sessions::shared_sessions(std::shared_ptr<session_records> records, std::shared_ptr<offload::worker> worker,
                                 std::chrono::milliseconds timeout, std::chrono::milliseconds idle, mcp::log_sink log)
    : records_(std::move(records)), worker_(std::move(worker)), timeout_(timeout), idle_(idle), log_(std::move(log)) {}

net::awaitable<shared_lookup> shared_sessions::find(std::string id) {
    shared_lookup out;
    auto look = [records = records_, running = running_, id = std::move(id), now = std::chrono::system_clock::now()] {
        return records->find(id, now);
    };
    auto found = co_await bounded(*worker_, timeout_, std::move(look));
    if (!answered(found, log_)) co_return out;
    if (auto& record = found->value()) {
        out.status = shared_lookup::outcome::found;
        out.record = std::move(*record);
    } else {
        out.status = shared_lookup::outcome::missing;
    }
    co_return out;
}

net::awaitable<bool> shared_sessions::put(session_record r) {
    auto write = [records = records_, running = running_, r = std::move(r)] { return records->put(r); };
    auto done = co_await bounded(*worker_, timeout_, std::move(write));
    const bool ok = answered(done, log_);
    co_return ok;
}

net::awaitable<bool> shared_sessions::remove(std::string id) {
    auto erase = [records = records_, running = running_, id = std::move(id)] { return records->remove(id); };
    auto done = co_await bounded(*worker_, timeout_, std::move(erase));
    const bool ok = answered(done, log_);
    co_return ok;
}

void shared_sessions::wait_idle(std::chrono::milliseconds limit) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (running_.use_count() > 1 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void shared_sessions::touch(std::string id) {
    net::post(worker_->executor(), [records = records_, log = log_, idle = idle_, id = std::move(id)] {
        if (auto r = records->touch(id, std::chrono::system_clock::now(), idle); !r)
            log(mcp::log_level::warning, r.error().message);
    });
}

void shared_sessions::purge() {
    net::post(worker_->executor(), [records = records_, log = log_] {
        if (auto r = records->purge(std::chrono::system_clock::now()); !r)
            log(mcp::log_level::warning, r.error().message);
    });
}

}  // namespace candor::transport::detail
