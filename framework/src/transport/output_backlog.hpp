// SPDX-License-Identifier: BSL-1.0
#pragma once
// The stdio transport's brake on its input. Private to the transport module.
//
// Every reply is queued until the client reads it. A client that writes requests and never
// reads would otherwise make the server run them all and queue the replies without end; with
// the brake, the server stops reading while the unsent bytes are over the limit, so the input
// pipe fills and the client's own writes block. Nothing is dropped: every request read is
// answered once the client reads again.

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>

namespace candor::transport::detail {

/// Bytes handed to the output and not yet written, and the input's brake. Thread-safe: writers
/// count from whatever thread writes; the reader asks before it reads on. Reading resumes once
/// the backlog is down to half the limit, so a client that reads a little at a time does not
/// wake the reader for every few bytes.
class output_backlog {
public:
    /// @param limit unsent bytes above which the input is not read (0: read only when everything
    /// has been written)
    explicit output_backlog(std::size_t limit) noexcept : limit_(limit) {}

    /// A writer queued `n` bytes. Lock-free.
    void add(std::size_t n) noexcept { bytes_.fetch_add(n); }

    /// A writer wrote (or dropped) `n` of the queued bytes. If a reader is held and the backlog
    /// is down to half the limit, the reader resumes (its `resume` runs here, on this thread).
    void remove(std::size_t n);

    /// For the reader, before it reads on: if the backlog is over the limit, keep `resume` to run
    /// once it has fallen to half, and say so.
    /// @return true if the reader must not read now (`resume` will run later, exactly once)
    bool hold(std::function<void()> resume);

    /// Nothing is held from now on (the output failed: nothing more can be written, and holding
    /// the input back would only stall the server): a held reader resumes.
    void release();

    /// Unsent bytes now.
    std::size_t bytes() const noexcept { return bytes_.load(); }

private:
    std::size_t limit_;
    std::atomic<std::size_t> bytes_{0};
    // Set (under mu_) while a reader is held; read without the lock by writers, which take the
    // lock only when it is set. Both are sequentially consistent, so a writer that drains the
    // backlog while a reader decides to hold sees the hold, or the reader sees the drained count.
    std::atomic<bool> holding_{false};
    std::mutex mu_;
    std::function<void()> resume_;  // guarded by mu_
    bool released_ = false;         // guarded by mu_
};

}  // namespace candor::transport::detail
