// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The JSON Schema (Draft 2020-12) of an argument struct, derived from its type and spec.
///
/// Mapping: bool → boolean; integers → integer with minimum/maximum = the C++ range
/// intersected with the declared range; floating point → number; std::string → string
/// (minLength/maxLength/pattern/format/enum); decimal → number (bounds advertised as the
/// nearest double, digit limits stated in the description, both checked exactly by the typed
/// layer); described enum → string with `enum` of the enumerator names; described struct →
/// object with `properties`, `required` and `additionalProperties: false`; std::vector → array
/// (minItems/maxItems); std::map<std::string, T> → object with `additionalProperties`
/// (minProperties/maxProperties); std::optional<T> → T's schema, not required.

#include <candor/contract/detail/support.hpp>
#include <candor/contract/detail/traits.hpp>
#include <candor/contract/spec.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/mp11/algorithm.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace candor::contract::detail {

inline void check_type_depth(int depth) {
    if (depth > max_type_depth)
        throw std::logic_error(
            "candor::contract: argument type nests deeper than 32 levels (recursive argument "
            "types are not supported)");
}

template <class T>
boost::json::object object_schema(int depth);

/// Integer bounds actually enforced: the C++ range intersected with the declared one.
template <class M>
std::pair<wide, wide> integer_bounds(const field_spec* fs) noexcept {
    wide lo = std::numeric_limits<M>::min();
    wide hi = std::numeric_limits<M>::max();
    if (fs && fs->minimum && to_wide(fs->minimum->value) > lo) lo = to_wide(fs->minimum->value);
    if (fs && fs->maximum && to_wide(fs->maximum->value) < hi) hi = to_wide(fs->maximum->value);
    return {lo, hi};
}

/// Limits stated in a decimal field's description, e.g. "at most 12 digits, at most 2 after
/// the decimal point"; "" without digit limits.
std::string decimal_note(const field_spec& fs);

/// The schema of a value of type `M`. `items_used`: the field's item limits were already
/// placed on an outer container.
template <class M>
boost::json::object schema_for(const field_spec* fs, bool items_used, int depth) {
    check_type_depth(depth);
    boost::json::object s;
    if constexpr (is_optional<M>::value) {
        return schema_for<typename is_optional<M>::element>(fs, items_used, depth + 1);
    } else if constexpr (is_vector<M>::value) {
        s["type"] = "array";
        s["items"] = schema_for<typename is_vector<M>::element>(fs, true, depth + 1);
        if (fs && !items_used) {
            if (fs->min_items) s["minItems"] = *fs->min_items;
            if (fs->max_items) s["maxItems"] = *fs->max_items;
        }
    } else if constexpr (is_string_map<M>::value) {
        s["type"] = "object";
        s["additionalProperties"] = schema_for<typename is_string_map<M>::element>(fs, true, depth + 1);
        if (fs && !items_used) {
            if (fs->min_items) s["minProperties"] = *fs->min_items;
            if (fs->max_items) s["maxProperties"] = *fs->max_items;
        }
    } else if constexpr (std::is_same_v<M, bool>) {
        s["type"] = "boolean";
    } else if constexpr (integer<M>) {
        const auto [lo, hi] = integer_bounds<M>(fs);
        s["type"] = "integer";
        s["minimum"] = from_wide(lo);
        s["maximum"] = from_wide(hi);
    } else if constexpr (std::is_floating_point_v<M>) {
        s["type"] = "number";
        if (fs && fs->minimum) s[fs->minimum->exclusive ? "exclusiveMinimum" : "minimum"] = fs->minimum->value;
        if (fs && fs->maximum) s[fs->maximum->exclusive ? "exclusiveMaximum" : "maximum"] = fs->maximum->value;
    } else if constexpr (std::is_same_v<M, decimal>) {
        s["type"] = "number";
        if (fs && fs->decimal_minimum)
            s[fs->decimal_minimum->exclusive ? "exclusiveMinimum" : "minimum"] = fs->decimal_minimum->value.to_double();
        if (fs && fs->decimal_maximum)
            s[fs->decimal_maximum->exclusive ? "exclusiveMaximum" : "maximum"] = fs->decimal_maximum->value.to_double();
    } else if constexpr (std::is_same_v<M, std::string>) {
        s["type"] = "string";
        if (fs) {
            if (fs->min_length) s["minLength"] = *fs->min_length;
            if (fs->max_length) s["maxLength"] = *fs->max_length;
            if (!fs->pattern.empty()) s["pattern"] = fs->pattern;
            if (!fs->format.empty()) s["format"] = fs->format;
            if (!fs->choices.empty()) {
                boost::json::array e;
                for (const auto& c : fs->choices) e.emplace_back(c);
                s["enum"] = std::move(e);
            }
        }
    } else if constexpr (described_enum<M>) {
        s["type"] = "string";
        boost::json::array e;
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<M>>(
            [&](auto d) { e.emplace_back(decltype(d)::name); });
        s["enum"] = std::move(e);
    } else if constexpr (described_struct<M>) {
        return object_schema<M>(depth + 1);
    } else {
        static_assert(supported_scalar<M>,
                      "unsupported argument type: use bool, an integer, double, std::string, "
                      "decimal, a described enum or struct, std::vector, std::map<std::string, T> "
                      "or std::optional");
    }
    return s;
}

template <class T>
boost::json::object object_schema(int depth) {
    check_type_depth(depth);
    const struct_spec& ss = spec_of<T>();
    boost::json::object s;
    s["type"] = "object";
    if (!ss.description.empty()) s["description"] = ss.description;
    boost::json::object props;
    boost::json::array required;
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        using M = std::remove_cvref_t<decltype(std::declval<T&>().*decltype(d)::pointer)>;
        const field_spec* fs = ss.find(decltype(d)::name);
        boost::json::object p = schema_for<M>(fs, false, depth + 1);
        std::string description = fs ? fs->description : std::string();
        if constexpr (std::is_same_v<innermost_t<M>, decimal>) {
            if (fs) {
                const std::string note = decimal_note(*fs);
                if (!note.empty()) description += description.empty() ? note : " (" + note + ")";
            }
        }
        if (!description.empty()) p["description"] = std::move(description);
        props[decltype(d)::name] = std::move(p);
        if (!is_optional<M>::value && !(fs && fs->optional)) required.emplace_back(decltype(d)::name);
    });
    s["properties"] = std::move(props);
    if (!required.empty()) s["required"] = std::move(required);
    if (!ss.allow_unknown_fields) s["additionalProperties"] = false;
    return s;
}

}  // namespace candor::contract::detail
