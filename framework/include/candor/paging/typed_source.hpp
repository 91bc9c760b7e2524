// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A data source with a typed item: the author returns C++ values, the framework turns them
/// into JSON items with `boost::json::value_from` (a Boost.Describe struct works as is).
///
/// A source over rows it keeps in memory may hand out pointers instead of copies:
/// `typed_source<const row*>` pages the rows pointed to, exactly as `typed_source<row>` pages
/// copies of them. The rows are read right after `fetch_items` returns, on the same thread and
/// before anything else runs there; they must not change or go away before that (immutable
/// rows, or rows the source keeps alive and unchanged). A null pointer is a bug (an error page).
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

#include <candor/paging/detail/typed_source.hpp>
#include <candor/paging/source.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <atomic>
#include <cstdint>
#include <vector>

namespace candor::paging {

/// A typed fetch result: like `fetch_result`, with C++ items.
template <class Item>
struct typed_page {
    std::vector<Item> items{};
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
        out.out_of_time = typed->out_of_time;
        out.items_scanned = typed->items_scanned;
        out.hidden_in_scope = typed->hidden_in_scope;
        detail::fill_page(typed->items, request, item_bytes_, out);
        co_return out;
    }

private:
    /// Bytes per written item on the last page (with a little slack), to size the next page.
    std::atomic<std::size_t> item_bytes_{0};
};

}  // namespace candor::paging
