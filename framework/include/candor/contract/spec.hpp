// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Per-field descriptions and constraints, declared next to the argument struct.
///
/// A tool author describes the struct with Boost.Describe and, in the same namespace, writes
/// one function that Candor finds by argument-dependent lookup:
///
/// @code
/// struct search_args { std::string query; int limit = 5; };
/// BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))
///
/// inline void describe_contract(candor::contract::spec<search_args>& s) {
///     s.field(&search_args::query).description("Words to look for").length(1, 200);
///     s.field(&search_args::limit).description("How many results").range(1, 10).optional();
/// }
/// @endcode
///
/// Fields are named by member pointer, so a typo or a renamed member is a compile error, and
/// each constraint is only available for the types it makes sense for (`range` on a string,
/// or `max_digits` on an integer, does not compile). Scalar constraints (range, length,
/// pattern, choices, format, decimal digits) apply to the innermost element of a field
/// (`std::vector<std::string> tags` with `.length(1, 20)` limits each tag); item limits apply
/// to the field's own vector or map.
///
/// Required: a field is required unless its type is `std::optional<T>` (absent → nullopt) or it
/// is marked `.optional()` (absent → the value of its default member initializer, since the
/// struct is value-initialized before conversion). `null` is a value, never "absent": it is a
/// TYPE_MISMATCH for every field type.

#include <candor/contract/decimal.hpp>
#include <candor/contract/detail/traits.hpp>

#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace candor::contract {

namespace detail {
/// A compiled RE2 pattern (opaque: RE2 stays a private dependency of the framework).
struct compiled_pattern;
/// Compile once at registration; throws std::invalid_argument (a bug in the contract) if RE2
/// refuses the pattern.
std::shared_ptr<const compiled_pattern> compile_pattern(const std::string& pattern);
/// JSON Schema semantics: the pattern may match anywhere (not anchored).
bool pattern_matches(const compiled_pattern& p, std::string_view text);
/// Throws std::invalid_argument for a constant that is not a decimal (a bug in the contract).
decimal decimal_constant(std::string_view text);
}  // namespace detail

/// A bound on an integer or floating-point field. `value` holds an int64, uint64 or double.
struct numeric_bound {
    boost::json::value value{};
    bool exclusive = false;
};

struct decimal_bound {
    decimal value{};
    bool exclusive = false;
};

/// Everything declared about one field. Plain data; built by `field_builder`.
struct field_spec {
    std::string description{};
    /// Not required; when absent the default member initializer's value is kept.
    bool optional = false;
    /// Integer fields: accept 3.0 / 3e0 (JSON Schema's view) instead of TYPE_MISMATCH.
    bool allow_integral_float = false;
    std::optional<numeric_bound> minimum{}, maximum{};
    std::optional<decimal_bound> decimal_minimum{}, decimal_maximum{};
    std::optional<int> max_digits{}, decimal_places{};
    /// Strings: length in Unicode code points.
    std::optional<std::size_t> min_length{}, max_length{};
    std::string pattern{};
    std::shared_ptr<const detail::compiled_pattern> compiled{};
    /// Advertised as `format`; asserted by the validator only when the contract opts in.
    std::string format{};
    /// Strings: the allowed values (`enum`).
    std::vector<std::string> choices{};
    /// Vectors: items; maps: properties.
    std::optional<std::size_t> min_items{}, max_items{};
};

/// Everything declared about one struct.
struct struct_spec {
    std::string description{};
    bool allow_unknown_fields = false;
    std::vector<std::pair<std::string, field_spec>> fields{};

    const field_spec* find(std::string_view name) const noexcept {
        for (const auto& f : fields)
            if (f.first == name) return &f.second;
        return nullptr;
    }
    field_spec& at(std::string_view name) {
        for (auto& f : fields)
            if (f.first == name) return f.second;
        return fields.emplace_back(std::string(name), field_spec{}).second;
    }
};

/// Declares the constraints of one field of type `M`; every setter returns `*this`.
template <class M>
class field_builder {
    using inner = detail::innermost_t<M>;
    using outer = detail::strip_optional_t<M>;
    static constexpr bool is_int = detail::integer<inner>;
    static constexpr bool is_float = std::floating_point<inner>;
    static constexpr bool is_decimal = std::same_as<inner, decimal>;
    static constexpr bool is_string = std::same_as<inner, std::string>;

    static boost::json::value number(inner v) {
        if constexpr (is_float) return boost::json::value(static_cast<double>(v));
        else if constexpr (std::is_signed_v<inner>) return boost::json::value(static_cast<std::int64_t>(v));
        else return boost::json::value(static_cast<std::uint64_t>(v));
    }

public:
    explicit field_builder(field_spec& f) noexcept : f_(&f) {}

    /// Shown to the model as the property's `description`.
    field_builder& description(std::string text) {
        f_->description = std::move(text);
        return *this;
    }
    /// Not required: when absent, the default member initializer's value is kept.
    field_builder& optional() {
        f_->optional = true;
        return *this;
    }

    /// Inclusive range; for integers it is intersected with the C++ type's range.
    field_builder& range(inner lo, inner hi) requires(is_int || is_float) { return minimum(lo).maximum(hi); }
    field_builder& minimum(inner v) requires(is_int || is_float) {
        f_->minimum = numeric_bound{number(v), false};
        return *this;
    }
    field_builder& maximum(inner v) requires(is_int || is_float) {
        f_->maximum = numeric_bound{number(v), false};
        return *this;
    }
    field_builder& exclusive_minimum(inner v) requires is_float {
        f_->minimum = numeric_bound{number(v), true};
        return *this;
    }
    field_builder& exclusive_maximum(inner v) requires is_float {
        f_->maximum = numeric_bound{number(v), true};
        return *this;
    }
    /// Opt in to JSON Schema's view that 3.0 is the integer 3 (default: TYPE_MISMATCH).
    field_builder& allow_integral_float() requires is_int {
        f_->allow_integral_float = true;
        return *this;
    }

    /// Decimal bounds, written as text so that they are exact ("0.01", "1000000").
    field_builder& minimum(std::string_view v) requires is_decimal {
        f_->decimal_minimum = decimal_bound{detail::decimal_constant(v), false};
        return *this;
    }
    field_builder& maximum(std::string_view v) requires is_decimal {
        f_->decimal_maximum = decimal_bound{detail::decimal_constant(v), false};
        return *this;
    }
    field_builder& exclusive_minimum(std::string_view v) requires is_decimal {
        f_->decimal_minimum = decimal_bound{detail::decimal_constant(v), true};
        return *this;
    }
    field_builder& exclusive_maximum(std::string_view v) requires is_decimal {
        f_->decimal_maximum = decimal_bound{detail::decimal_constant(v), true};
        return *this;
    }
    /// Pydantic's `max_digits` (trailing fractional zeros not counted).
    field_builder& max_digits(int n) requires is_decimal {
        f_->max_digits = n;
        return *this;
    }
    /// Pydantic's `decimal_places` (trailing fractional zeros not counted).
    field_builder& decimal_places(int n) requires is_decimal {
        f_->decimal_places = n;
        return *this;
    }

    /// Length in Unicode code points, inclusive.
    field_builder& length(std::size_t lo, std::size_t hi) requires is_string {
        f_->min_length = lo;
        f_->max_length = hi;
        return *this;
    }
    field_builder& min_length(std::size_t n) requires is_string {
        f_->min_length = n;
        return *this;
    }
    field_builder& max_length(std::size_t n) requires is_string {
        f_->max_length = n;
        return *this;
    }
    /// RE2 syntax, unanchored (use ^…$ to match the whole string), as JSON Schema's `pattern`.
    field_builder& pattern(std::string re) requires is_string {
        f_->compiled = detail::compile_pattern(re);
        f_->pattern = std::move(re);
        return *this;
    }
    /// e.g. "email", "date", "uuid"; an annotation unless the contract asserts formats.
    field_builder& format(std::string name) requires is_string {
        f_->format = std::move(name);
        return *this;
    }
    /// The only accepted values (`enum`).
    field_builder& one_of(std::initializer_list<std::string_view> values) requires is_string {
        f_->choices.assign(values.begin(), values.end());
        return *this;
    }

    /// Number of items of a vector, or of entries of a map, inclusive.
    field_builder& items(std::size_t lo, std::size_t hi) requires detail::container<outer> {
        f_->min_items = lo;
        f_->max_items = hi;
        return *this;
    }
    field_builder& min_items(std::size_t n) requires detail::container<outer> {
        f_->min_items = n;
        return *this;
    }
    field_builder& max_items(std::size_t n) requires detail::container<outer> {
        f_->max_items = n;
        return *this;
    }

private:
    field_spec* f_;
};

/// The declaration of one argument struct; passed to the user's `describe_contract`.
template <class T>
class spec {
    static_assert(detail::described_struct<T>, "describe the struct with BOOST_DESCRIBE_STRUCT");

public:
    /// Shown as the object's `description` (for nested structs; a tool's own description
    /// belongs to the tool).
    spec& description(std::string text) {
        data_.description = std::move(text);
        return *this;
    }
    /// Accept and ignore unknown fields instead of UNKNOWN_FIELD (`additionalProperties: true`).
    spec& allow_unknown_fields() {
        data_.allow_unknown_fields = true;
        return *this;
    }

    /// The builder for a described public member of `T`.
    template <class M>
    field_builder<M> field(M T::*member) {
        std::string_view name;
        boost::mp11::mp_for_each<detail::members_of<T>>([&](auto d) {
            if constexpr (std::is_same_v<std::remove_cv_t<decltype(decltype(d)::pointer)>, M T::*>) {
                if (decltype(d)::pointer == member) name = decltype(d)::name;
            }
        });
        if (name.empty()) throw std::logic_error("candor::contract: field is not a described public member");
        return field_builder<M>(data_.at(name));
    }

    struct_spec& data() noexcept { return data_; }

private:
    struct_spec data_;
};

namespace detail {

// Found by ordinary lookup so that the call below is an ADL call; never selected.
void describe_contract() = delete;

template <class T>
concept has_description = requires(spec<T>& s) {
    describe_contract(s);
};

/// The declaration of `T`, built once (thread-safe) from the user's `describe_contract`.
template <class T>
const struct_spec& spec_of() {
    static const struct_spec s = [] {
        spec<T> b;
        if constexpr (has_description<T>) describe_contract(b);
        return std::move(b.data());
    }();
    return s;
}

}  // namespace detail

}  // namespace candor::contract
