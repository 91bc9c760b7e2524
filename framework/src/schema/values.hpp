// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: JSON value semantics that JSON Schema defines differently from Boost.JSON
// (numbers compare by value across int64/uint64/double; objects compare without order).

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace candor::schema::detail {

/// -1, 0 or 1 as `a` is less than, equal to or greater than `b` (both numbers).
int compare_numbers(const boost::json::value& a, const boost::json::value& b) noexcept;

/// JSON Schema equality: 1 == 1.0, objects equal regardless of member order.
/// Recursion is bounded by `depth_ceiling` + 1 (the intake admits nothing deeper); values
/// nested deeper than that compare unequal.
bool json_equal(const boost::json::value& a, const boost::json::value& b) noexcept;

/// The indices of the first pair of equal items, if any.
/// @complexity O(n log n) expected (structural hashes, equality only within a hash bucket).
std::optional<std::pair<std::size_t, std::size_t>> first_duplicate(const boost::json::array& a);

/// `value` is a multiple of `divisor` (> 0): exact for integers, within rounding for doubles.
bool is_multiple_of(const boost::json::value& value, const boost::json::value& divisor) noexcept;

/// True for integers and for doubles without a fractional part (JSON Schema: 1.0 is an integer).
bool is_integral(const boost::json::value& v) noexcept;

/// Unicode code points in UTF-8 text (the intake guarantees valid UTF-8).
std::size_t code_points(std::string_view s) noexcept;

}  // namespace candor::schema::detail
