// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Which C++ types a contract understands, and how they nest.

#include <candor/contract/decimal.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>

#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace candor::contract::detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {
    using element = T;
};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {
    using element = T;
};
template <class T>
struct is_string_map : std::false_type {};
template <class T, class C, class A>
struct is_string_map<std::map<std::string, T, C, A>> : std::true_type {
    using element = T;
};

/// Integer fields: every integral type except bool and the character types (a `char` argument
/// is almost always a mistake for a one-character string).
template <class T>
concept integer = std::integral<T> && !std::same_as<T, bool> && !std::same_as<T, char> && !std::same_as<T, wchar_t> &&
                  !std::same_as<T, char8_t> && !std::same_as<T, char16_t> && !std::same_as<T, char32_t>;

template <class T>
concept described_enum = std::is_enum_v<T> && boost::describe::has_describe_enumerators<T>::value;

template <class T>
concept described_struct = std::is_class_v<T> && boost::describe::has_describe_members<T>::value;

template <class T>
concept container = is_vector<T>::value || is_string_map<T>::value;

/// The type the scalar constraints of a field apply to: optional, vector and map peeled off.
template <class T>
struct innermost {
    using type = T;
};
template <class T>
struct innermost<std::optional<T>> : innermost<T> {};
template <class T, class A>
struct innermost<std::vector<T, A>> : innermost<T> {};
template <class T, class C, class A>
struct innermost<std::map<std::string, T, C, A>> : innermost<T> {};
template <class T>
using innermost_t = typename innermost<T>::type;

/// The type the item limits of a field apply to: the field's type without an outer optional.
template <class T>
struct strip_optional {
    using type = T;
};
template <class T>
struct strip_optional<std::optional<T>> {
    using type = T;
};
template <class T>
using strip_optional_t = typename strip_optional<T>::type;

template <class T>
concept supported_scalar = std::same_as<T, bool> || integer<T> || std::floating_point<T> ||
    std::same_as<T, std::string> || std::same_as<T, decimal> || described_enum<T> || described_struct<T>;

/// The public, non-inherited members a contract reads and writes.
template <class T>
using members_of = boost::describe::describe_members<T, boost::describe::mod_public>;

}  // namespace candor::contract::detail
