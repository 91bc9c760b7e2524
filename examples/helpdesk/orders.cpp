// SPDX-License-Identifier: BSL-1.0
// GCC 12 (at -O1 with the sanitizers): see tools.cpp (coroutine frames).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include "orders.hpp"

#include "data.hpp"

#include <boost/describe/enum_to_string.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <candor/json/time.hpp>
#include <candor/offload/worker.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace helpdesk {

namespace sc = candor::sql_collection;
namespace od = candor_examples::order_draft;
using candor::contract::decimal;

namespace {

constexpr int catalog_size = 20;
constexpr const char* currencies[] = {"RUB", "USD", "EUR"};

std::string sku_name(int k) {
    char b[16];
    std::snprintf(b, sizeof b, "SKU-%03d", k);
    return b;
}

// A source that fails is reported by the tool as SOURCE_UNAVAILABLE (the catalog and access
// interfaces signal failure by throwing).
[[noreturn]] void source_failed(const char* what, const sc::db_error& e) {
    throw std::runtime_error(std::string(what) + ": " + e.message);
}

}  // namespace

const sc::table_spec& customers_table() {
    static const sc::table_spec t{"customers",
                                  {{"id", sc::field_type::text, false, "cust-1 … cust-2000, cust-blocked, cust-w…"},
                                   {"name", sc::field_type::text, false, ""},
                                   {"region", sc::field_type::text, false, "amer, apac or emea"},
                                   {"since", sc::field_type::date, false, "YYYY-MM-DD: a customer since"}},
                                  "id",
                                  sc::table_layout::foreign};
    return t;
}

seeded_customer customer(int n) {
    static constexpr const char* regions[] = {"amer", "apac", "emea"};
    static constexpr const char* names[] = {"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne"};
    seeded_customer c;
    // cust-blocked keeps its place among the first ten (the order-draft examples use it).
    c.id = n == 10 ? "cust-blocked" : "cust-" + std::to_string(n);
    c.may_order = n != 10;
    c.name = std::string(names[static_cast<std::size_t>(n) % std::size(names)]) + " " + std::to_string(n);
    c.region = regions[static_cast<std::size_t>(n * 7) % std::size(regions)];
    c.since = day_after_new_year(-(n * 37 % 3000));
    return c;
}

boost::system::result<void, sc::db_error> prepare_orders(sc::sql_database& db) {
    return db.transaction([](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        if (auto r = lock_for_setup(tx); !r) return r;
        // Drafts are numbered by a counter row (its row lock serializes the numbering on
        // PostgreSQL as well), not by SQLite's INTEGER PRIMARY KEY rowid.
        const char* ddl[] = {
            "CREATE TABLE IF NOT EXISTS catalog_prices(sku TEXT NOT NULL, currency TEXT NOT NULL, price TEXT NOT NULL, "
            "PRIMARY KEY(sku, currency))",
            // A plain table: any program writes it with plain SQL (helpdesk-writer does);
            // search_customers walks it through held read views.
            "CREATE TABLE IF NOT EXISTS customers(id TEXT PRIMARY KEY, may_order BIGINT NOT NULL, name TEXT NOT NULL "
            "DEFAULT '', region TEXT NOT NULL DEFAULT '', since TEXT NOT NULL DEFAULT '')",
            "CREATE TABLE IF NOT EXISTS order_drafts(seq BIGINT PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
            "customer_id TEXT NOT NULL, currency TEXT NOT NULL, delivery_date TEXT NOT NULL, discount TEXT NOT NULL, "
            "total TEXT NOT NULL, lines TEXT NOT NULL, unverified BIGINT NOT NULL, created_at TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS helpdesk_counters(name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
            // A database from before the counter starts it after its last draft.
            "INSERT INTO helpdesk_counters(name, value) SELECT 'order_drafts', COALESCE(MAX(seq), 0) FROM order_drafts "
            "WHERE TRUE ON CONFLICT (name) DO NOTHING",
        };
        for (const char* s : ddl)
            if (auto r = tx.execute(s, {}); !r) return r.error();
        for (int k = 1; k <= catalog_size; ++k) {
            const auto price = decimal::parse("1.50")->multiply(k);  // exact: SKU-003 costs 4.50
            for (const char* c : currencies) {
                const sc::sql_value p[] = {sku_name(k), std::string(c), price->to_string()};
                if (auto r = tx.execute("INSERT INTO catalog_prices(sku, currency, price) VALUES(?, ?, ?) "
                                        "ON CONFLICT (sku, currency) DO NOTHING",
                                        p);
                    !r)
                    return r.error();
            }
        }
        // A database from before customers had names, regions and a date gets the columns.
        auto listed = candor::store::column_names(tx, "customers");
        if (!listed) return listed.error();
        const auto& columns = *listed;
        for (const char* c : {"name", "region", "since"})
            if (std::find(columns.begin(), columns.end(), c) == columns.end())
                if (auto r = tx.execute(
                        "ALTER TABLE customers ADD COLUMN " + std::string(c) + " TEXT NOT NULL DEFAULT ''", {});
                    !r)
                    return r.error();
        // The seeded customers (filled in where an older database has them without names).
        std::int64_t named = 0;
        if (auto r = tx.query("SELECT count(*) FROM customers WHERE name <> ''", {},
                              [&](const sc::sql_row& row) {
                                  named = std::get<std::int64_t>(row[0]);
                                  return false;
                              });
            !r)
            return r;
        if (named >= seeded_customers) return {};
        for (int c = 1; c <= seeded_customers; ++c) {
            const auto who = customer(c);
            const sc::sql_value p[] = {who.id, who.may_order ? std::int64_t{1} : std::int64_t{0}, who.name, who.region,
                                       who.since};
            if (auto r = tx.execute("INSERT INTO customers(id, may_order, name, region, since) VALUES(?, ?, ?, ?, ?) "
                                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, region = excluded.region, "
                                    "since = excluded.since WHERE customers.name = ''",
                                    p);
                !r)
                return r.error();
        }
        return {};
    });
}

boost::asio::awaitable<std::vector<sc::sql_row>> sql_orders::rows(const char* source, std::string sql,
                                                                  std::vector<sc::sql_value> params) {
    // On the worker, never on the caller's strand; the check's deadline ends the wait (the
    // statement finishes alone and its rows are dropped).
    auto read = [db = db_, sql = std::move(sql), params = std::move(params)] {
        std::vector<sc::sql_row> out;
        auto r = db->query(sql, params, [&](const sc::sql_row& row) {
            out.push_back(row);
            return true;
        });
        using rows_result = boost::system::result<std::vector<sc::sql_row>, sc::db_error>;
        return r ? rows_result(std::move(out)) : rows_result(r.error());
    };
    auto r = co_await worker_->run_cancellable(std::move(read));
    if (!r) source_failed(source, r.error());
    co_return std::move(*r);
}

boost::asio::awaitable<std::optional<decimal>> sql_orders::price(std::string sku, od::currency_code currency) {
    // Named, not literals in the co_await expression (GCC 12 miscompiles an array temporary there).
    std::string sql = "SELECT price FROM catalog_prices WHERE sku = ? AND currency = ?";
    std::vector<sc::sql_value> params{std::move(sku), std::string(boost::describe::enum_to_string(currency, "?"))};
    auto found = co_await rows("catalog", std::move(sql), std::move(params));
    const std::string* text = found.empty() ? nullptr : std::get_if<std::string>(&found.front().at(0));
    if (!text) co_return std::nullopt;
    auto d = decimal::parse(*text);
    if (!d) throw std::runtime_error("catalog: a stored price is not a decimal");
    co_return *d;
}

boost::asio::awaitable<std::vector<std::string>> sql_orders::similar(std::string sku, std::size_t limit) {
    std::string sql = "SELECT DISTINCT sku FROM catalog_prices ORDER BY sku LIMIT 10000";
    auto found = co_await rows("catalog", std::move(sql), {});
    std::vector<std::string> all;
    for (const auto& row : found)
        if (const auto* s = std::get_if<std::string>(&row.at(0))) all.push_back(*s);
    co_return od::closest_skus(sku, std::move(all), limit);
}

boost::asio::awaitable<bool> sql_orders::may_order(std::string, std::string customer_id) {
    std::string sql = "SELECT may_order FROM customers WHERE id = ?";
    std::vector<sc::sql_value> params{std::move(customer_id)};
    auto found = co_await rows("customers", std::move(sql), std::move(params));
    const std::int64_t* v = found.empty() ? nullptr : std::get_if<std::int64_t>(&found.front().at(0));
    co_return v&&* v != 0;
}

boost::asio::awaitable<boost::system::result<std::string, od::store_error>> sql_orders::store(
    const od::order_args& order, bool unverified) {
    boost::json::array lines;
    for (const auto& l : order.lines)
        lines.push_back(
            boost::json::object{{"sku", l.sku}, {"quantity", l.quantity}, {"unit_price", l.unit_price.to_string()}});
    const std::string lines_text = boost::json::serialize(lines);
    std::string id;
    // On the worker, waited for to its end: a draft is stored or not, never behind the reply.
    auto write = [&] {
        return db_->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
            std::int64_t seq = 0;
            if (auto u = tx.execute("UPDATE helpdesk_counters SET value = value + 1 WHERE name = 'order_drafts'", {});
                !u)
                return u.error();
            if (auto q = tx.query("SELECT value FROM helpdesk_counters WHERE name = 'order_drafts'", {},
                                  [&](const sc::sql_row& row) {
                                      if (const auto* v = std::get_if<std::int64_t>(&row[0])) seq = *v;
                                      return false;
                                  });
                !q)
                return q.error();
            char b[32];
            std::snprintf(b, sizeof b, "D-%06lld", static_cast<long long>(seq));
            id = b;
            const sc::sql_value p[] = {seq,
                                       id,
                                       order.customer_id,
                                       std::string(boost::describe::enum_to_string(order.currency, "?")),
                                       order.delivery_date,
                                       order.discount.to_string(),
                                       order.total.to_string(),
                                       lines_text,
                                       std::int64_t{unverified ? 1 : 0},
                                       candor::json::format_time(std::chrono::system_clock::now())};
            if (auto e = tx.execute("INSERT INTO order_drafts(seq, id, customer_id, currency, delivery_date, discount, "
                                    "total, lines, unverified, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    p);
                !e)
                return e.error();
            return {};
        });
    };
    auto r = co_await worker_->run(write);
    using stored = boost::system::result<std::string, od::store_error>;
    if (!r) co_return stored(boost::system::in_place_error, od::store_error{r.error().message});
    co_return stored(boost::system::in_place_value, std::move(id));
}

std::shared_ptr<candor::mcp::tool_handler> make_order_tool(std::shared_ptr<sc::sql_database> db,
                                                           std::shared_ptr<candor::offload::worker> worker,
                                                           std::shared_ptr<candor::validation::repair_budget> repairs) {
    auto backend = std::make_shared<sql_orders>(std::move(db), std::move(worker));
    od::order_tool_options o;
    o.catalog = backend;
    o.access = backend;
    o.drafts = backend;
    o.validation.repairs = std::move(repairs);
    return od::make_create_order_draft(std::move(o));
}

}  // namespace helpdesk
