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

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace candor::offload {

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
    /// The wait cannot be cancelled: the coroutine resumes when `fn` has returned.
    /// @return what `fn` returned; an exception `fn` threw is rethrown in the caller
    template <class F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run(F fn) {
        using R = std::invoke_result_t<F&>;
        if constexpr (std::is_void_v<R>) {
            auto as_value = [f = std::move(fn)]() mutable {
                f();
                return true;
            };
            (void)co_await run(std::move(as_value));
        } else {
            const auto ex = co_await boost::asio::this_coro::executor;
            // No cancellation slot is connected: the operation ends only when `fn` has.
            auto out = co_await boost::asio::async_initiate<decltype(boost::asio::use_awaitable),
                                                            void(std::exception_ptr, std::optional<R>)>(
                [this, &ex](auto handler, F f) {
                    this->hand_off(ex, std::move(f),
                                   [h = std::move(handler)](std::optional<R> r, std::exception_ptr e) mutable {
                                       std::move(h)(e, std::move(r));
                                   });
                },
                boost::asio::use_awaitable, std::move(fn));
            co_return std::move(*out);
        }
    }

    /// Run `fn` on a worker thread; the caller may stop waiting for it. Cancelling the awaiting
    /// coroutine (a deadline raced with `||`, a fan-out's timer, a cancelled call) resumes it at
    /// once with `operation_aborted`, while `fn` runs to its end on its own and its result is
    /// dropped: a blocking statement can make a source late, never the answer. So `fn` owns
    /// what it uses (captures by value or shared pointer, never the caller's locals), and the
    /// caller's executor must outlive the work (it is kept busy until `fn` returns). Call it from
    /// a strand or a single-threaded executor (a tool call's is its connection's strand), and
    /// pass a named lambda: GCC 12 destroys a temporary in a `co_await` expression twice.
    /// @return what `fn` returned; an exception `fn` threw is rethrown in the caller
    /// @throws boost::system::system_error `operation_aborted` when the wait was cancelled
    template <class F>
    boost::asio::awaitable<std::invoke_result_t<F&>> run_cancellable(F fn) {
        using R = std::invoke_result_t<F&>;
        static_assert(!std::is_void_v<R>, "run_cancellable: return what the work produced");
        struct shared_state {
            explicit shared_state(const boost::asio::any_io_executor& ex)
                : wake(ex, boost::asio::steady_timer::time_point::max()) {}
            boost::asio::steady_timer wake;  // waited on by the caller; cancelled when done
            std::optional<R> result;
            std::exception_ptr error;
            bool done = false;
        };
        const auto ex = co_await boost::asio::this_coro::executor;
        auto state = std::make_shared<shared_state>(ex);
        // The state is the caller's executor's (its timer belongs to that io_context): it is
        // touched there only, and only the delivery holds it on the worker's side.
        hand_off(ex, std::move(fn), [state](std::optional<R> r, std::exception_ptr e) {
            state->result = std::move(r);
            state->error = e;
            state->done = true;
            state->wake.cancel();
        });
        (void)co_await state->wake.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        if (!state->done) throw boost::system::system_error(boost::asio::error::operation_aborted);
        if (state->error) std::rethrow_exception(state->error);
        co_return std::move(*state->result);
    }

    boost::asio::thread_pool::executor_type executor() noexcept { return pool_.get_executor(); }

private:
    /// What a worker thread hands back to the caller's executor: the result, the work with
    /// what it captured (its last owner may be the caller, gone by now, and what it holds may
    /// own this worker, which a thread of its own must never destroy), and the caller's
    /// counted work. It runs `done` only once the worker thread has let go of every copy of
    /// the caller's executor: until then it posts itself again. Otherwise the caller could
    /// resume, finish and end its io_context while the worker thread, still returning from the
    /// post, released a strand of that io_context (a use after free).
    template <class R, class F, class Done>
    struct delivery {
        std::optional<R> result{};
        std::exception_ptr error{};
        std::optional<F> spent{};
        Done done;
        boost::asio::any_io_executor keep{};  // tracked: the caller's executor stays busy
        std::shared_ptr<std::atomic<bool>> released{};

        void operator()() {
            if (!released->load(std::memory_order_acquire)) {
                const auto again = keep;
                boost::asio::post(again, std::move(*this));
                return;
            }
            const auto busy = std::move(keep);  // the caller's executor may end once this returns
            spent.reset();
            std::move(done)(std::move(result), error);
        }
    };

    template <class F, class Done>
    void hand_off(const boost::asio::any_io_executor& ex, F fn, Done done) {
        using R = std::invoke_result_t<F&>;
        boost::asio::post(
            pool_.get_executor(), [back = boost::asio::prefer(ex, boost::asio::execution::outstanding_work.tracked),
                                   fn = std::move(fn), done = std::move(done)]() mutable {
                delivery<R, F, Done> d{.done = std::move(done), .released = std::make_shared<std::atomic<bool>>(false)};
                try {
                    d.result.emplace(fn());
                } catch (...) {
                    d.error = std::current_exception();
                }
                d.spent.emplace(std::move(fn));
                const auto released = d.released;
                {
                    const auto there = boost::asio::prefer(back, boost::asio::execution::outstanding_work.untracked);
                    d.keep = std::move(back);
                    boost::asio::post(there, std::move(d));
                }
                released->store(true, std::memory_order_release);
            });
    }

    boost::asio::thread_pool pool_;
};

}  // namespace candor::offload
