// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The machinery of `typed_source` (candor/paging/typed_source.hpp): C++ items to JSON, and the
/// page written straight to the wire.
///
/// Performance notes. A described struct is written member by member into the page's text
/// (no JSON tree per item); the ordering fields are read off the C++ members (found once per
/// page, not by name per item); when only the last keys are wanted, the order is checked here on
/// the members. The page's text is reserved at the size items had on the last page (a relaxed
/// guess, capped). Otherwise the items are built in one arena per page.

#include <candor/paging/source.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/value_from.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>

#include <algorithm>
#include <atomic>
#include <candor/json/write.hpp>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace candor::paging::detail {

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

inline constexpr std::size_t typed_page_reserve_cap = 256u << 10;
inline constexpr const char* typed_page_out_of_order = "data source returned items out of order or before the cursor";

/// -1, 0 or 1: the keys of two rows, member by member (every member native, see `fill_page`).
template <class Row>
int compare_rows(const Row& a, const Row& b,
                 const boost::container::small_vector<std::optional<std::size_t>, 4>& members) {
    for (const auto& m : members)
        if (const int c = compare_member(a, b, *m); c != 0) return c;
    return 0;
}

/// The items of a typed page into `out`: written as text when the page goes to the wire
/// (`request.written_keys`), as JSON values in one arena otherwise.
/// @param item_bytes bytes per written item on the last page, updated
template <class Item>
void fill_page(const std::vector<Item>& items, const fetch_request& request, std::atomic<std::size_t>& item_bytes,
               fetch_result& out) {
    using row = typename item_object<Item>::type;
    constexpr std::size_t reserve_cap = typed_page_reserve_cap;
    const char* const out_of_order = typed_page_out_of_order;
    if (request.written_keys) {
        // The page only goes to the wire: each item written straight into the text, and
        // its ordering fields taken from the C++ value, with no tree in between.
        const auto& keys = *request.written_keys;
        std::string text;
        // Room for the page at the size items had so far: one allocation instead of a
        // doubling series (a relaxed guess, so racing pages on other threads are harmless;
        // capped, so that a page of large items does not inflate the next one's room).
        text.reserve(std::min<std::size_t>(2 + items.size() * item_bytes.load(std::memory_order_relaxed), reserve_cap));
        {
            json::text_sink sink(text);
            sink.put('[');
            out.written_ends.reserve(items.size());
            // Each ordering field's member found once per page, not by name per item.
            boost::container::small_vector<std::optional<std::size_t>, 4> members;
            bool native = writes_directly<row> && !keys.empty();
            for (const auto& k : keys) {
                members.push_back(member_index<row>(k));
                native = native && members.back() && native_key<row>(*members.back());
            }
            // When only the last keys are wanted, the order is checked here on the members
            // (no JSON value per item); otherwise every key goes to the collection.
            const bool check_here = native && !request.every_written_key;
            out.written_keys.reserve((check_here ? 2 : items.size()) * keys.size());
            auto push_key = [&](const row& item) {
                for (std::size_t k = 0; k < keys.size(); ++k) {
                    std::optional<boost::json::value> v;
                    if constexpr (writes_directly<row>) {
                        if (members[k]) v = member_value(item, *members[k]);
                    } else {
                        v = key_field(item, keys[k]);
                    }
                    // The collection reports an item without a key field (a bug) itself.
                    out.written_keys.push_back(v ? std::move(*v) : boost::json::value(boost::json::object_kind));
                }
            };
            for (std::size_t i = 0; i < items.size(); ++i) {
                const row& item = item_object<Item>::of(items[i]);
                if (i > 0) sink.put(',');
                if (auto w = write_item(item, sink); !w)
                    throw std::runtime_error("typed_source: an item cannot be serialized (" +
                                             std::string(json::to_string(w.error())) + ")");
                out.written_ends.push_back(sink.size());
                if (!check_here) {
                    push_key(item);
                } else if (i > 0 && compare_rows<row>(item_object<Item>::of(items[i - 1]), item, members) >= 0) {
                    throw std::logic_error(out_of_order);
                }
            }
            sink.put(']');
            if (check_here) {
                if (request.after && !items.empty()) {
                    push_key(item_object<Item>::of(items.front()));
                    if (compare_keys(std::span<const boost::json::value>(request.after->data(), request.after->size()),
                                     std::span<const boost::json::value>(out.written_keys)) >= 0)
                        throw std::logic_error(out_of_order);
                    out.written_keys.clear();
                }
                for (std::size_t i = items.size() < 2 ? 0 : items.size() - 2; i < items.size(); ++i)
                    push_key(item_object<Item>::of(items[i]));
                out.written_order_checked = true;
            }
        }
        if (!items.empty()) item_bytes.store(text.size() / items.size() + 8, std::memory_order_relaxed);
        out.items_written = json::written::adopt(std::move(text));
        return;
    }
    // The page's items, and the envelope the collection builds around them, live in one
    // arena: a few allocations per page instead of several per item, and no walk to free.
    out.storage = boost::json::make_shared_resource<boost::json::monotonic_resource>();
    out.items.reserve(items.size());
    for (const auto& item : items) out.items.push_back(item_to_json(item_object<Item>::of(item), out.storage));
}

}  // namespace candor::paging::detail
