// SPDX-License-Identifier: BSL-1.0
#pragma once
// Conversions between the transport's records and SQL values, shared by the SQL stores of the
// HTTP transport (session records, the event log). Private to the store module.

#include <candor/store/database.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace candor::state::detail {

/// A time as Unix milliseconds (how the tables keep times).
inline std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

inline std::chrono::system_clock::time_point from_unix_ms(std::int64_t ms) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::milliseconds(ms)));
}

/// A column's text (empty unless it is text).
inline std::string text_of(const store::sql_value& v) {
    const auto* s = std::get_if<std::string>(&v);
    return s ? *s : std::string();
}

/// A column's integer (0 unless it is one).
inline std::int64_t number_of(const store::sql_value& v) {
    const auto* n = std::get_if<std::int64_t>(&v);
    return n ? *n : 0;
}

}  // namespace candor::state::detail
