// SPDX-License-Identifier: BSL-1.0
#pragma once
// ASCII case folding and optional whitespace, as HTTP header text needs them (never the locale).
// Private to the transport module.

#include <algorithm>
#include <string_view>

namespace candor::transport::detail {

inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

/// Equal but for ASCII case.
inline bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

/// `s` without the optional whitespace (SP, HTAB) at either end.
inline std::string_view trim_ows(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace candor::transport::detail
