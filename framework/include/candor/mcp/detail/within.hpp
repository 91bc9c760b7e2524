// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// One operation raced against its own deadline: the framework's single rule for a source, an
/// external check or a fan-out branch that may fail or be late.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <utility>

namespace candor::mcp::detail {

/// How a raced operation ended: its value, or nothing when it failed or was late.
template <class T>
struct timed {
    std::optional<T> value;
    /// The deadline came first (the operation was cancelled and awaited).
    bool timed_out = false;
};

/// The operation's value, or nothing when it ended with any exception, `operation_aborted`
/// included. `||` completes on the first operand that ends without an exception, so an operand
/// that rethrew would make a failed operation wait out its deadline and be reported late. When
/// the timer wins, the operation's cancellation ends here and is discarded with it.
template <class T>
boost::asio::awaitable<std::optional<T>> failure_as_nothing(boost::asio::awaitable<T> op) {
    try {
        co_return co_await std::move(op);
    } catch (const std::exception&) {
        co_return std::nullopt;
    }
}

/// Race `op` against `deadline`; the loser is cancelled (through its cancellation slot) and
/// awaited. A failure of `op` is `value` empty with `timed_out` false. The caller's own
/// cancellation still ends the race (the timer's wait throws).
/// @param op the operation; it must honour cancellation (every Asio operation does)
/// @param deadline how long it may take
/// @return its value, or why not
template <class T>
boost::asio::awaitable<timed<T>> within(boost::asio::awaitable<T> op, std::chrono::steady_clock::duration deadline) {
    using namespace boost::asio::experimental::awaitable_operators;
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, deadline);
    auto r = co_await (failure_as_nothing(std::move(op)) || timer.async_wait(boost::asio::use_awaitable));
    timed<T> out;
    if (r.index() == 0) out.value = std::move(std::get<0>(r));
    else out.timed_out = true;
    co_return out;
}

}  // namespace candor::mcp::detail
