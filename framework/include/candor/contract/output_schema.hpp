// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The JSON Schema of what a tool returns, generated from the C++ type it is built from.
///
/// @code
/// struct draft_created { std::string draft_id; bool verified; };
/// BOOST_DESCRIBE_STRUCT(draft_created, (), (draft_id, verified))
/// info.with_data_schema(candor::contract::output_schema_of<draft_created>());
/// …
/// co_return candor::envelope::complete(boost::json::value_from(draft_created{id, true}));
/// @endcode

#include <candor/contract/detail/traits.hpp>

#include <boost/describe/enum.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/mp11/algorithm.hpp>

#include <string>
#include <string_view>
#include <type_traits>

namespace candor::contract {

/// The JSON Schema of `T` as `boost::json::value_from` writes it: a result or an item, not an
/// argument (every member is present, an empty optional is null), for
/// `tool_info::with_data_schema` and a collection's items. A type it cannot describe is `{}`.
/// Bounded by the depth of the type (a recursive type does not compile as a described struct
/// member by value).
template <class T>
boost::json::object output_schema_of() {
    boost::json::object s;
    if constexpr (detail::is_optional<T>::value) {
        s["anyOf"] =
            boost::json::array{output_schema_of<typename T::value_type>(), boost::json::object{{"type", "null"}}};
    } else if constexpr (std::is_same_v<T, bool>) {
        s["type"] = "boolean";
    } else if constexpr (std::is_integral_v<T>) {
        s["type"] = "integer";
    } else if constexpr (std::is_floating_point_v<T>) {
        s["type"] = "number";
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
        s["type"] = "string";
    } else if constexpr (boost::describe::has_describe_enumerators<T>::value) {
        s["type"] = "string";
        boost::json::array e;
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>(
            [&](auto d) { e.emplace_back(decltype(d)::name); });
        s["enum"] = std::move(e);
    } else if constexpr (detail::is_vector<T>::value) {
        s["type"] = "array";
        s["items"] = output_schema_of<typename T::value_type>();
    } else if constexpr (detail::is_string_map<T>::value) {
        s["type"] = "object";
        s["additionalProperties"] = output_schema_of<typename T::mapped_type>();
    } else if constexpr (boost::describe::has_describe_members<T>::value) {
        using members =
            boost::describe::describe_members<T, boost::describe::mod_public | boost::describe::mod_inherited>;
        boost::json::object props;
        boost::json::array required;
        boost::mp11::mp_for_each<members>([&](auto d) {
            using member = std::remove_cvref_t<decltype(std::declval<const T&>().*d.pointer)>;
            props[d.name] = output_schema_of<member>();
            required.emplace_back(d.name);
        });
        s["type"] = "object";
        s["properties"] = std::move(props);
        s["required"] = std::move(required);
    }
    return s;
}

}  // namespace candor::contract
