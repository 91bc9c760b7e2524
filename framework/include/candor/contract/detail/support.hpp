// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Non-template helpers shared by schema generation and typed conversion.

#include <candor/error/issue.hpp>
#include <candor/json/document.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace candor::contract::detail {

// Exact integer arithmetic across int64 and uint64 bounds and values.
__extension__ typedef __int128 wide;

std::string to_text(wide v);
/// An int64 or uint64 JSON value as a wide integer (0 for anything else).
wide to_wide(const boost::json::value& v) noexcept;
/// The JSON value of a wide integer known to fit int64 or uint64.
boost::json::value from_wide(wide v) noexcept;
/// "at least 1 and at most 10", "greater than 0", "" (no bounds): for messages.
std::string bounds_phrase(const boost::json::value* lo, bool lo_exclusive, const boost::json::value* hi,
                          bool hi_exclusive);
/// The text to parse a decimal from: the document's raw text when it has it, else the
/// integer's digits or the shortest text that round-trips the double.
std::string number_source(const boost::json::value& v, const candor::json::document* doc);

/// How a path is named in a message: "limit", "items/0/sku", or "arguments" for the root.
std::string display_name(std::string_view path);
/// `display_name` in single quotes, the start of most messages. (Built by appending: GCC 12
/// reports a false -Wrestrict at -O3 for `"'" + std::string&&`.)
std::string quoted_name(std::string_view path);

/// A short rendering of what was received, for messages: the raw text of a number when the
/// document knows it, a JSON string (truncated), or "an object" / "an array".
std::string got_text(const boost::json::value& v, const candor::json::document* doc);

/// True when the document's raw text of number `v` has no fraction and no exponent.
bool is_integer_literal(const boost::json::value& v, const candor::json::document* doc);

/// Unicode code points in valid UTF-8 (the intake guarantees validity).
std::size_t code_points(std::string_view s) noexcept;

/// JSON type name of a value for messages ("true", "a string", ...).
std::string_view kind_of(const boost::json::value& v) noexcept;

/// Type nesting the generated schema and the converter allow (structs, vectors, maps and
/// optionals each count one level). Deeper or recursive argument types are refused when the
/// contract is built (std::logic_error), so conversion never recurses further than this.
inline constexpr int max_type_depth = 32;

/// Where typed conversion collects its issues.
struct convert_context {
    const candor::json::document* doc = nullptr;
    std::size_t max_issues = 64;
    /// Root members the conversion passes over (`contract_options::extra_arguments`), or null.
    const boost::json::object* passed_over = nullptr;
    candor::issue_list issues;

    bool full() const noexcept { return issues.size() >= max_issues; }
    void add(std::string_view code, const std::string& path, const std::string& keyword, std::string message,
             boost::json::object details = {});
};

}  // namespace candor::contract::detail
