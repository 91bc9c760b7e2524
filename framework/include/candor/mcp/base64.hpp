// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Standard base64 (RFC 4648 §4, with padding), as MCP carries bytes: resource blobs and the
/// `=?base64?…?=` values of `Mcp-Param-*` headers. (JOSE's base64url is in
/// candor/http/auth/base64url.hpp.)

#include <optional>
#include <string>
#include <string_view>

namespace candor::mcp {

std::string base64_encode(std::string_view bytes);

/// Strictly: the standard alphabet in groups of four, padding (one or two `=`) only at the end.
/// @return the bytes, or nothing for any other text
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace candor::mcp
