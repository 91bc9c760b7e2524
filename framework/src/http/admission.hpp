// SPDX-License-Identifier: BSL-1.0
#pragma once
// Admission of JSON-RPC requests past the concurrency limit: a request that finds every slot
// taken waits for one in a bounded first-in-first-out queue, up to a delay bound, instead of
// being refused at once. Refusing a request that would have been answered in milliseconds is
// lost work (every client then retries); an unbounded queue is unbounded memory and latency.
//
// Policy: `slots` requests are answered at once; the next ones queue — at most `max_queued`
// of them holding at most `max_queued_bytes` of bodies, and at most `max_queued_per_share` of
// one share (a principal, or a client address), so that one caller cannot take the queue
// from the others — and each waits at most `max_delay`.
// A request that finds the queue full, or waits past its bound, is refused (503 with
// `Retry-After`). A freed slot goes to the oldest waiter, so no request is passed over. At a
// shutdown every waiter is refused at once.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace candor::transport {

class admission {
public:
    struct options {
        std::size_t slots = 256;
        std::size_t max_queued = 4096;
        std::size_t max_queued_bytes = 64u << 20;
        std::size_t max_queued_per_share = 256;
        std::chrono::milliseconds max_delay{500};
    };

    enum class verdict {
        admitted,  ///< a slot is the caller's until `leave`
        full,      ///< the queue was full: refused at once
        crowded,   ///< the caller's share of the queue was full: refused at once
        late,      ///< no slot within `max_delay`
        stopping,  ///< the server is shutting down
    };

    explicit admission(options o) : opts_(o) {}

    /// A slot for a request of `share` whose body holds `bytes`, waited for on the caller's
    /// executor.
    boost::asio::awaitable<verdict> enter(std::size_t bytes, const std::string& share) {
        // The common case takes a free slot with one atomic step and no lock; it never passes
        // a request already waiting.
        if (!waiters_.load() && take_slot()) co_return verdict::admitted;
        const auto ex = co_await boost::asio::this_coro::executor;
        std::shared_ptr<waiter> w;
        {
            std::lock_guard lock(mutex_);
            if (stopping_) co_return verdict::stopping;
            auto& mine = per_share_[share];
            if (queue_.size() >= opts_.max_queued || queued_bytes_ + bytes > opts_.max_queued_bytes ||
                mine >= opts_.max_queued_per_share) {
                const bool crowded = mine >= opts_.max_queued_per_share;
                if (mine == 0) per_share_.erase(share);
                co_return crowded ? verdict::crowded : verdict::full;
            }
            w = std::make_shared<waiter>(ex, bytes, share);
            w->timer.expires_after(opts_.max_delay);
            queue_.push_back(w);
            queued_bytes_ += bytes;
            ++mine;
            waiters_.store(true);
        }
        dispatch();  // a slot freed between the look above and the queueing goes to the oldest
        (void)co_await w->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        std::lock_guard lock(mutex_);
        if (w->granted) co_return verdict::admitted;  // the slot was handed over
        if (auto it = std::find(queue_.begin(), queue_.end(), w); it != queue_.end()) {
            queue_.erase(it);
            dequeued(*w);
            if (queue_.empty()) waiters_.store(false);
        }
        co_return w->stopped ? verdict::stopping : verdict::late;
    }

    /// An admitted request is done: its slot is free again, and goes to the oldest waiter.
    void leave() {
        busy_.fetch_sub(1);
        if (waiters_.load()) dispatch();
    }

    /// Refuse every waiter, and every request that would wait from now on.
    void stop() {
        std::deque<std::shared_ptr<waiter>> all;
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
            all.swap(queue_);
            queued_bytes_ = 0;
            per_share_.clear();
            waiters_.store(false);
            for (auto& w : all) w->stopped = true;
        }
        for (auto& w : all) wake(w);
    }

    /// Requests waiting now.
    std::size_t queued() const {
        std::lock_guard lock(mutex_);
        return queue_.size();
    }

private:
    struct waiter {
        waiter(boost::asio::any_io_executor ex, std::size_t b, std::string s)
            : timer(std::move(ex)), bytes(b), share(std::move(s)) {}
        boost::asio::steady_timer timer;
        std::size_t bytes;
        std::string share;
        bool granted = false;  // under mutex_
        bool stopped = false;  // under mutex_
    };

    // One slot, if one is free.
    bool take_slot() {
        auto taken = busy_.load();
        while (taken < opts_.slots)
            if (busy_.compare_exchange_weak(taken, taken + 1)) return true;
        return false;
    }

    // Free slots to the oldest waiters. Both sides look at the other's flag after their own
    // step (sequentially consistent), so a slot freed while a request queues is never missed.
    void dispatch() {
        std::vector<std::shared_ptr<waiter>> granted;
        {
            std::lock_guard lock(mutex_);
            while (!queue_.empty() && take_slot()) {
                auto next = std::move(queue_.front());
                queue_.pop_front();
                dequeued(*next);
                next->granted = true;
                granted.push_back(std::move(next));
            }
            if (queue_.empty()) waiters_.store(false);
        }
        for (auto& w : granted) wake(w);
    }

    // Under mutex_: a waiter left the queue.
    void dequeued(const waiter& w) {
        queued_bytes_ -= w.bytes;
        if (auto it = per_share_.find(w.share); it != per_share_.end() && --it->second == 0) per_share_.erase(it);
    }

    // The timer belongs to the waiter's executor: cancel it there.
    static void wake(const std::shared_ptr<waiter>& w) {
        boost::asio::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
    }

    options opts_;
    std::atomic<std::size_t> busy_{0};  // slots taken
    std::atomic<bool> waiters_{false};  // the queue is not empty
    mutable std::mutex mutex_;          // guards the queue and what hangs on it
    std::deque<std::shared_ptr<waiter>> queue_;
    std::size_t queued_bytes_ = 0;
    std::unordered_map<std::string, std::size_t> per_share_;  // waiters by share
    bool stopping_ = false;
};

}  // namespace candor::transport
