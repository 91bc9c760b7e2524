// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2).

#include <optional>
#include <string>
#include <string_view>

namespace candor::auth {

/// Decode strictly: only the URL-safe alphabet, no padding, no whitespace, and the unused low
/// bits of the last character zero (one encoding per byte string: a signature cannot be
/// altered without changing its text).
/// @return the bytes, or nothing for text that is not canonical base64url
/// @complexity linear in the size of `text`
std::optional<std::string> base64url_decode(std::string_view text);

/// Encode without padding.
std::string base64url_encode(std::string_view bytes);

}  // namespace candor::auth
