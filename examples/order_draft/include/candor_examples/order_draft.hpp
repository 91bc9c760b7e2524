// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The order-draft domain: the arguments of `create_order_draft`, their contract, the
/// business invariants, the sources of truth it is checked against (catalog, customer access)
/// and where drafts go — and the tool with validation layers that puts them together.
///
/// Mount it on any server (a SQLite catalog in the helpdesk example, the in-memory backend in
/// tests):
/// @code
/// candor_examples::order_draft::order_tool_options o;
/// o.catalog = my_catalog; o.access = my_access; o.drafts = my_drafts;
/// server.add_tool(candor_examples::order_draft::make_create_order_draft(std::move(o))).value();
/// @endcode

#include <candor/contract/contract.hpp>
#include <candor/contract/decimal.hpp>
#include <candor/error/issue.hpp>
#include <candor/mcp/tool.hpp>
#include <candor/validation/layers.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor_examples::order_draft {

using candor::contract::decimal;

BOOST_DEFINE_ENUM_CLASS(currency_code, RUB, USD, EUR)

struct order_line {
    std::string sku;
    int quantity = 1;
    decimal unit_price;
};
BOOST_DESCRIBE_STRUCT(order_line, (), (sku, quantity, unit_price))

struct order_args {
    std::string customer_id;
    currency_code currency = currency_code::RUB;
    /// ISO 8601 calendar date, "2026-12-01".
    std::string delivery_date;
    decimal discount;
    decimal total;
    std::vector<order_line> lines;
};
BOOST_DESCRIBE_STRUCT(order_args, (), (customer_id, currency, delivery_date, discount, total, lines))

void describe_contract(candor::contract::spec<order_line>& s);
void describe_contract(candor::contract::spec<order_args>& s);

/// Business codes (docs/validation.md); the external ones follow.
namespace codes {
inline constexpr std::string_view discount_exceeds_subtotal = "DISCOUNT_EXCEEDS_SUBTOTAL";
inline constexpr std::string_view total_mismatch = "TOTAL_MISMATCH";
inline constexpr std::string_view delivery_date_in_past = "DELIVERY_DATE_IN_PAST";
inline constexpr std::string_view unknown_sku = "UNKNOWN_SKU";
inline constexpr std::string_view stale_price = "STALE_PRICE";
inline constexpr std::string_view permission_denied = "PERMISSION_DENIED";
}  // namespace codes

/// Σ quantity × unit_price, exact; empty when it does not fit a decimal.
std::optional<decimal> subtotal(const order_args& a);

/// The business layer: `DISCOUNT_EXCEEDS_SUBTOTAL` (not repairable), `TOTAL_MISMATCH`
/// (repairable; the message states the expected total = subtotal − discount) and
/// `DELIVERY_DATE_IN_PAST` (repairable). Every issue found is reported.
/// @param today "YYYY-MM-DD" in the business's time zone
candor::issue_list business_issues(const order_args& a, std::string_view today);

/// At most `limit` of `catalog` (distinct SKUs, in catalog order) that look like `sku`: the same
/// trailing number first ("SKU-3" → "SKU-003"), then the longest common prefix; ties keep
/// catalog order; SKUs sharing nothing with `sku` are left out. For `catalog::similar`.
std::vector<std::string> closest_skus(std::string_view sku, std::vector<std::string> catalog, std::size_t limit);

/// The catalog: the current price of a SKU in a currency, and similar SKUs for hints.
class catalog {
public:
    virtual ~catalog() = default;
    /// Empty when the SKU is unknown. Throwing, or not answering before the deadline, makes
    /// the catalog `SOURCE_UNAVAILABLE`.
    virtual boost::asio::awaitable<std::optional<decimal>> price(std::string sku, currency_code currency) = 0;
    /// At most `limit` existing SKUs close to `sku` (only public catalog data).
    virtual boost::asio::awaitable<std::vector<std::string>> similar(std::string sku, std::size_t limit) = 0;
};

/// Who may order for which customer.
class customer_access {
public:
    virtual ~customer_access() = default;
    virtual boost::asio::awaitable<bool> may_order(std::string principal_id, std::string customer_id) = 0;
};

/// A draft store that could not store (for the server log; the caller sees
/// `SOURCE_UNAVAILABLE` with `details.source` "drafts", and nothing was stored).
struct store_error {
    std::string message{};
};
[[noreturn]] void throw_exception_from_error(const store_error& e, const boost::source_location& loc);

/// Where a draft goes (the tool's side effect).
class draft_store {
public:
    virtual ~draft_store() = default;
    /// Store the whole draft or nothing. @return the new draft's id
    virtual boost::asio::awaitable<boost::system::result<std::string, store_error>> store(const order_args& order,
                                                                                          bool unverified) = 0;
};

/// What the backend does with a unit price that differs from the catalog.
enum class stale_price_policy {
    substitute,  ///< use the catalog price and recompute the total (`VALUE_NORMALIZED` warnings)
    refuse,      ///< `STALE_PRICE` (not repairable), with the catalog price in `details`
};

struct order_tool_options {
    std::shared_ptr<order_draft::catalog> catalog{};
    std::shared_ptr<customer_access> access{};
    std::shared_ptr<draft_store> drafts{};
    /// Today's date ("YYYY-MM-DD"); default: UTC today.
    std::function<std::string()> today{};
    stale_price_policy stale_prices = stale_price_policy::substitute;
    std::size_t max_candidates = 5;
    std::chrono::milliseconds catalog_deadline{2000};
    std::chrono::milliseconds access_deadline{1000};
    std::string name = "create_order_draft";
    candor::mcp::action_class action = candor::mcp::action_class::reversible_write;
    candor::validation::validation_options validation{};
};

/// `create_order_draft`: a typed tool with its layers — the business invariants, and external
/// checks against the customer access list and the catalog (which substitutes current prices).
/// @throws std::invalid_argument when catalog, access or drafts is missing
std::shared_ptr<candor::mcp::tool_handler> make_create_order_draft(order_tool_options opts);

/// UTC today as "YYYY-MM-DD".
std::string utc_today();

/// In-memory backend for tests and demos: a price list, an access list, and the drafts stored.
class memory_backend : public catalog, public customer_access, public draft_store {
public:
    void set_price(std::string sku, currency_code c, decimal price);
    void grant(std::string principal_id, std::string customer_id);

    boost::asio::awaitable<std::optional<decimal>> price(std::string sku, currency_code currency) override;
    boost::asio::awaitable<std::vector<std::string>> similar(std::string sku, std::size_t limit) override;
    boost::asio::awaitable<bool> may_order(std::string principal_id, std::string customer_id) override;
    boost::asio::awaitable<boost::system::result<std::string, store_error>> store(const order_args& order,
                                                                                  bool unverified) override;

    struct stored {
        std::string id;
        order_args order;
        bool unverified = false;
    };
    /// Every draft stored (the observable side effect).
    const std::vector<stored>& drafts() const noexcept { return drafts_; }

    /// Make the catalog fail (throw) or hang (never answer until cancelled).
    enum class catalog_mode { up, failing, hanging };
    catalog_mode mode = catalog_mode::up;
    /// Make `store` fail (nothing stored).
    bool drafts_failing = false;

private:
    struct price_entry {
        std::string sku;
        currency_code currency;
        decimal price;
    };
    std::vector<price_entry> prices_;
    std::vector<std::pair<std::string, std::string>> grants_;
    std::vector<stored> drafts_;
};

}  // namespace candor_examples::order_draft
