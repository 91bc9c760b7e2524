// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A worker for blocking database work: `co_await w.run(fn)` runs `fn` on one of the worker's
/// threads and resumes the awaiting coroutine on its own executor with `fn`'s result, so a
/// statement that waits for the disk, a lock or a busy database never holds an I/O thread (and
/// a call's deadline, which the connection's strand enforces, still answers on time).
///
/// @code
/// auto rows = co_await worker.run([&] { return db.execute(sql, params); });
/// @endcode

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

namespace candor::store {

class worker {
public:
    /// @param threads threads that run the work (one keeps a connection's work in the order
    ///        it was asked for; more only help a database that serves several connections)
    explicit worker(std::size_t threads = 1) : pool_(threads) {}
    /// Waits for the work already running, then joins the threads.
    ~worker() { pool_.join(); }
    worker(const worker&) = delete;
    worker& operator=(const worker&) = delete;

    /// Run `fn` on a worker thread. `fn` may refer to the awaiting coroutine's locals (they
    /// live until it resumes) but must not touch state that belongs to the caller's strand.
    /// @return what `fn` returned; an exception `fn` threw is rethrown in the caller
    template <class F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run(F fn) {
        using R = std::invoke_result_t<F&>;
        // co_spawn's callable form keeps the lambda alive in the new coroutine's frame; the
        // reference to `fn` stays valid because this frame waits for that coroutine.
        if constexpr (std::is_void_v<R>) {
            co_await boost::asio::co_spawn(
                pool_.get_executor(),
                [&fn]() -> boost::asio::awaitable<void> {
                    fn();
                    co_return;
                },
                boost::asio::use_awaitable);
        } else {
            // std::optional: co_spawn's completion needs a default-constructible value.
            auto out = co_await boost::asio::co_spawn(
                pool_.get_executor(),
                [&fn]() -> boost::asio::awaitable<std::optional<R>> { co_return std::optional<R>(fn()); },
                boost::asio::use_awaitable);
            co_return std::move(*out);
        }
    }

    boost::asio::thread_pool::executor_type executor() noexcept { return pool_.get_executor(); }

private:
    boost::asio::thread_pool pool_;
};

}  // namespace candor::store
