// SPDX-License-Identifier: BSL-1.0
#pragma once
// Blocking work of the HTTP transport (shared session records, the event log) run on a
// `offload::worker` and waited for at most a timeout. Private to the transport module.

#include <candor/offload/worker.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace candor::transport::detail {

/// Run `work` on `worker`, waiting at most `timeout`. Call it from a strand.
/// @return its result, or nothing when it was late or threw (the work itself runs on to its
/// end: it owns what it uses)
template <class F>
boost::asio::awaitable<std::optional<std::invoke_result_t<F&>>> bounded(offload::worker& worker,
                                                                        std::chrono::milliseconds timeout, F work) {
    using namespace boost::asio::experimental::awaitable_operators;
    using R = std::invoke_result_t<F&>;
    std::optional<R> out;
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, timeout);
    try {
        auto run = worker.run_cancellable(std::move(work));
        auto late = timer.async_wait(boost::asio::use_awaitable);
        auto first = co_await (std::move(run) || std::move(late));
        if (first.index() == 0) out.emplace(std::move(std::get<0>(first)));
    } catch (const std::exception&) {
        // The work threw: as good as no answer.
    }
    co_return out;
}

}  // namespace candor::transport::detail
