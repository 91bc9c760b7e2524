// SPDX-License-Identifier: BSL-1.0
#pragma once
// Admission of JSON-RPC requests past the concurrency limit, one per I/O thread: a request that
// finds every slot of its thread taken waits for one in a bounded first-in-first-out queue, up
// to a delay bound, instead of being refused at once. Refusing a request that would have been
// answered in milliseconds is lost work (every client then retries); an unbounded queue is
// unbounded memory and latency.
//
// Policy: `slots` requests are answered at once; the next ones queue — at most `max_queued`
// of them holding at most `max_queued_bytes` of bodies, and at most `max_queued_per_share` of
// one share (a principal, or a client address), so that one caller cannot take the queue
// from the others — and each waits at most `max_delay`. A request that finds the queue full,
// or waits past its bound, is refused (503 with `Retry-After`). A freed slot goes to the
// oldest waiter, so no request is passed over. At a shutdown every waiter is refused at once.
//
// A queue absorbs bursts; a queue that never drains only adds latency. When every request that
// left the queue for `interval` had waited at least `target_delay` (CoDel's test for a standing
// queue), a request that joins it waits at most `interval` instead of `max_delay`, until a
// request leaves it sooner than the target or it empties.
//
// Everything here runs on the thread that owns it (its connections' requests come and go there),
// so nothing is locked and no cache line is shared with another thread; `queued` is read from
// anywhere.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace candor::transport {

class admission {
public:
    struct options {
        std::size_t slots = 256;
        std::size_t max_queued = 4096;
        std::size_t max_queued_bytes = 64u << 20;
        std::size_t max_queued_per_share = 256;
        std::chrono::milliseconds max_delay{500};
        std::chrono::milliseconds target_delay{5};
        std::chrono::milliseconds interval{100};
    };

    enum class verdict {
        admitted,  ///< a slot is the caller's until `leave`
        full,      ///< the queue was full: refused at once
        crowded,   ///< the caller's share of the queue was full: refused at once
        late,      ///< no slot within the delay bound
        stopping,  ///< the server is shutting down
    };

    explicit admission(options o) : opts_(o) {}

    /// A free slot, if one is free and nobody waits for one (no allocation, no wait).
    bool try_enter() noexcept {
        if (!queue_.empty() || busy_ >= opts_.slots || stopping_) return false;
        ++busy_;
        standing_since_.reset();  // nobody waits: no standing queue
        standing_ = false;
        return true;
    }

    /// A slot for a request of `share` whose body holds `bytes`, waited for on the caller's
    /// executor (whose thread owns this). Call after `try_enter` failed.
    boost::asio::awaitable<verdict> enter(std::size_t bytes, const std::string& share) {
        if (try_enter()) co_return verdict::admitted;
        if (stopping_) co_return verdict::stopping;
        const auto entry = per_share_.try_emplace(share, 0).first;
        if (queue_.size() >= opts_.max_queued || queued_bytes_ + bytes > opts_.max_queued_bytes ||
            entry->second >= opts_.max_queued_per_share) {
            const bool crowded = entry->second >= opts_.max_queued_per_share;
            if (entry->second == 0) per_share_.erase(entry);
            co_return crowded ? verdict::crowded : verdict::full;
        }
        const auto ex = co_await boost::asio::this_coro::executor;
        waiter w(*this, ex, bytes, *entry);
        w.timer.expires_after(delay_bound());
        w.pos = queue_.insert(queue_.end(), &w);
        queued_bytes_ += bytes;
        ++entry->second;
        queued_count_.store(queue_.size(), std::memory_order_relaxed);
        (void)co_await w.timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        if (w.granted) co_return verdict::admitted;  // the slot was handed over
        if (w.stopped) co_return verdict::stopping;
        dequeue(w);  // waited past its bound: the queue stands
        co_return verdict::late;
    }

    /// An admitted request is done: its slot is free again, and goes to the oldest waiter.
    void leave() noexcept {
        --busy_;
        if (queue_.empty()) {
            standing_since_.reset();
            standing_ = false;
            return;
        }
        if (busy_ >= opts_.slots) return;
        waiter& next = *queue_.front();
        dequeue(next);
        ++busy_;
        next.granted = true;
        next.timer.cancel();  // resumes its request (later, from the thread's queue)
    }

    /// Refuse every waiter, and every request that would wait from now on.
    void stop() {
        stopping_ = true;
        while (!queue_.empty()) {
            waiter& w = *queue_.front();
            remove(w);
            w.stopped = true;
            w.timer.cancel();
        }
    }

    /// Requests waiting now (read from any thread).
    std::size_t queued() const noexcept { return queued_count_.load(std::memory_order_relaxed); }

private:
    using clock = std::chrono::steady_clock;

    using share_entry = std::pair<const std::string, std::size_t>;

    // A request waiting for a slot: it lives in its `enter`'s frame, and leaves the queue at
    // the latest with it (a frame destroyed at a shutdown).
    struct waiter {
        waiter(admission& a, boost::asio::any_io_executor ex, std::size_t b, share_entry& s)
            : owner(a), timer(std::move(ex)), bytes(b), share(s) {}
        waiter(const waiter&) = delete;
        waiter& operator=(const waiter&) = delete;
        ~waiter() {
            if (queued) owner.remove(*this);
        }
        admission& owner;
        boost::asio::steady_timer timer;
        std::size_t bytes;
        share_entry& share;  // its count of waiters (map elements stay where they are)
        const clock::time_point since = clock::now();
        std::list<waiter*>::iterator pos;
        bool queued = true;
        bool granted = false;
        bool stopped = false;
    };

    // How long a request that joins the queue now may wait.
    std::chrono::milliseconds delay_bound() const noexcept {
        return standing_ ? std::min(opts_.max_delay, opts_.interval) : opts_.max_delay;
    }

    // A waiter leaves the queue, granted a slot or late: how long it waited tells whether the
    // queue stands.
    void dequeue(waiter& w) {
        remove(w);
        const auto now = clock::now();
        if (now - w.since < opts_.target_delay) {
            standing_since_.reset();
            standing_ = false;
        } else if (!standing_since_) {
            standing_since_ = now;
            standing_ = opts_.interval.count() == 0;
        } else if (now - *standing_since_ >= opts_.interval) {
            standing_ = true;
        }
    }

    void remove(waiter& w) {
        w.queued = false;
        queue_.erase(w.pos);
        queued_bytes_ -= w.bytes;
        if (--w.share.second == 0) per_share_.erase(per_share_.find(w.share.first));
        queued_count_.store(queue_.size(), std::memory_order_relaxed);
    }

    options opts_;
    std::size_t busy_ = 0;  // slots taken
    std::list<waiter*> queue_;
    std::size_t queued_bytes_ = 0;
    std::unordered_map<std::string, std::size_t> per_share_;  // waiters by share
    std::optional<clock::time_point> standing_since_;         // since when every wait passed the target
    bool standing_ = false;
    bool stopping_ = false;
    std::atomic<std::size_t> queued_count_{0};
};

}  // namespace candor::transport
