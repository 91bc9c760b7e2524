// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: `format` assertions (used when a contract opts in, or its metaschema declares the
// format-assertion vocabulary).

#include "program.hpp"

#include <string_view>

namespace candor::schema::detail {

/// The format named `name`, or `format_kind::other` for names this validator does not check.
format_kind format_from_name(std::string_view name) noexcept;

/// True when `text` conforms to `kind` (RFC 3339 dates and times, RFC 5321 addresses without
/// quoted local parts, RFC 1123 host names, RFC 4122 UUIDs, RFC 3986 URIs, RFC 6901
/// pointers, ...). `other` and the IRI/IDN formats accept everything but are checked for
/// obviously broken text only.
bool check_format(format_kind kind, std::string_view text);

/// What the format means, for messages ("a date (YYYY-MM-DD)").
std::string_view describe_format(format_kind kind) noexcept;

}  // namespace candor::schema::detail
