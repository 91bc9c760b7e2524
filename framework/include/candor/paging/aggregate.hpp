// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Aggregation inside one tool call: walk a collection's pages under the caller's limits.
///
/// `walk_all` asks page after page of a `collection_tool` (in-process, no MCP round trip) and
/// stops at the end of the collection, at `max_pages`/`max_items` (`CLIENT_PAGE_LIMIT`, with
/// the inner cursor as `next_cursor`, so the walk resumes exactly where it stopped), at the
/// deadline (`TIME_BUDGET_EXCEEDED` with `pages` and `items_scanned`), or at the first page
/// that cannot be continued at once (rate limit, failed source: their reasons and
/// continuation are passed on). Every inner reason except `MORE_PAGES_AVAILABLE` reaches the
/// outer envelope (once per code), so the wrapper never hides an inner gap, and the gap the
/// wrapper itself creates is the outer envelope's own reason.
///
/// Held to a byte budget (`walk_request::budget`, from `call_context::budget`), the walk ends
/// at the last whole item that fits the response: each page is asked with the room the items
/// gathered so far leave, a page cut to that room ends the walk with `RESULT_SIZE_LIMIT`
/// `{limit, returned}` (the items of the whole walk), and `next_cursor` resumes right after the
/// last item delivered, on the same snapshot.

#include <candor/envelope/envelope.hpp>
#include <candor/paging/collection.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace candor::paging {

struct walk_limits {
    std::size_t max_pages = 10;
    std::size_t max_items = 10'000;
    /// Page size asked of the collection (the last page is shrunk to respect `max_items`).
    std::size_t page_size = 50;
};

struct walk_request {
    boost::json::object query{};
    /// Resume a walk (`continuation.cursor` of an earlier aggregation or page).
    std::optional<std::string> cursor{};
    mcp::principal caller{};
    steady_time deadline = steady_time::max();
    walk_limits limits{};
    /// The byte budget of the response the walk goes out in (`call_context::budget()`); none:
    /// the walk is bounded by its limits alone (and the framework cuts its strings if it must).
    std::optional<mcp::result_budget> budget{};
};

/// Walk the collection. `data` is the concatenation of the pages' items; the extension `walk`
/// is `{pages, items_scanned}`; the envelope that ends a pinned walk carries the last page's
/// `snapshot_token`, and a walk stopped by the caller's limits carries an incomplete one.
/// Cursor errors of the first page are returned as they are; a cursor error later in the walk
/// (e.g. `CURSOR_EXPIRED` mid-walk) is returned as that error envelope — the items read so far
/// are dropped rather than merged with a restarted walk.
boost::asio::awaitable<envelope::envelope> walk_all(collection_tool& collection, walk_request request);

}  // namespace candor::paging
