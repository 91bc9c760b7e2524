// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: small helpers shared by the evaluator's source files.

#include <string>
#include <string_view>

namespace candor::schema::detail {

// Member names are short: a byte loop beats a libc memcmp call here.
inline bool same_bytes(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

inline std::string plural(std::size_t k, std::string_view one, std::string_view many) {
    return std::to_string(k) + " " + std::string(k == 1 ? one : many);
}

}  // namespace candor::schema::detail
