#pragma once
/// @file
/// A data source with a typed item: the author returns C++ values, the framework turns them
/// into JSON items with `boost::json::value_from` (a Boost.Describe struct works as is).
///
/// @code
/// struct account { std::string id; std::string team; std::optional<std::string> owner; };
/// BOOST_DESCRIBE_STRUCT(account, (), (id, team, owner))
///
/// struct accounts : candor::paging::typed_source<account> {
///     std::string_view name() const noexcept override { return "accounts"; }
///     candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
///     boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
///     fetch_items(const candor::paging::fetch_request& r) override { … }
/// };
/// @endcode

#include <candor/paging/source.hpp>

#include <boost/json/value_from.hpp>

#include <vector>

namespace candor::paging {

/// A typed fetch result: like `fetch_result`, with C++ items.
template <class Item>
struct typed_page {
    std::vector<Item> items;
    bool out_of_time = false;
    std::uint64_t items_scanned = 0;
    bool hidden_in_scope = false;
};

template <class Item>
class typed_source : public data_source {
public:
    /// Up to `request.limit` items after `request.after`, in key order.
    virtual boost::asio::awaitable<boost::system::result<typed_page<Item>, source_error>> fetch_items(
        const fetch_request& request) = 0;

    boost::asio::awaitable<boost::system::result<fetch_result, source_error>> fetch(
        const fetch_request& request) final {
        auto typed = co_await fetch_items(request);
        if (!typed) co_return typed.error();
        fetch_result out;
        out.items.reserve(typed->items.size());
        for (const auto& item : typed->items) out.items.push_back(boost::json::value_from(item));
        out.out_of_time = typed->out_of_time;
        out.items_scanned = typed->items_scanned;
        out.hidden_in_scope = typed->hidden_in_scope;
        co_return out;
    }
};

}  // namespace candor::paging
