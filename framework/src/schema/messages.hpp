// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: the wording of issue messages. Messages are read by a model that has to repair
// its call, so they name the argument, say what would be right, and show what was sent.

#include "program.hpp"

#include <boost/json/value.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace candor::schema::detail {

/// One step of an instance path: an object member or an array index.
struct segment {
    std::string_view key;
    std::size_t index = 0;
    bool is_index = false;
};

/// JSON Pointer of a path ("" for the root).
std::string pointer_of(std::span<const segment> path, const segment* extra = nullptr);

/// How a model should read the path: "'limit'", "'filters[0].field'", or "the arguments".
std::string name_of(std::span<const segment> path, const segment* extra = nullptr);

/// "true", "null", "3.5", "\"abc\"" (long strings shortened), "an object", "an array".
std::string describe_value(const boost::json::value& v);

/// Like `describe_value`, but short objects and arrays are shown as compact JSON (for
/// `const`/`enum` values and duplicates, where "an object" would say nothing).
std::string describe_literal(const boost::json::value& v);

/// "an integer", "a string or null", ...
std::string describe_types(std::uint8_t types);

/// The numeric range a node allows: "from 1 to 10", "at least 0", "greater than 0 and at
/// most 5"; empty when the node has no bound.
std::string describe_range(const node& n);

/// The length a node allows for strings: "of 1 to 20 characters", "of at most 5 characters".
std::string describe_length(const node& n);

/// A number (or any scalar) as compact JSON text.
std::string number_text(const boost::json::value& v);

}  // namespace candor::schema::detail
