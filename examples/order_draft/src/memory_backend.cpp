// SPDX-License-Identifier: BSL-1.0
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
    std::vector<std::string> skus;
    for (const auto& e : prices_)
        if (std::find(skus.begin(), skus.end(), e.sku) == skus.end()) skus.push_back(e.sku);
    co_return closest_skus(sku, std::move(skus), limit);
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
