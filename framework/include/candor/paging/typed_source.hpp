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

#include <candor/paging/source.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/value_from.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace candor::paging {

namespace detail {

/// A member held as a JSON string, number or boolean (built in place, compared natively).
template <class T>
inline constexpr bool scalar_member = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                                      std::is_same_v<T, bool> || std::is_arithmetic_v<T>;

/// What a page's item stands for: itself, or the row it points to (`typed_source<const row*>`).
template <class Item>
struct item_object {
    using type = Item;
    static const Item& of(const Item& item) noexcept { return item; }
};
template <class Row>
struct item_object<const Row*> {
    using type = Row;
    static const Row& of(const Row* item) {
        if (item == nullptr) throw std::logic_error("typed_source: a page item is a null pointer");
        return *item;
    }
};

/// `boost::json::value_from(item)`, with the object of a described struct reserved up front
/// (Boost.JSON grows it member by member otherwise: five reallocations for six members). A
/// type with its own `tag_invoke` conversion is converted by it.
template <class Item>
boost::json::value item_to_json(const Item& item, const boost::json::storage_ptr& sp) {
    constexpr bool own_conversion = requires(boost::json::value & jv, const Item& t) {
        tag_invoke(boost::json::value_from_tag{}, jv, t);
    };
    if constexpr (!own_conversion && boost::describe::has_describe_members<Item>::value) {
        using members =
            boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
        boost::json::value out(boost::json::object_kind, sp);
        auto& o = out.get_object();
        o.reserve(boost::mp11::mp_size<members>::value);
        boost::mp11::mp_for_each<members>([&](auto d) {
            using member = std::remove_cvref_t<decltype(item.*d.pointer)>;
            // Strings, booleans and numbers are built in place in the object (no temporary value
            // to move in and destroy); everything else goes through value_from.
            if constexpr (scalar_member<member>) o.emplace(d.name, item.*d.pointer);
            else o.emplace(d.name, boost::json::value_from(item.*d.pointer, sp));
        });
        return out;
    } else {
        return boost::json::value_from(item, sp);
    }
}

/// Whether a described struct is written member by member (`write_item`): not when it has a
/// conversion of its own. (A member hidden by a derived class's member of the same name is not
/// among the described members, so names never repeat.)
template <class Item>
consteval bool direct_writable() {
    if constexpr (requires(boost::json::value & jv, const Item& t) {
                      tag_invoke(boost::json::value_from_tag{}, jv, t);
                  })
        return false;  // its own conversion decides
    else return boost::describe::has_describe_members<Item>::value;
}

template <class Item>
constexpr bool writes_directly = direct_writable<Item>();

/// A member as JSON: the same value `item_to_json` stores for it, written to `out`.
template <class Member>
boost::system::result<void, json::write_error> write_member(const Member& m, json::text_sink& out) {
    if constexpr (std::is_same_v<Member, std::string> || std::is_same_v<Member, std::string_view>) {
        if (!json::write_string(m, out)) return json::write_error::invalid_utf8;
        return {};
    } else if constexpr (std::is_integral_v<Member> && !std::is_same_v<Member, bool> && sizeof(Member) > 1) {
        // Integers in decimal, as the tree's int64/uint64 would be written: no value built.
        char* q = out.room(24);
        out.commit(std::to_chars(q, q + 24, m).ptr);
        return {};
    } else if constexpr (std::is_same_v<Member, bool> || std::is_arithmetic_v<Member>) {
        return json::write(boost::json::value(m), out);  // scalars: no allocation
    } else {
        return json::write(boost::json::value_from(m), out);
    }
}

/// `item` written as `json::write(item_to_json(item))` would write it, without the tree.
template <class Item>
boost::system::result<void, json::write_error> write_item(const Item& item, json::text_sink& out) {
    if constexpr (writes_directly<Item>) {
        using members =
            boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
        boost::system::result<void, json::write_error> r;
        bool first = true;
        out.put('{');
        boost::mp11::mp_for_each<members>([&](auto d) {
            if (!r) return;
            // `"name":` written once per member of the type, then copied per item.
            static const std::string key = [] {
                std::string k;
                {
                    json::text_sink sink(k);
                    if (!json::write_string(decltype(d)::name, sink))
                        throw std::logic_error("member name is not UTF-8");
                    sink.put(':');
                }
                return k;
            }();
            if (!first) out.put(',');
            first = false;
            out.put(key);
            r = write_member(item.*d.pointer, out);
        });
        out.put('}');
        return r;
    } else {
        return json::write(item_to_json(item, {}), out);
    }
}

/// Where ordering field `name` is among the described members of `Item` (written member by
/// member); none if it is not one of them, or if `Item` is converted some other way.
template <class Item>
std::optional<std::size_t> member_index(std::string_view name) {
    if constexpr (writes_directly<Item>) {
        using members =
            boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
        std::optional<std::size_t> out;
        std::size_t i = 0;
        boost::mp11::mp_for_each<members>([&](auto d) {
            if (!out && name == d.name) out = i;
            ++i;
        });
        return out;
    } else {
        return std::nullopt;
    }
}

/// The member at `index` (from `member_index`) of `item`, as `item_to_json(item)` holds it.
template <class Item>
boost::json::value member_value(const Item& item, std::size_t index) {
    using members =
        boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
    if constexpr (boost::mp11::mp_size<members>::value == 0) {
        return boost::json::value(boost::json::object_kind);  // not reached: no index to give
    } else {
        return boost::mp11::mp_with_index<boost::mp11::mp_size<members>::value>(index, [&](auto i) {
            using d = boost::mp11::mp_at_c<members, decltype(i)::value>;
            using member = std::remove_cvref_t<decltype(item.*d::pointer)>;
            if constexpr (scalar_member<member>) return boost::json::value(item.*d::pointer);
            else return boost::json::value_from(item.*d::pointer);
        });
    }
}

/// Whether the member at `index` (from `member_index`) is compared in C++ the way
/// `compare_keys` compares its JSON value: a string, a number or a boolean.
template <class Item>
bool native_key(std::size_t index) {
    using members =
        boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
    if constexpr (boost::mp11::mp_size<members>::value == 0) {
        return false;
    } else {
        return boost::mp11::mp_with_index<boost::mp11::mp_size<members>::value>(index, [&](auto i) {
            using d = boost::mp11::mp_at_c<members, decltype(i)::value>;
            using member = std::remove_cvref_t<decltype(std::declval<const Item&>().*d::pointer)>;
            return scalar_member<member>;
        });
    }
}

/// -1, 0 or 1: member `index` of `a` against the same member of `b`, as `compare_keys` orders
/// their JSON values (strings bytewise, numbers and booleans by value; a NaN equals anything,
/// so it never passes for increasing). For members where `native_key` holds.
template <class Item>
int compare_member(const Item& a, const Item& b, std::size_t index) {
    using members =
        boost::describe::describe_members<Item, boost::describe::mod_public | boost::describe::mod_inherited>;
    if constexpr (boost::mp11::mp_size<members>::value == 0) {
        return 0;
    } else {
        return boost::mp11::mp_with_index<boost::mp11::mp_size<members>::value>(index, [&](auto i) {
            using d = boost::mp11::mp_at_c<members, decltype(i)::value>;
            using member = std::remove_cvref_t<decltype(a.*d::pointer)>;
            if constexpr (std::is_same_v<member, std::string> || std::is_same_v<member, std::string_view>) {
                // What string_view::compare does, which GCC does not inline.
                const std::string_view x = a.*d::pointer, y = b.*d::pointer;
                const std::size_t n = std::min(x.size(), y.size());
                const int c = n == 0 ? 0 : std::memcmp(x.data(), y.data(), n);
                if (c != 0) return c < 0 ? -1 : 1;
                return x.size() < y.size() ? -1 : (y.size() < x.size() ? 1 : 0);
            } else if constexpr (scalar_member<member>) {
                return a.*d::pointer < b.*d::pointer ? -1 : (b.*d::pointer < a.*d::pointer ? 1 : 0);
            } else {
                return 0;  // not reached: native_key is false for it
            }
        });
    }
}

/// The value of ordering field `name` of `item`, as `item_to_json(item)` holds it; none if the
/// item has no such member. For items that are not written member by member (the tree is built
/// to find it).
template <class Item>
std::optional<boost::json::value> key_field(const Item& item, std::string_view name) {
    auto v = item_to_json(item, {});
    const auto* o = v.if_object();
    const auto* f = o ? o->if_contains(name) : nullptr;
    if (!f) return std::nullopt;
    return *f;
}

}  // namespace detail

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
        out.out_of_time = typed->out_of_time;
        out.items_scanned = typed->items_scanned;
        out.hidden_in_scope = typed->hidden_in_scope;
        if (request.written_keys) {
            // The page only goes to the wire: each item written straight into the text, and
            // its ordering fields taken from the C++ value, with no tree in between.
            const auto& keys = *request.written_keys;
            std::string text;
            // Room for the page at the size items had so far: one allocation instead of a
            // doubling series (a relaxed guess, so racing pages on other threads are harmless;
            // capped, so that a page of large items does not inflate the next one's room).
            text.reserve(std::min<std::size_t>(2 + typed->items.size() * item_bytes_.load(std::memory_order_relaxed),
                                               reserve_cap));
            {
                json::text_sink sink(text);
                sink.put('[');
                out.written_ends.reserve(typed->items.size());
                // Each ordering field's member found once per page, not by name per item.
                boost::container::small_vector<std::optional<std::size_t>, 4> members;
                bool native = detail::writes_directly<row> && !keys.empty();
                for (const auto& k : keys) {
                    members.push_back(detail::member_index<row>(k));
                    native = native && members.back() && detail::native_key<row>(*members.back());
                }
                // When only the last keys are wanted, the order is checked here on the members
                // (no JSON value per item); otherwise every key goes to the collection.
                const bool check_here = native && !request.every_written_key;
                out.written_keys.reserve((check_here ? 2 : typed->items.size()) * keys.size());
                const auto& items = typed->items;
                auto push_key = [&](const row& item) {
                    for (std::size_t k = 0; k < keys.size(); ++k) {
                        std::optional<boost::json::value> v;
                        if constexpr (detail::writes_directly<row>) {
                            if (members[k]) v = detail::member_value(item, *members[k]);
                        } else {
                            v = detail::key_field(item, keys[k]);
                        }
                        // The collection reports an item without a key field (a bug) itself.
                        out.written_keys.push_back(v ? std::move(*v) : boost::json::value(boost::json::object_kind));
                    }
                };
                for (std::size_t i = 0; i < items.size(); ++i) {
                    const row& item = rows::of(items[i]);
                    if (i > 0) sink.put(',');
                    if (auto w = detail::write_item(item, sink); !w)
                        throw std::runtime_error("typed_source: an item cannot be serialized (" +
                                                 std::string(json::to_string(w.error())) + ")");
                    out.written_ends.push_back(sink.size());
                    if (!check_here) {
                        push_key(item);
                    } else if (i > 0 && compare_rows(rows::of(items[i - 1]), item, members) >= 0) {
                        throw std::logic_error(out_of_order);
                    }
                }
                sink.put(']');
                if (check_here) {
                    if (request.after && !items.empty()) {
                        push_key(rows::of(items.front()));
                        if (compare_keys(
                                std::span<const boost::json::value>(request.after->data(), request.after->size()),
                                std::span<const boost::json::value>(out.written_keys)) >= 0)
                            throw std::logic_error(out_of_order);
                        out.written_keys.clear();
                    }
                    for (std::size_t i = items.size() < 2 ? 0 : items.size() - 2; i < items.size(); ++i)
                        push_key(rows::of(items[i]));
                    out.written_order_checked = true;
                }
            }
            if (!typed->items.empty())
                item_bytes_.store(text.size() / typed->items.size() + 8, std::memory_order_relaxed);
            out.items_written = json::written::adopt(std::move(text));
            co_return out;
        }
        // The page's items, and the envelope the collection builds around them, live in one
        // arena: a few allocations per page instead of several per item, and no walk to free.
        out.storage = boost::json::make_shared_resource<boost::json::monotonic_resource>();
        out.items.reserve(typed->items.size());
        for (const auto& item : typed->items) out.items.push_back(detail::item_to_json(rows::of(item), out.storage));
        co_return out;
    }

private:
    using rows = detail::item_object<Item>;
    /// The row type: `Item`, or what it points to.
    using row = typename rows::type;

    static constexpr std::size_t reserve_cap = 256u << 10;
    static constexpr const char* out_of_order = "data source returned items out of order or before the cursor";

    // -1, 0 or 1: the keys of two rows, member by member (every member native, see check_here).
    static int compare_rows(const row& a, const row& b,
                            const boost::container::small_vector<std::optional<std::size_t>, 4>& members) {
        for (const auto& m : members)
            if (const int c = detail::compare_member(a, b, *m); c != 0) return c;
        return 0;
    }

    /// Bytes per written item on the last page (with a little slack), to size the next page.
    std::atomic<std::size_t> item_bytes_{0};
};

}  // namespace candor::paging
