// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A typed collection tool: the query is a described struct and the items are C++ values.
///
/// @code
/// struct ticket_query { std::optional<std::string> department; };
/// BOOST_DESCRIBE_STRUCT(ticket_query, (), (department))
///
/// struct tickets final : candor::paging::query_source<ticket_query, ticket> {
///     std::string_view name() const noexcept override { return "tickets"; }
///     candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
///     page_result fetch_matching(const ticket_query& q, const candor::paging::fetch_request& r) override {
///         page out;  // up to r.limit tickets after r.after that match q, in id order
///         …
///         co_return out;
///     }
/// };
///
/// candor::paging::add_collection(server, candor::mcp::tool_info("search_tickets", "Search tickets."),
///                                candor::paging::ordering{{"id"}}, std::make_shared<tickets>(), options).value();
/// @endcode
///
/// The tool's input schema is `contract<Query>`'s with the paging arguments added (`cursor`,
/// `page_size`, `deadline_ms` when enabled), its items' schema is generated from `Item`, and
/// the source receives the query checked and converted. Cursors, snapshot tokens, visibility
/// and the envelope stay the collection's (`collection_tool`, of which this is one). The query is
/// converted once per call: a walk that reads several pages in one call (`walk_all`) hands the
/// same `Query` to every `fetch_matching`.

#include <candor/contract/contract.hpp>
#include <candor/contract/output_schema.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/typed_tool.hpp>
#include <candor/paging/collection.hpp>
#include <candor/paging/typed_source.hpp>

#include <concepts>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace candor::paging {

namespace detail {

/// `info` with the query's contract as its input schema (the collection adds the paging
/// arguments to it).
/// @throws std::invalid_argument if `Query` has a member named like a paging argument
template <class Query>
mcp::tool_info with_query_contract(mcp::tool_info info, const contract::contract<Query>& query) {
    mcp::detail::declare_contract(info, query.schema(), query.version());
    if (const auto* props = info.input_schema.if_contains("properties"); props && props->is_object())
        for (std::string_view reserved : {arguments::cursor, arguments::page_size, arguments::deadline_ms})
            if (props->get_object().contains(reserved))
                throw std::invalid_argument("collection '" + info.name + "': the query has a member named '" +
                                            std::string(reserved) + "', which is a paging argument");
    return info;
}

}  // namespace detail

/// The author's side of a typed collection: `fetch_matching` receives the query as a `Query`
/// (its contract checked by the server before any cursor was opened) and returns typed items.
/// Everything else — `name`, `snapshots`, `open_snapshot`, the items as pointers
/// (`query_source<Query, const row*>`) — is as for a `typed_source<Item>`.
template <class Query, class Item>
class query_source : public typed_source<Item> {
public:
    using query_type = Query;
    using item_type = Item;
    /// A page of items, as `fetch_matching` builds it.
    using page = typed_page<Item>;
    /// What `fetch_matching` returns: the page, or why the source could not answer.
    using page_result = boost::asio::awaitable<boost::system::result<typed_page<Item>, source_error>>;

    /// @param contract_version the query contract's version (in the call journal)
    explicit query_source(std::string contract_version = "1") : query_(std::move(contract_version)) {}

    /// Up to `request.limit` items after `request.after` that match `query`, in key order.
    /// `request.query` is the same query as JSON.
    virtual page_result fetch_matching(const Query& query, const fetch_request& request) = 0;

    /// The query converted once, for the pages of a walk (`walk_all`).
    std::shared_ptr<const void> prepare(const boost::json::object& query) const final {
        auto converted = query_.convert(query);
        if (!converted) return nullptr;
        return std::make_shared<const Query>(std::move(*converted));
    }

    boost::asio::awaitable<boost::system::result<typed_page<Item>, source_error>> fetch_items(
        const fetch_request& request) final {
        if (request.prepared) co_return co_await fetch_matching(*static_cast<const Query*>(request.prepared), request);
        // The tool's input schema is this contract's: the server checked the query against it,
        // so the conversion only builds the C++ value. A query that does not convert here is a
        // bug (a tool mounted over another schema), and never reaches the source.
        auto query = query_.convert(request.query);
        if (!query)
            co_return source_error{
                source_error::kind::unavailable, "query_source: the query does not convert to its contract", {}};
        co_return co_await fetch_matching(*query, request);
    }

    const contract::contract<Query>& query_contract() const noexcept { return query_; }

private:
    contract::contract<Query> query_;
};

namespace detail {

/// The tool `make_collection` builds.
template <class Query, class Item>
class typed_collection final : public collection_tool {
public:
    typed_collection(mcp::tool_info info, ordering order, std::shared_ptr<query_source<Query, Item>> source,
                     collection_options opts)
        : collection_tool(detail::with_query_contract(std::move(info), checked(source)->query_contract()),
                          std::move(order), source, with_item_schema(std::move(opts))) {}

private:
    static const std::shared_ptr<query_source<Query, Item>>& checked(
        const std::shared_ptr<query_source<Query, Item>>& source) {
        if (!source) throw std::invalid_argument("a typed collection needs a data source");
        return source;
    }
    static collection_options with_item_schema(collection_options opts) {
        if (opts.item_schema == boost::json::value(true))
            opts.item_schema = contract::output_schema_of<typename detail::item_object<Item>::type>();
        return opts;
    }
};

}  // namespace detail

/// A collection tool over a `query_source<Query, Item>`: its input schema is the query's
/// contract plus the paging arguments, its `outputSchema`'s items are `Item`'s (unless
/// `opts.item_schema` says otherwise), and it is `read_only`.
/// @param info the tool; its input schema is replaced by the query's contract
/// @param order the total order; the last field is the unique key (and the evidence id)
/// @param source the items
/// @param opts paging, sealing and evidence, as for `collection_tool`
/// @throws std::invalid_argument as `collection_tool` does, or if `Query` has a member named
///         like a paging argument
template <class Source>
requires std::derived_from<Source, query_source<typename Source::query_type, typename Source::item_type>>
    std::shared_ptr<collection_tool> make_collection(mcp::tool_info info, ordering order,
                                                     std::shared_ptr<Source> source, collection_options opts = {}) {
    using query = typename Source::query_type;
    using item = typename Source::item_type;
    return std::make_shared<detail::typed_collection<query, item>>(
        std::move(info), std::move(order), std::shared_ptr<query_source<query, item>>(std::move(source)),
        std::move(opts));
}

/// Register `make_collection(info, order, source, opts)` with `srv`.
/// @return nothing, or why the server refused the tool (see `server::add_tool`)
template <class Source>
boost::system::result<void, mcp::registration_error> add_collection(mcp::server& srv, mcp::tool_info info,
                                                                    ordering order, std::shared_ptr<Source> source,
                                                                    collection_options opts = {}) {
    return srv.add_tool(make_collection(std::move(info), std::move(order), std::move(source), std::move(opts)));
}

}  // namespace candor::paging
