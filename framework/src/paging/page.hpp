// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: one page of a collection tool, in parts. `collection_tool::serve_as` (serve.cpp)
// checks the request, opens the walk, reads the source and records the evidence; what the
// source delivered is checked and shaped in page_items.cpp; the page's envelope, and how many
// items it keeps to fit its byte budget, in page_envelope.cpp.

#include <candor/envelope/envelope.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/paging/collection.hpp>
#include <candor/paging/cursor.hpp>
#include <candor/paging/source.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace candor::paging::detail {

/// The fields an item may be asked for: its schema's properties, in order; none when the schema
/// does not name them.
std::vector<std::string> item_fields(const collection_options& o);

/// The `page` extension: every page that is not an error says what it is, even when nothing
/// could be read. Built in `storage` (a tools/call page: one arena).
boost::json::object page_extension(const boost::json::storage_ptr& storage, std::size_t returned, std::size_t requested,
                                   const std::string& ordering, bool pinned, const std::string& snapshot);

/// `LIVE_VIEW`, on every page of a source that pins no snapshot.
envelope::warning live_warning();

/// What the source delivered for one page, and what the page learns from it.
struct delivered_items {
    std::vector<boost::json::value> items;
    boost::json::storage_ptr storage;
    // Or the items written already (fetch_result::items_written), with their keys.
    std::optional<json::written> written;
    std::vector<std::size_t> written_ends;
    std::vector<boost::json::value> written_keys;
    std::size_t keys_from = 0;   // the first item whose key is in written_keys
    bool order_checked = false;  // by the source (written_order_checked)
    std::size_t count = 0;       // items delivered
    std::size_t returned = 0;    // and the look-ahead item, if the source found one
    bool more = false;
    boost::json::array last_key;  // where the walk stands after this page
    // The delivered ids, for the evidence store only.
    std::vector<std::string> ids;
    // Each delivered item's key, kept when the page may be cut short to fit its byte budget.
    std::vector<boost::json::array> item_keys;
    // What each delivered item was (evidence::seen_as), for a source that fingerprints its items.
    std::vector<std::string> seen;
};

/// Take the items of `f`, the source's answer to a fetch of `effective` + 1 items (the last one
/// only looks ahead): as values, or written (only when the page asked for them so, `as_written`).
/// @throws std::logic_error when the source broke its contract (a bug, never a page)
void take_items(delivered_items& d, fetch_result& f, const ordering& order, std::size_t effective, bool as_written,
                bool keep_ids);

/// Check the keyset invariant of the delivered items (and the look-ahead one) after `after`,
/// the cursor's position, and note where the walk stands after the page, each delivered item's
/// id (`keep_ids`) and its key (`keep_keys`, for a page that may be cut short).
/// @throws std::logic_error when the source broke it
void check_keys(delivered_items& d, const boost::json::array& after, const ordering& order, bool keep_ids,
                bool keep_keys);

/// What each delivered item was, for an action's later check of it (`seen`).
void note_seen(delivered_items& d);

/// Cut the items down to `fields` (not empty).
void keep_fields(delivered_items& d, const std::vector<std::string>& fields);

/// Write the delivered items as one JSON array, so that a page held to a byte budget knows its
/// size item by item.
void write_items(delivered_items& d);

/// The key of the k-th delivered item (1-based; 0: `after`, where the walk stood).
boost::json::array key_at(const delivered_items& d, const boost::json::array& after, std::size_t k,
                          const ordering& order);

/// Put the first `keep` delivered items into `e`'s data; with `keep_ids`, keep the ids (and
/// what was seen) of those alone.
void put_items(delivered_items& d, envelope::envelope& e, std::size_t keep, bool keep_ids);

/// What a page's envelope says besides its items, whichever of them it keeps.
struct page_notes {
    const collection_tool& tool;
    const envelope::scope& scope;
    const page_request& request;
    const ordering& order;
    const std::string& order_text;
    std::size_t requested = 0;  // the page size
    /// Where the walk stood before this page.
    const cursor_claims& state;
    /// Where the page's extensions are built (where its query lives).
    const boost::json::storage_ptr& storage;
    /// The fields asked for (the ordering fields too); empty: every field.
    const std::vector<std::string>& kept_fields;
    std::uint64_t items_scanned = 0;
    bool pinned = false;
    bool hidden = false;
    bool unpinned = false;  // the page read current rows, not the walk's snapshot
    bool out_of_time = false;
    bool at_walk_limit = false;
    bool keep_ids = false;
};

/// The envelope of a page holding its first `kept` items, its cursor and the walk's state after
/// it.
struct assembled {
    envelope::envelope e;
    cursor_claims state;
    std::optional<std::string> cursor;
    bool ended = false;
    std::size_t kept = 0;
};

/// The page as it goes out: all the delivered items, or as many whole items as fit the request's
/// byte budget.
assembled fit_page(const page_notes& n, const delivered_items& d);

}  // namespace candor::paging::detail

namespace candor::paging {
// Both made in serve.cpp.
extern template boost::asio::awaitable<page> collection_tool::serve_as<page>(page_request);
extern template boost::asio::awaitable<envelope::envelope> collection_tool::serve_as<envelope::envelope>(page_request);
}  // namespace candor::paging
