// GCC 12: see framework/src/mcp/call.cpp (false positives inside Asio's executors).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <candor_examples/order_draft.hpp>

#include <algorithm>
#include <stdexcept>

namespace candor_examples::order_draft {

void memory_backend::set_price(std::string sku, currency_code c, decimal price) {
    for (auto& e : prices_) {
        if (e.sku == sku && e.currency == c) {
            e.price = price;
            return;
        }
    }
    prices_.push_back({std::move(sku), c, price});
}

void memory_backend::grant(std::string principal_id, std::string customer_id) {
    grants_.emplace_back(std::move(principal_id), std::move(customer_id));
}

boost::asio::awaitable<std::optional<decimal>> memory_backend::price(std::string sku, currency_code currency) {
    if (mode == catalog_mode::failing) throw std::runtime_error("catalog down");
    if (mode == catalog_mode::hanging) {
        boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, std::chrono::hours(1));
        co_await t.async_wait(boost::asio::use_awaitable);
    }
    for (const auto& e : prices_)
        if (e.sku == sku && e.currency == currency) co_return e.price;
    co_return std::nullopt;
}

boost::asio::awaitable<std::vector<std::string>> memory_backend::similar(std::string sku, std::size_t limit) {
    // Candidates share the longest prefix with the unknown SKU (ties in catalog order).
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& e : prices_) {
        std::size_t common = 0;
        while (common < sku.size() && common < e.sku.size() && sku[common] == e.sku[common]) ++common;
        if (common == 0) continue;
        if (std::none_of(scored.begin(), scored.end(), [&](const auto& s) { return s.second == e.sku; }))
            scored.emplace_back(common, e.sku);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
    co_return out;
}

boost::asio::awaitable<bool> memory_backend::may_order(std::string principal_id, std::string customer_id) {
    co_return std::find(grants_.begin(), grants_.end(), std::make_pair(principal_id, customer_id)) != grants_.end();
}

boost::asio::awaitable<boost::system::result<std::string, store_error>> memory_backend::store(const order_args& order,
                                                                                              bool unverified) {
    using stored_id = boost::system::result<std::string, store_error>;
    if (drafts_failing) co_return stored_id(boost::system::in_place_error, store_error{"the draft store is down"});
    std::string id = "D-" + std::to_string(drafts_.size() + 1);
    drafts_.push_back({id, order, unverified});
    // A store_error can be made from a string too: say which one this is.
    co_return stored_id(boost::system::in_place_value, std::move(id));
}

}  // namespace candor_examples::order_draft
