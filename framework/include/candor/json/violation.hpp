// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Why the intake refused a JSON text: a stable code, where, and (for limits) which limit.

#include <boost/assert/source_location.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace candor::json {

/// Stable intake codes; their names are part of Candor's public contract (docs/codes.md).
enum class intake_code {
    input_too_large,    ///< `INPUT_TOO_LARGE`: raw input over `max_bytes`, detected without parsing
    invalid_json,       ///< `INVALID_JSON`: anything RFC 8259 rejects
    duplicate_key,      ///< `DUPLICATE_KEY`: an object repeats a key (compared after unescaping)
    non_finite_number,  ///< `NON_FINITE_NUMBER`: valid JSON number that overflows a double
    depth_limit,        ///< `DEPTH_LIMIT`: container depth over `max_depth`
    node_limit,         ///< `NODE_LIMIT`: node count over `max_nodes`
};

/// The code's stable name, e.g. "DUPLICATE_KEY".
std::string_view to_string(intake_code code) noexcept;

struct violation {
    intake_code code = intake_code::invalid_json;
    /// JSON Pointer (RFC 6901) to the offending value; "" is the root.
    std::string path{};
    /// For people and models: what is wrong, and where.
    std::string message{};
    /// The limit that was exceeded (limit codes only).
    std::optional<std::size_t> limit{};
    /// Byte offset of the error in the text (`INVALID_JSON` only).
    std::optional<std::size_t> offset{};
};

/// Makes `boost::system::result<T, violation>::value()` throw on a violation (a bug at the
/// caller: it should have checked).
[[noreturn]] void throw_exception_from_error(const violation& v, const boost::source_location& loc);

}  // namespace candor::json
