// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The collection tool: a searchable, pageable MCP tool over a `data_source`.
///
/// @code
/// auto keys = std::make_shared<const candor::seal::key_ring>(
///     candor::seal::key_ring::from_config(std::getenv("CANDOR_SEALING_KEYS")).value());
/// candor::paging::collection_options o;
/// o.keys = keys;
/// o.evidence = candor::evidence::make_memory_store();
/// server.add_tool(std::make_shared<candor::paging::collection_tool>(
///     candor::mcp::tool_info("list_accounts", "Lists service accounts").with_input_schema(filter_schema),
///     candor::paging::ordering{{"id"}}, std::make_shared<accounts_source>(db), o)).value();
/// @endcode
///
/// The framework adds the paging arguments to the tool's schema — `page_size` (1..max,
/// default `default_page_size`), `cursor`, and `deadline_ms` when enabled — and answers each
/// call with one page: `data` is the item array, the extension `page` is
/// `{returned, requested_size, ordering, snapshot}`, and the reasons say why a page is not the
/// whole answer (`MORE_PAGES_AVAILABLE` with a `next_cursor`, `RESULT_LIMIT_REACHED`,
/// `TIME_BUDGET_EXCEEDED`, `RATE_LIMITED`, `SOURCE_UNAVAILABLE`, `VISIBILITY_RESTRICTED`, and
/// `RESULT_SIZE_LIMIT` when the page ends early to fit the call's byte budget).
/// It fetches one item more than the page size, so a page that is exactly full but last is
/// complete. Cursor problems are error envelopes: `CURSOR_INVALID`, `CURSOR_MISMATCH`,
/// `CURSOR_EXPIRED` (with `continuation: {kind: "restart"}`). The envelope that ends a walk
/// over a pinned snapshot carries a `snapshot_token` (when an evidence store is configured).

#include <candor/envelope/envelope.hpp>
#include <candor/evidence/store.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/paging/cursor.hpp>
#include <candor/paging/source.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::paging {

/// Codes this module adds (documented in docs/envelope.md).
namespace codes {
inline constexpr std::string_view cursor_invalid = "CURSOR_INVALID";
inline constexpr std::string_view cursor_mismatch = "CURSOR_MISMATCH";
inline constexpr std::string_view cursor_expired = "CURSOR_EXPIRED";
inline constexpr std::string_view snapshot_expired = "SNAPSHOT_EXPIRED";
inline constexpr std::string_view live_view = "LIVE_VIEW";
}  // namespace codes

/// Names of the paging arguments (excluded from the normalized query).
namespace arguments {
inline constexpr std::string_view cursor = "cursor";
inline constexpr std::string_view page_size = "page_size";
inline constexpr std::string_view deadline_ms = "deadline_ms";
/// The item fields to return (the ordering fields always come too), for a collection whose
/// `item_schema` names its properties.
inline constexpr std::string_view fields = "fields";
/// The ordering to walk in, by name, for a collection that offers several
/// (`collection_options::orders`). Part of the query: a cursor is bound to it.
inline constexpr std::string_view order_by = "order_by";
}  // namespace arguments

/// An ordering a caller may choose by name (`order_by`).
struct named_ordering {
    std::string name{};
    ordering order{};
};

using steady_time = std::chrono::steady_clock::time_point;

struct collection_options {
    /// Orderings the caller may choose with the argument `order_by` (an enum of their names; the
    /// source must follow `fetch_request::order`); without `order_by` a walk goes by the
    /// tool's own ordering. Each ends with the unique field.
    std::vector<named_ordering> orders{};
    std::size_t default_page_size = 20;
    std::size_t max_page_size = 100;
    /// How long a cursor stays valid after its page (`CURSOR_EXPIRED` after).
    std::chrono::seconds cursor_ttl{15 * 60};
    /// How long a snapshot token and its evidence set stay valid.
    std::chrono::seconds token_ttl{15 * 60};
    /// Server-side limit on the items one walk may deliver (`RESULT_LIMIT_REACHED`); none if unset.
    std::optional<std::uint64_t> max_walk_items{};
    /// Accept `deadline_ms` (1..max_deadline_ms) as an argument.
    bool accept_deadline = false;
    std::uint64_t max_deadline_ms = 60'000;
    /// Kept free before the call's own deadline, so that a slow source still comes back with
    /// `TIME_BUDGET_EXCEEDED` and its items instead of being cut off by `DEADLINE_EXCEEDED`.
    std::chrono::milliseconds deadline_margin{50};
    /// Seals cursors and tokens. Required.
    std::shared_ptr<const seal::key_ring> keys{};
    /// Where delivered ids of pinned walks go; without one, no snapshot tokens are issued.
    std::shared_ptr<evidence::evidence_store> evidence{};
    /// How often (at most) a page also purges the store of expired and abandoned walks.
    std::chrono::seconds evidence_purge_interval{60};
    /// Wall clock for cursor and token times; defaults to `system_clock::now`.
    std::function<wall_time()> wall_clock{};
    /// Monotonic clock for deadlines; defaults to `steady_clock::now`.
    std::function<steady_time()> steady_clock{};
    /// JSON Schema of one item (`data` is an array of them).
    boost::json::value item_schema = true;
    /// Checks the query (the arguments without the paging controls) beyond the schema, before
    /// any cursor is opened or anything read — e.g. a filter language's rules. Issues make an
    /// error envelope (their paths point into the arguments). Optional.
    std::function<issue_list(const boost::json::object& query)> check_query{};
};

/// One page asked for in-process (by `call`, or by an aggregation).
struct page_request {
    /// The normalized query (arguments without the paging controls).
    boost::json::object query{};
    std::optional<std::string> cursor{};
    std::optional<std::size_t> page_size{};
    mcp::principal caller{};
    steady_time deadline = steady_time::max();
    /// The page goes straight to the wire: a source may write its items as text, and the
    /// envelope then carries them in `data_written` (read them with `envelope::data_value`).
    bool written = false;
    /// The byte budget of the response the page goes out in (`call_context::budget`): the
    /// page ends at the last whole item that fits (`RESULT_SIZE_LIMIT`, `returned`, and a cursor
    /// right after it on the same snapshot); the evidence holds the items sent, no others.
    std::optional<mcp::result_budget> budget{};
    /// With a budget, a page none of whose items fits ends empty (`RESULT_SIZE_LIMIT` with
    /// `returned: 0`, its cursor where the walk stood) instead of sending one item over it —
    /// for an aggregation that already holds items. Without it a page always moves a walk on.
    bool may_be_empty = false;
    /// The item fields asked for (`fields`; the ordering fields come too); none: every field.
    /// Not part of the query: a walk may ask for other fields on each page.
    std::optional<std::vector<std::string>> fields{};
    /// What the collection's source made of `query` (`collection_tool::prepare`), for a walk
    /// that reads several pages of one query; empty: nothing prepared.
    std::shared_ptr<const void> prepared{};
};

/// One page and what a caller walking on needs to know about it.
struct page {
    /// The page's envelope, exactly as the tool returns it.
    envelope::envelope result{};
    /// The cursor to continue from, when the walk can go on from here.
    std::optional<std::string> next_cursor{};
    /// The page reached the end of the collection (no more items in scope).
    bool ended = false;
    std::uint64_t items_scanned = 0;
    /// The walk's state after this page (absent on cursor errors).
    std::optional<cursor_claims> state{};
};

class collection_tool : public mcp::json_tool {
public:
    /// @param info the tool; its input schema declares the query arguments (an object schema
    ///        whose `properties` get the paging arguments added); its action class is set to
    ///        `read_only` (a collection only reads)
    /// @param order the total order; the last field is the unique key (and the evidence id)
    /// @throws std::invalid_argument without keys, with an empty ordering, or bad page sizes
    collection_tool(mcp::tool_info info, ordering order, std::shared_ptr<data_source> source, collection_options opts);

    boost::asio::awaitable<envelope::envelope> call(const boost::json::object& arguments, mcp::call_context& ctx) final;

    /// One page, for in-process callers.
    boost::asio::awaitable<page> serve(page_request request);
    /// What the source makes of `query` once for several pages (`page_request::prepared`).
    std::shared_ptr<const void> prepare(const boost::json::object& query) const { return source_->prepare(query); }

    /// A token for a walk that an aggregation stopped before its end: marked incomplete with
    /// `reasons`, so that an evidence-gated action refuses it with `EVIDENCE_INCOMPLETE`.
    /// Nothing for live sources or without an evidence store.
    std::optional<std::string> seal_stopped_walk(const cursor_claims& state, std::vector<std::string> reasons) const;

    const ordering& order() const noexcept { return order_; }
    const data_source& source() const noexcept { return *source_; }
    const collection_options& options() const noexcept { return opts_; }

    wall_time wall_now() const { return opts_.wall_clock(); }
    steady_time steady_now() const { return opts_.steady_clock(); }

private:
    ordering order_;
    std::string order_text_;
    /// `opts_.orders`' texts (as `order_text_`), made once.
    std::vector<std::string> orders_text_;
    std::shared_ptr<data_source> source_;
    collection_options opts_;
    /// When this tool last purged the evidence store (epoch ms).
    std::atomic<std::int64_t> last_purge_ms_{0};

    /// Whether this page should also purge the evidence store (at most once per interval).
    bool purge_due(wall_time now);
    /// `serve`, returning the page (`page`) or only its envelope (`envelope::envelope`).
    template <class Result>
    boost::asio::awaitable<Result> serve_as(page_request request);
};

/// `scope.visibility` for a principal: "principal:<id>", or "anonymous".
std::string visibility_of(const mcp::principal& p);

}  // namespace candor::paging
