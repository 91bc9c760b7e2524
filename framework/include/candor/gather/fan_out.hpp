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
/// Held to a byte budget (`call_context::budget()`), a result that would not fit loses whole
/// items from the end of the sources' lists — always from the source holding the most bytes —
/// until it fits; each source cut so gets a `RESULT_SIZE_LIMIT` reason `{source, limit,
/// returned}`, and the continuation asks for a narrower query (the rest of a source is read from
/// that source, whose own continuation no longer applies to the items left out). Data that is
/// not a list is never cut here (the framework cuts its strings if it must).
///
/// Run it from a coroutine on a strand or a single-threaded executor (a tool call's executor
/// is the connection's strand): the join state is not locked.

#include <candor/envelope/envelope.hpp>
#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace candor::gather {

struct source {
    /// Names the source in the data and in reasons.
    std::string name{};
    /// How long this source may take.
    std::chrono::milliseconds deadline{1000};
    /// The source's call; an exception or an error envelope counts as a failure.
    std::function<boost::asio::awaitable<envelope::envelope>()> call{};
};

/// Ask every source concurrently and join, within `budget` when there is one.
/// @return the combined envelope
boost::asio::awaitable<envelope::envelope> fan_out(std::vector<source> sources,
                                                   std::optional<mcp::result_budget> budget = {});

}  // namespace candor::gather
