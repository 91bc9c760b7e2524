// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// JSON Pointer (RFC 6901) helpers used to report where a problem is.

#include <string>
#include <string_view>

namespace candor::json {

/// Append one reference token to a pointer, escaping `~` as `~0` and `/` as `~1`.
void append_token(std::string& pointer, std::string_view token);

/// Append an array index to a pointer.
void append_index(std::string& pointer, std::size_t index);

/// The pointer `base` followed by `token` (escaped).
std::string child_pointer(std::string_view base, std::string_view token);

/// Undo RFC 6901 escaping of one token. Returns false if the token holds a `~` not followed by
/// `0` or `1`.
bool unescape_token(std::string_view token, std::string& out);

}  // namespace candor::json
