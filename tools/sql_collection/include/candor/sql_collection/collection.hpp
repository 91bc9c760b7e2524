// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Mount a SQL table as a searchable, pageable collection tool in one registration call.
///
/// @code
/// candor::sql_collection::collection_spec spec;
/// spec.table = tickets_table;                       // fields, key; created with create_table
/// spec.limits = {.max_depth = 2, .max_nodes = 60};
/// server.add_tool(candor::sql_collection::make_collection(
///     db, std::move(spec),
///     candor::mcp::tool_info("search_tickets", "Search helpdesk tickets."), paging_options)).value();
/// @endcode
///
/// The tool takes `filter` (the filter language of filter.hpp), `page_size`, `cursor` (and
/// `deadline_ms` when the paging options accept it). Pages are keyset pages ordered by the
/// table's key, over a pinned snapshot — the change-sequence layout of table.hpp for a table
/// `create_table` made, a held read view (`store::read_views`) for a table other programs write
/// (`table_layout::foreign`) — so a complete walk earns a snapshot token. A visibility filter per principal restricts what a caller
/// sees; when it hides rows that the query would otherwise match, every page says
/// `VISIBILITY_RESTRICTED` (never which rows).
///
/// The source's statements run on a `offload::worker` (`collection_spec::worker`), never on the
/// caller's strand: `sql_database` blocks (SQLite on its lock and the disk, PostgreSQL until
/// the pool's I/O thread has the answer, and it refuses to be called on that thread).

#include <candor/contract/contract.hpp>
#include <candor/offload/worker.hpp>
#include <candor/paging/collection.hpp>
#include <candor/paging/source.hpp>
#include <candor/paging/typed_collection.hpp>
#include <candor/sql_collection/database.hpp>
#include <candor/sql_collection/filter.hpp>
#include <candor/sql_collection/table.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace candor::sql_collection {

/// How a walk over a foreign table is pinned (`collection_spec::pin`).
enum class pin_policy {
    /// Every page reads the walk's snapshot; when no view can be held (as many are held as
    /// allowed) or the walk's view has ended, the page answers `SNAPSHOT_EXPIRED` with a
    /// `restart` continuation — never a page read outside the snapshot.
    required,
    /// As `required` while views can be held; a walk that cannot get one (as many are held as
    /// allowed, or the server will not export a snapshot) reads the current rows on every page,
    /// each saying `SNAPSHOT_NOT_PINNED` (and its token is incomplete).
    best_effort,
};

/// A field of an ordering, and its direction.
struct sort_field {
    std::string field{};
    bool descending = false;
};

/// An ordering of the collection (keyset pages go by it): its fields in order, each ascending or
/// descending; the table's key is added last (ascending) unless listed. A nullable field's null
/// sorts first ascending and last descending, on both engines.
struct table_order {
    /// The value of `order_by` that chooses it.
    std::string name{};
    std::vector<sort_field> fields{};
};

struct collection_spec {
    table_spec table{};
    /// The orderings a walk may go by: the first is the default; with more than one the tool
    /// takes `order_by` (an enum of their names; a cursor keeps its walk's). Empty: the key,
    /// ascending.
    std::vector<table_order> orders{};
    filter_limits limits{};
    /// The rows a principal may see, as a filter over the table (trusted: written by the
    /// server author); nothing: every row. Unset: every principal sees every row.
    std::function<std::optional<boost::json::value>(const mcp::principal&)> visibility{};
    /// Name of the filter argument added to the tool's schema; empty: none (then
    /// `query_filter` derives the filter from the tool's own arguments).
    std::string filter_argument = "filter";
    /// The filter for a query (the arguments without paging controls). Default: the
    /// `filter_argument` member, or `{}` when absent. A custom one is trusted like `visibility`.
    std::function<boost::json::value(const boost::json::object& query)> query_filter{};
    /// Names the source in `SOURCE_UNAVAILABLE` (default: the table name).
    std::string source_name{};
    /// Runs the source's statements. Default: a worker of one thread of the source's own, so a
    /// collection works as it is; a server with several SQL tools passes one worker to all
    /// (one thread for SQLite's one connection, about as many as the pool has connections for
    /// PostgreSQL). A page waits for its statements until its deadline: a statement still
    /// running then makes the page end `TIME_BUDGET_EXCEEDED` with no more rows (it finishes
    /// on the worker and its rows are dropped); a cancelled wait is `SOURCE_UNAVAILABLE`.
    std::shared_ptr<offload::worker> worker{};
    /// Foreign tables: how a walk is pinned, and the bounds of the views held for walks
    /// (`max_held` per process, `max_age`; see `store::read_views`).
    pin_policy pin = pin_policy::required;
    store::read_view_options views{};
    /// Views one principal may hold at once; past it, that principal's oldest walk loses its
    /// view (its next page: `SNAPSHOT_EXPIRED`), so that nobody's abandoned walks take the
    /// views others need.
    std::size_t max_views_per_principal = 8;
};

/// The data source of a SQL collection (usable on its own, e.g. under `gather::fan_out`).
class sql_source final : public paging::data_source {
public:
    /// With `table_layout::detect`, asks the database once (so call it at startup, off any I/O
    /// thread) whether `create_table` made the table.
    /// @throws std::invalid_argument for a bad spec, or a foreign table with `pin_policy::required`
    ///         on a database without read views (an in-memory SQLite database)
    /// @throws std::runtime_error when the database cannot say whether the table is versioned
    sql_source(std::shared_ptr<sql_database> db, collection_spec spec);

    std::string_view name() const noexcept override { return name_; }
    paging::snapshot_mode snapshots() const noexcept override { return paging::snapshot_mode::pinned; }
    /// A foreign table's rows change behind its back: its walks' evidence says what each row was.
    bool fingerprints_items() const noexcept override { return foreign_; }
    boost::asio::awaitable<boost::system::result<std::string, paging::source_error>> open_snapshot(
        const boost::json::object& query, const mcp::principal& caller) override;
    boost::asio::awaitable<boost::system::result<paging::fetch_result, paging::source_error>> fetch(
        const paging::fetch_request& request) override;
    /// A foreign table's walk ended: its view is closed (on the worker).
    void walk_ended(const std::string& snapshot) override;

    /// The filter check the tool runs before any page (issues point under `/filter`).
    issue_list check(const boost::json::object& query) const;
    const collection_spec& spec() const noexcept { return spec_; }

    /// The orderings as the paging layer names them (the first the default; see
    /// `collection_spec::orders`).
    std::vector<paging::named_ordering> orderings() const;
    /// Whether the table is read as a foreign one (see `table_layout`).
    bool foreign() const noexcept { return foreign_; }
    /// The views held for walks over a foreign table (null for a versioned one, or when the
    /// database has none and the policy is `best_effort`).
    const std::shared_ptr<store::read_views>& views() const noexcept { return views_; }

private:
    std::shared_ptr<sql_database> db_;
    collection_spec spec_;
    std::string name_;
    std::string columns_;
    /// The orderings (the first the default), each with its SQL, made once.
    struct prepared_order {
        std::string name;
        paging::ordering order;
        std::vector<std::size_t> fields;   // the ordering's fields, as indexes into the table's
        std::vector<std::string> columns;  // each as SQL (with a byte-wise collation where needed)
        std::string order_by;              // the ORDER BY list
    };
    std::vector<prepared_order> orders_;
    bool foreign_ = false;
    std::shared_ptr<store::read_views> views_;
    /// Which principal holds which view (for `max_views_per_principal`).
    struct view_ledger;
    std::shared_ptr<view_ledger> ledger_;

    sql_condition compile_trusted_or_checked(const boost::json::object& query) const;
};

/// The collection tool: `info`'s input schema gets `filter` (described from the table),
/// `opts` gets the filter check and the item schema, the ordering is the table's key.
std::shared_ptr<paging::collection_tool> make_collection(std::shared_ptr<sql_database> db, collection_spec spec,
                                                         mcp::tool_info info, paging::collection_options opts);

/// The collection tool with a typed query instead of the `filter` argument: `info`'s input
/// schema is `contract<Query>`'s (plus the paging arguments), and `filter_of` turns the checked,
/// converted query into the filter (trusted, like `visibility`). `contract_version` names the
/// query's contract in the call journal.
///
/// @code
/// struct accounts_query { std::optional<bool> owner_missing; };
/// BOOST_DESCRIBE_STRUCT(accounts_query, (), (owner_missing))
/// auto tool = make_collection<accounts_query>(db, std::move(spec), info, opts,
///     [](const accounts_query& q) -> boost::json::value {
///         if (!q.owner_missing) return boost::json::object{};
///         return boost::json::object{{"owner", nullptr}};
///     });
/// @endcode
/// @throws std::invalid_argument as the untyped form, or if `Query` has a member named like a
///         paging argument
template <class Query>
std::shared_ptr<paging::collection_tool> make_collection(std::shared_ptr<sql_database> db, collection_spec spec,
                                                         mcp::tool_info info, paging::collection_options opts,
                                                         std::function<boost::json::value(const Query&)> filter_of,
                                                         std::string contract_version = "1") {
    if (!filter_of) throw std::invalid_argument("sql_collection: make_collection<Query> needs a filter function");
    auto query = std::make_shared<const contract::contract<Query>>(std::move(contract_version));
    info = paging::detail::with_query_contract(std::move(info), *query);
    spec.filter_argument.clear();
    spec.query_filter = [query, f = std::move(filter_of)](const boost::json::object& q) -> boost::json::value {
        // The server checked the arguments against this contract before any page, so this only
        // builds the C++ value; a query that does not convert is a bug (and an error envelope).
        auto converted = query->convert(q);
        if (!converted) throw std::logic_error("sql_collection: a query does not convert to its contract");
        return f(*converted);
    };
    return make_collection(std::move(db), std::move(spec), std::move(info), std::move(opts));
}

/// The ids among `ids` whose row changed since the walk `walk` over a foreign table delivered it
/// — a value differs, or the row is gone — by what that walk's evidence says it was
/// (`evidence::seen_as`): what an evidence-gated action over such a table skips with
/// `TARGET_CHANGED` instead of acting on an object the user never saw. One statement for the
/// current rows and one call to the store: run it on a worker.
/// @param unchanged when given, gets the rows of the other ids as they are (and as the walk
///        delivered them), as items: what a write that must find them unchanged compares with
/// @return those ids (in the order given; all of them when the walk's evidence is gone), or the
///         database's failure
boost::system::result<std::vector<std::string>, db_error> changed_since_walk(
    sql_database& db, const table_spec& table, evidence::evidence_store& store, std::string_view walk,
    std::span<const std::string> ids, std::chrono::system_clock::time_point now,
    std::vector<boost::json::object>* unchanged = nullptr);

/// JSON Schema of one item of the table (every field, typed).
boost::json::object item_schema(const table_spec& table);

}  // namespace candor::sql_collection
