// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Typed conversion of validated arguments into the argument struct.
///
/// The converter is a second, independent implementation of every check the generated schema
/// states (type, required, unknown fields, ranges, lengths, patterns, enums, item limits), plus
/// the typed layer's stricter rules:
/// - an integer field refuses a float even when it is a whole number (3.0, 1e2) unless it
///   opted in with `allow_integral_float` (TYPE_MISMATCH);
/// - an integer outside the C++ type's range is OUT_OF_RANGE, never wrapped or rounded;
/// - a decimal is parsed from the number's raw text and checked exactly (digits and decimal
///   places: TOO_MANY_DIGITS; range: OUT_OF_RANGE).
/// Because it re-checks everything, a property test can hold it against the validator:
/// validator accepts ⇔ converter accepts, modulo the stricter rules above. `format` is not
/// re-checked here (it is the validator's, and only when the contract asserts formats).
///
/// Recursion follows the C++ type, whose nesting is bounded by `max_type_depth` when the
/// contract is built (`generate.hpp` refuses deeper or recursive types), so it never recurses
/// on the depth of the untrusted input beyond that bound.

#include <candor/contract/detail/generate.hpp>
#include <candor/contract/detail/support.hpp>
#include <candor/contract/detail/traits.hpp>
#include <candor/contract/spec.hpp>
#include <candor/json/pointer.hpp>

#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace candor::contract::detail {

/// Where the converter is: a chain of frames on the stack, turned into a JSON Pointer (and a
/// schema location) only when an issue is reported, so the valid path builds no strings.
struct cursor {
    enum class step : unsigned char {
        none,    ///< the arguments themselves
        member,  ///< a struct member: path token `name`, schema `/properties/<name>`
        index,   ///< an array item: path index, schema `/items`
        key,     ///< a map entry: path token `name`, schema `/additionalProperties`
    };
    const cursor* parent = nullptr;
    step kind = step::none;
    std::string_view name;
    std::size_t index = 0;

    /// JSON Pointer into the arguments.
    std::string path() const;
    /// JSON Pointer into the generated schema.
    std::string keyword() const;
};

inline std::string kw(const cursor& c, std::string_view keyword) {
    std::string out = c.keyword();
    out += '/';
    out += keyword;
    return out;
}

inline void type_mismatch(const boost::json::value& v, const cursor& c, convert_context& cx,
                          std::string_view expected) {
    cx.add("TYPE_MISMATCH", c.path(), kw(c, "type"),
           quoted_name(c.path()) + " must be " + std::string(expected) + "; got " + got_text(v, cx.doc));
}

template <class T>
void convert_object(const boost::json::value& v, T& out, const cursor& c, convert_context& cx);
/// The members of an object (the object itself is known to be one).
template <class T>
void convert_members(const boost::json::object& o, T& out, const cursor& c, convert_context& cx);

template <class M>
void convert_integer(const boost::json::value& v, M& out, const field_spec* fs, const cursor& c, convert_context& cx) {
    const auto [lo, hi] = integer_bounds<M>(fs);
    // Messages are built only on failure: the valid path allocates nothing here.
    const auto expected = [lo = lo, hi = hi] { return "an integer from " + to_text(lo) + " to " + to_text(hi); };
    wide x = 0;
    if (v.is_int64() || v.is_uint64()) {
        x = to_wide(v);
    } else if (v.is_double()) {
        const double d = v.get_double();
        if (std::trunc(d) != d) return type_mismatch(v, c, cx, expected());
        // An integer literal too long for 64 bits reaches us as a double; its raw text tells.
        if (is_integer_literal(v, cx.doc)) {
            x = d < 0 ? lo - 1 : hi + 1;
        } else if (!(fs && fs->allow_integral_float)) {
            return cx.add("TYPE_MISMATCH", c.path(), kw(c, "type"),
                          quoted_name(c.path()) + " must be " + expected() +
                              " written without a decimal point or exponent; got " + got_text(v, cx.doc) +
                              " (a whole number written as a float is not accepted here)");
        } else if (std::fabs(d) >= 1e38) {
            // |d| < 2^127 converts exactly; anything larger is out of every range anyway.
            x = d < 0 ? lo - 1 : hi + 1;
        } else {
            x = static_cast<wide>(d);
        }
    } else {
        return type_mismatch(v, c, cx, expected());
    }
    if (x < lo || x > hi) {
        boost::json::object details;
        details["minimum"] = from_wide(lo);
        details["maximum"] = from_wide(hi);
        return cx.add("OUT_OF_RANGE", c.path(), kw(c, x < lo ? "minimum" : "maximum"),
                      quoted_name(c.path()) + " must be " + expected() + "; got " + got_text(v, cx.doc),
                      std::move(details));
    }
    out = static_cast<M>(x);
}

template <class M>
void convert_floating(const boost::json::value& v, M& out, const field_spec* fs, const cursor& c, convert_context& cx) {
    const boost::json::value* lo = fs && fs->minimum ? &fs->minimum->value : nullptr;
    const boost::json::value* hi = fs && fs->maximum ? &fs->maximum->value : nullptr;
    const bool lo_ex = lo && fs->minimum->exclusive;
    const bool hi_ex = hi && fs->maximum->exclusive;
    const auto expected = [&] {
        const std::string bounds = bounds_phrase(lo, lo_ex, hi, hi_ex);
        return bounds.empty() ? std::string("a number") : "a number " + bounds;
    };
    if (!v.is_number()) return type_mismatch(v, c, cx, expected());
    const double d = v.to_number<double>();
    const bool below = lo && (lo_ex ? !(d > lo->to_number<double>()) : d < lo->to_number<double>());
    const bool above = hi && (hi_ex ? !(d < hi->to_number<double>()) : d > hi->to_number<double>());
    if (below || above) {
        const char* keyword =
            below ? (lo_ex ? "exclusiveMinimum" : "minimum") : (hi_ex ? "exclusiveMaximum" : "maximum");
        return cx.add("OUT_OF_RANGE", c.path(), kw(c, keyword),
                      quoted_name(c.path()) + " must be " + expected() + "; got " + got_text(v, cx.doc));
    }
    out = static_cast<M>(d);
}

void convert_decimal(const boost::json::value& v, decimal& out, const field_spec* fs, const cursor& c,
                     convert_context& cx);
void convert_string(const boost::json::value& v, std::string& out, const field_spec* fs, const cursor& c,
                    convert_context& cx);
/// Item-count check of a vector (`is_array`) or map; false when it failed.
bool check_items(std::size_t n, bool is_array, const field_spec* fs, const cursor& c, convert_context& cx);

template <class M>
void convert_enum(const boost::json::value& v, M& out, const cursor& c, convert_context& cx) {
    const auto expected = [] {
        std::string names;
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<M>>([&](auto d) {
            if (!names.empty()) names += ", ";
            names += '"';
            names += decltype(d)::name;
            names += '"';
        });
        return "one of " + names;
    };
    if (!v.is_string()) return type_mismatch(v, c, cx, expected());
    const std::string_view s = v.get_string();
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<M>>([&](auto d) {
        if (!found && s == decltype(d)::name) {
            out = decltype(d)::value;
            found = true;
        }
    });
    if (!found)
        cx.add("ENUM_MISMATCH", c.path(), kw(c, "enum"),
               quoted_name(c.path()) + " must be " + expected() + "; got " + got_text(v, cx.doc));
}

/// Convert `v` into `out` (type `M`), appending issues to `cx`.
template <class M>
void convert_value(const boost::json::value& v, M& out, const field_spec* fs, bool items_used, const cursor& c,
                   convert_context& cx) {
    if (cx.full()) return;
    if constexpr (is_optional<M>::value) {
        out.emplace();
        convert_value(v, *out, fs, items_used, c, cx);
    } else if constexpr (is_vector<M>::value) {
        if (!v.is_array()) return type_mismatch(v, c, cx, "an array");
        const auto& a = v.get_array();
        if (!items_used && !check_items(a.size(), true, fs, c, cx)) return;
        out.clear();
        out.reserve(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            const cursor item{&c, cursor::step::index, {}, i};
            // Through a local element: std::vector<bool> has no element references.
            typename is_vector<M>::element e{};
            convert_value(a[i], e, fs, true, item, cx);
            out.push_back(std::move(e));
        }
    } else if constexpr (is_string_map<M>::value) {
        if (!v.is_object()) return type_mismatch(v, c, cx, "an object");
        const auto& o = v.get_object();
        if (!items_used && !check_items(o.size(), false, fs, c, cx)) return;
        out.clear();
        for (const auto& kv : o) {
            const cursor entry{&c, cursor::step::key, kv.key(), 0};
            convert_value(kv.value(), out[std::string(kv.key())], fs, true, entry, cx);
        }
    } else if constexpr (std::is_same_v<M, bool>) {
        if (!v.is_bool()) return type_mismatch(v, c, cx, "true or false");
        out = v.get_bool();
    } else if constexpr (integer<M>) {
        convert_integer(v, out, fs, c, cx);
    } else if constexpr (std::is_floating_point_v<M>) {
        convert_floating(v, out, fs, c, cx);
    } else if constexpr (std::is_same_v<M, decimal>) {
        convert_decimal(v, out, fs, c, cx);
    } else if constexpr (std::is_same_v<M, std::string>) {
        convert_string(v, out, fs, c, cx);
    } else if constexpr (described_enum<M>) {
        convert_enum(v, out, c, cx);
    } else if constexpr (described_struct<M>) {
        convert_object(v, out, c, cx);
    } else {
        static_assert(supported_scalar<M>, "unsupported argument type");
    }
}

template <class T>
void convert_object(const boost::json::value& v, T& out, const cursor& c, convert_context& cx) {
    if (!v.is_object()) return type_mismatch(v, c, cx, "an object");
    convert_members(v.get_object(), out, c, cx);
}

template <class T>
void convert_members(const boost::json::object& o, T& out, const cursor& c, convert_context& cx) {
    const struct_spec& ss = spec_of<T>();
    // Unknown keys first, so that a misspelt argument is reported next to its missing twin.
    if (!ss.allow_unknown_fields) {
        for (const auto& kv : o) {
            bool known = c.parent == nullptr && cx.passed_over != nullptr && cx.passed_over->contains(kv.key());
            boost::mp11::mp_for_each<members_of<T>>([&](auto d) { known = known || kv.key() == decltype(d)::name; });
            if (!known) {
                const std::string path = cursor{&c, cursor::step::key, kv.key(), 0}.path();
                boost::json::object details;
                details["field"] = kv.key();
                cx.add("UNKNOWN_FIELD", path, kw(c, "additionalProperties"),
                       "unknown argument '" + display_name(path) + "'", std::move(details));
            }
        }
    }
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        using M = std::remove_cvref_t<decltype(out.*decltype(d)::pointer)>;
        const field_spec* fs = ss.find(decltype(d)::name);
        const cursor member{&c, cursor::step::member, decltype(d)::name, 0};
        const boost::json::value* child = o.if_contains(decltype(d)::name);
        if (!child) {
            if (!is_optional<M>::value && !(fs && fs->optional)) {
                boost::json::object details;
                details["field"] = decltype(d)::name;
                const std::string path = member.path();
                cx.add("REQUIRED_MISSING", path, kw(c, "required"),
                       "missing required argument '" + display_name(path) + "'", std::move(details));
            }
            return;
        }
        convert_value(*child, out.*decltype(d)::pointer, fs, false, member, cx);
    });
}

}  // namespace candor::contract::detail
