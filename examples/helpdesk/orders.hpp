// SPDX-License-Identifier: BSL-1.0
#pragma once
// create_order_draft over the helpdesk's database (SQLite or PostgreSQL): a catalog of 20 SKUs
// (SKU-k costs k × 1.50, in each currency), 2,000 customers — cust-1 … cust-2000, who may order,
// except cust-blocked in the place of cust-10 — in a plain table that other programs write
// (helpdesk-writer), and a table of stored drafts.

#include <candor/offload/worker.hpp>
#include <candor/sql_collection/database.hpp>
#include <candor/sql_collection/table.hpp>
#include <candor_examples/order_draft.hpp>

#include <memory>
#include <string>

namespace helpdesk {

/// Customers seeded into a new database (and filled in where an older one lacks their names).
inline constexpr int seeded_customers = 2'000;

/// Seeded customer `n` (1 … seeded_customers): the same for the same `n`.
struct seeded_customer {
    std::string id;
    bool may_order = true;
    std::string name;
    std::string region;  // amer, apac or emea
    std::string since;   // YYYY-MM-DD
};
seeded_customer customer(int n);

/// The customers table as search_customers reads it: a table other programs write
/// (`table_layout::foreign`), with the fields id, name, region and since.
const candor::sql_collection::table_spec& customers_table();

/// Create the order tables and fill in the catalog and customers (idempotent: existing rows
/// are kept, so a database from an earlier version gains them on its next start).
boost::system::result<void, candor::sql_collection::db_error> prepare_orders(candor::sql_collection::sql_database& db);

/// The catalog, customer access and draft store over `db` (tables from `prepare_orders`).
class sql_orders final : public candor_examples::order_draft::catalog,
                         public candor_examples::order_draft::customer_access,
                         public candor_examples::order_draft::draft_store {
public:
    /// @param worker runs the statements (never the caller's strand)
    sql_orders(std::shared_ptr<candor::sql_collection::sql_database> db,
               std::shared_ptr<candor::offload::worker> worker)
        : db_(std::move(db)), worker_(std::move(worker)) {}

    boost::asio::awaitable<std::optional<candor::contract::decimal>> price(
        std::string sku, candor_examples::order_draft::currency_code currency) override;
    boost::asio::awaitable<std::vector<std::string>> similar(std::string sku, std::size_t limit) override;
    boost::asio::awaitable<bool> may_order(std::string principal_id, std::string customer_id) override;
    boost::asio::awaitable<boost::system::result<std::string, candor_examples::order_draft::store_error>> store(
        const candor_examples::order_draft::order_args& order, bool unverified) override;

private:
    std::shared_ptr<candor::sql_collection::sql_database> db_;
    std::shared_ptr<candor::offload::worker> worker_;
    /// The rows of one read on the worker; a failure throws (`source` names it).
    boost::asio::awaitable<std::vector<candor::sql_collection::sql_row>> rows(
        const char* source, std::string sql, std::vector<candor::sql_collection::sql_value> params);
};

/// The create_order_draft tool over `db` (statements on `worker`), with `repairs` as its repair
/// budget (default: its own).
std::shared_ptr<candor::mcp::tool_handler> make_order_tool(
    std::shared_ptr<candor::sql_collection::sql_database> db, std::shared_ptr<candor::offload::worker> worker,
    std::shared_ptr<candor::validation::repair_budget> repairs = nullptr);

}  // namespace helpdesk
