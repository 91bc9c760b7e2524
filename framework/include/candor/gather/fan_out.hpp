// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Fan-out: ask several sources at once, each under its own deadline, and keep what arrived.
///
/// Every source runs concurrently as its own coroutine on the caller's executor, raced
/// against its own timer (no thread is blocked; a late source is cancelled through its
/// cancellation slot). The result keeps the data of every source that answered
/// (`data: {source: data}`), carries one `SOURCE_UNAVAILABLE` reason per source that failed,
/// answered with an error envelope, or was late (`source` names it, `cause` says which), passes
/// on the reasons and warnings of sources that answered partially (adding `source`), and is
/// `complete` only if every source answered completely.
///
/// Run it from a coroutine on a strand or a single-threaded executor (a tool call's executor
/// is the connection's strand): the join state is not locked.

#include <candor/envelope/envelope.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace candor::gather {

struct source {
    /// Names the source in the data and in reasons.
    std::string name;
    /// How long this source may take.
    std::chrono::milliseconds deadline{1000};
    /// The source's call; an exception or an error envelope counts as a failure.
    std::function<boost::asio::awaitable<envelope::envelope>()> call;
};

/// Ask every source concurrently and join. @return the combined envelope
boost::asio::awaitable<envelope::envelope> fan_out(std::vector<source> sources);

}  // namespace candor::gather
