// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The data-source interface behind a collection tool: the one method an author implements.
///
/// A source answers "up to N items after this key, for this query, in this snapshot, as this
/// principal sees them". Everything else — page sizes, look-ahead, cursors, reasons, the
/// envelope, snapshot tokens — is the framework's (`collection_tool`). The interface is shaped
/// so that a SQL table implements it with one keyset query:
///
///     SELECT … FROM t WHERE <filter> AND <visible to principal> AND <row in snapshot>
///       AND (k1, k2) > (?, ?) ORDER BY k1, k2 LIMIT ?
///
/// and `hidden_in_scope` with one `EXISTS` over the same filter without the visibility term.
///
/// Order: ascending on every ordering field; the last field is unique, so the order is total.
/// Keys compare as `compare_keys` says — null < booleans < numbers (numerically) < strings
/// (bytewise, SQLite's BINARY collation) — and a source must order the same way; the framework
/// checks that every page is strictly increasing and treats a violation as a bug.

#include <candor/json/write.hpp>
#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace candor::paging {

/// How a source reads across pages (`scope.snapshot`).
enum class snapshot_mode {
    /// Every page of a walk reads the same snapshot, captured at the first page (a version or
    /// sequence number). A complete walk is a complete inventory and earns a snapshot token.
    pinned,
    /// Keyset over changing data: no item twice, but rows inserted behind the position are
    /// missed. Never claims a snapshot; every page carries the warning `LIVE_VIEW`.
    live,
};

/// "pinned" or "live".
std::string_view to_string(snapshot_mode m) noexcept;

/// The total order of a collection: item fields, the last one unique.
struct ordering {
    std::vector<std::string> fields{};
    /// Per field, whether it is walked descending (the last field, the unique one, too); empty:
    /// all ascending. Null sorts first ascending and last descending (`compare_keys`).
    std::vector<bool> descending{};
    /// "f1,-f2,…" (a descending field with a '-') — shown in `page.ordering` and bound into cursors.
    std::string to_string() const;
    bool descends(std::size_t field) const noexcept { return field < descending.size() && descending[field]; }
};

/// -1, 0 or 1: the order of two keys (arrays of scalars, compared field by field).
int compare_keys(const boost::json::array& a, const boost::json::array& b) noexcept;
/// The same for keys held as runs of values.
int compare_keys(std::span<const boost::json::value> a, std::span<const boost::json::value> b) noexcept;
/// The order of two keys under `order`: field by field, a descending field's comparison reversed.
int compare_keys(std::span<const boost::json::value> a, std::span<const boost::json::value> b,
                 const ordering& order) noexcept;

/// One fetch. The references live as long as the call.
struct fetch_request {
    /// The normalized query: the tool's arguments without the paging controls.
    const boost::json::object& query;
    /// The key of the last item delivered; null for the first page.
    const boost::json::array* after = nullptr;
    /// Return at most this many items (the framework asks one more than the page size, to know
    /// whether the page is the last without a second round trip).
    std::size_t limit = 0;
    /// The pinned snapshot id from `open_snapshot`; empty for live sources, and for a pinned
    /// source that pins at its first read until a fetch has said what it pinned
    /// (`fetch_result::snapshot`).
    const std::string& snapshot;
    const mcp::principal& caller;
    /// Stop when past this and return what was found with `out_of_time` set.
    std::chrono::steady_clock::time_point deadline{};
    /// Set when the page goes straight to the wire (a `tools/call`): the items will only be
    /// serialized, so a source may answer with `items_written` instead of `items` (typed
    /// sources do). These are the ordering fields whose values it then reports per item.
    const std::vector<std::string>* written_keys = nullptr;
    /// With `written_keys`: whether the key of every item is wanted (the collection keeps the
    /// ids of a pinned walk's items as evidence) or only those of the last two items (the page
    /// ends at one of them). A source may answer the latter only if it checked the order of its
    /// items itself (`fetch_result::written_order_checked`).
    bool every_written_key = true;
    /// The walk's ordering: the collection's own, or one its caller chose (`order_by`, from
    /// `collection_options::orders`). A source offered alternatives follows it; items come in
    /// its order, each after `after` under it.
    const ordering* order = nullptr;
    /// What this source's `prepare` made of `query`, when the caller prepared it; else null.
    const void* prepared = nullptr;
};

/// What a fetch found.
struct fetch_result {
    /// Items in ascending key order, each after `request.after`, at most `limit`. Each item is
    /// an object holding every ordering field (the unique one becomes the item's evidence id).
    std::vector<boost::json::value> items{};
    /// Instead of `items`, when `request.written_keys` is set: the same items written as one
    /// JSON array (`[` item `,` item … `]`, the way `json::write` writes it), with
    /// `written_ends[i]` the offset just past item i and `written_keys` holding each item's
    /// values of the requested ordering fields, item after item.
    std::optional<json::written> items_written{};
    std::vector<std::size_t> written_ends{};
    std::vector<boost::json::value> written_keys{};
    /// Set with `items_written` by a source that checked, itself, what the collection would
    /// check on every key: the items' keys strictly increasing, the first after
    /// `request.after` (typed sources do, on the C++ members, when not every key is wanted).
    /// `written_keys` then holds the keys of the last two items only (all when fewer).
    bool written_order_checked = false;
    /// Where `items` live, when the source built them in an arena of their own (a shared
    /// storage, e.g. `boost::json::make_shared_resource<monotonic_resource>()`): the page and
    /// the envelope around them are then built in it too, and freed at once. Default: the heap.
    boost::json::storage_ptr storage{};
    /// The deadline stopped the scan: `items` is a correct prefix, but not everything.
    bool out_of_time = false;
    /// Rows examined (for `TIME_BUDGET_EXCEEDED`'s `items_scanned`); 0 if unknown.
    std::uint64_t items_scanned = 0;
    /// Some rows in the requested scope are hidden from this principal (`VISIBILITY_RESTRICTED`).
    /// Say only that they exist — never which.
    bool hidden_in_scope = false;
    /// The page read the current rows, not the walk's snapshot (a source that could not pin
    /// this walk and was allowed to go on): `SNAPSHOT_NOT_PINNED` on the page, and the walk's
    /// token is incomplete, so it never justifies a destructive action.
    bool unpinned = false;
    /// The snapshot this fetch pinned, when `request.snapshot` was empty on a pinned source
    /// (see `data_source::open_snapshot`): every later page of the walk reads it. A fetch that
    /// delivered nothing and ran out of time may leave it empty: the next fetch pins instead.
    std::string snapshot{};
};

/// Why a fetch could not answer.
struct source_error {
    enum class kind {
        unavailable,    ///< the backend failed (`SOURCE_UNAVAILABLE`)
        rate_limited,   ///< the backend refused for now (`RATE_LIMITED`, `retry_after`)
        snapshot_gone,  ///< the pinned snapshot is no longer readable (`CURSOR_EXPIRED`, restart)
        /// The view that held the walk's snapshot ended — too old, too many held, its holder
        /// gone with its process — or none could be held for a new walk (`SNAPSHOT_EXPIRED`,
        /// restart): never a page read outside the snapshot.
        snapshot_expired,
    };
    kind what = kind::unavailable;
    /// For the server log only (never shown to the caller).
    std::string message{};
    std::chrono::milliseconds retry_after{1000};
};

/// The author's side of a collection.
class data_source {
public:
    virtual ~data_source() = default;

    /// Names the source in `SOURCE_UNAVAILABLE` and logs.
    virtual std::string_view name() const noexcept = 0;
    virtual snapshot_mode snapshots() const noexcept = 0;
    /// Whether other programs change this source's objects behind its back (a table Candor does
    /// not own): a pinned walk's evidence then holds, beside each id, what the object was when
    /// delivered (`evidence::seen_as` of the item's JSON), so that an action can refuse an object
    /// that changed since (`TARGET_CHANGED`). Default: no.
    virtual bool fingerprints_items() const noexcept { return false; }

    /// Capture the snapshot a new walk will read (pinned sources): e.g. the current version.
    /// The default (live sources) captures nothing. A pinned source whose data query can read
    /// the current version itself may return an empty id instead: the first fetch then pins, in
    /// the same statement as its data, and returns the id in `fetch_result::snapshot` — one
    /// round trip less on every walk's first page. Until a fetch delivered an item the walk has
    /// seen nothing, so pinning later than the walk's start loses nothing.
    virtual boost::asio::awaitable<boost::system::result<std::string, source_error>> open_snapshot(
        const boost::json::object& query, const mcp::principal& caller);

    /// What this source makes of a query once for all the pages of a walk that one call reads
    /// (`walk_all`), handed to each fetch as `fetch_request::prepared` (a typed source: the query
    /// converted to its `Query`). Default: nothing; a single page's fetch gets null.
    virtual std::shared_ptr<const void> prepare(const boost::json::object& query) const;

    /// Up to `request.limit` items after `request.after`. The one method every source writes.
    virtual boost::asio::awaitable<boost::system::result<fetch_result, source_error>> fetch(
        const fetch_request& request) = 0;

    /// A walk over `snapshot` delivered its last page: what holds the snapshot may be let go
    /// (a re-read of that page with its cursor may then answer `snapshot_expired`). Called on
    /// the caller's strand: hand blocking work to a worker. The default does nothing.
    virtual void walk_ended(const std::string& snapshot);
};

}  // namespace candor::paging
