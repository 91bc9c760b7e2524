// SPDX-License-Identifier: BSL-1.0
#include "values.hpp"

#include <candor/json/intake.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace candor::schema::detail {
namespace {

namespace bj = boost::json;

long double to_long_double(const bj::value& v) noexcept {
    if (v.is_int64()) return static_cast<long double>(v.get_int64());
    if (v.is_uint64()) return static_cast<long double>(v.get_uint64());
    return static_cast<long double>(v.get_double());
}

bool equal_at(const bj::value& a, const bj::value& b, std::size_t depth) noexcept {
    if (depth > json::depth_ceiling + 1) return false;
    if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case bj::kind::null: return true;
        case bj::kind::bool_: return a.get_bool() == b.get_bool();
        case bj::kind::string: return a.get_string() == b.get_string();
        case bj::kind::array: {
            const auto& x = a.get_array();
            const auto& y = b.get_array();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!equal_at(x[i], y[i], depth + 1)) return false;
            return true;
        }
        case bj::kind::object: {
            const auto& x = a.get_object();
            const auto& y = b.get_object();
            if (x.size() != y.size()) return false;
            for (const auto& kv : x) {
                auto it = y.find(kv.key());
                if (it == y.end() || !equal_at(kv.value(), it->value(), depth + 1)) return false;
            }
            return true;
        }
        default: return false;
    }
}

std::uint64_t mix(std::uint64_t h) noexcept {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

// Structural hash consistent with json_equal (numbers hashed by value, members unordered).
std::uint64_t hash_at(const bj::value& v, std::size_t depth) noexcept {
    if (depth > json::depth_ceiling + 1) return 0;
    switch (v.kind()) {
        case bj::kind::null: return 1;
        case bj::kind::bool_: return v.get_bool() ? 2 : 3;
        case bj::kind::int64:
        case bj::kind::uint64:
        case bj::kind::double_: {
            long double d = to_long_double(v);
            double rounded = static_cast<double>(d);
            if (rounded == 0) rounded = 0;  // -0 == 0
            return mix(std::hash<double>{}(rounded) + 5);
        }
        case bj::kind::string: return mix(std::hash<std::string_view>{}(v.get_string()) + 7);
        case bj::kind::array: {
            std::uint64_t h = 11;
            for (const auto& e : v.get_array()) h = mix(h * 31 + hash_at(e, depth + 1));
            return h;
        }
        case bj::kind::object: {
            std::uint64_t h = 13;
            for (const auto& kv : v.get_object())
                h += mix(std::hash<std::string_view>{}(kv.key()) ^
                         (hash_at(kv.value(), depth + 1) * 0x9e3779b97f4a7c15ULL));
            return mix(h);
        }
    }
    return 0;
}

}  // namespace

int compare_numbers(const bj::value& a, const bj::value& b) noexcept {
    if (a.is_int64() && b.is_int64()) return a.get_int64() < b.get_int64() ? -1 : a.get_int64() > b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() < b.get_uint64() ? -1 : a.get_uint64() > b.get_uint64();
    if (a.is_int64() && b.is_uint64()) {
        if (a.get_int64() < 0) return -1;
        auto x = static_cast<std::uint64_t>(a.get_int64());
        return x < b.get_uint64() ? -1 : x > b.get_uint64();
    }
    if (a.is_uint64() && b.is_int64()) return -compare_numbers(b, a);
    // A double is involved: long double holds every int64/uint64 exactly on x86-64.
    long double x = to_long_double(a), y = to_long_double(b);
    return x < y ? -1 : x > y;
}

bool json_equal(const bj::value& a, const bj::value& b) noexcept { return equal_at(a, b, 0); }

std::optional<std::pair<std::size_t, std::size_t>> first_duplicate(const bj::array& a) {
    if (a.size() < 2) return std::nullopt;
    if (a.size() <= 8) {
        for (std::size_t i = 0; i < a.size(); ++i)
            for (std::size_t j = i + 1; j < a.size(); ++j)
                if (json_equal(a[i], a[j])) return std::make_pair(i, j);
        return std::nullopt;
    }
    std::vector<std::pair<std::uint64_t, std::size_t>> hashed;
    hashed.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) hashed.emplace_back(hash_at(a[i], 0), i);
    std::sort(hashed.begin(), hashed.end());
    std::optional<std::pair<std::size_t, std::size_t>> best;
    for (std::size_t s = 0; s < hashed.size();) {
        std::size_t e = s + 1;
        while (e < hashed.size() && hashed[e].first == hashed[s].first) ++e;
        for (std::size_t i = s; i < e; ++i)
            for (std::size_t j = i + 1; j < e; ++j)
                if (json_equal(a[hashed[i].second], a[hashed[j].second])) {
                    auto p = std::minmax(hashed[i].second, hashed[j].second);
                    if (!best || p.second < best->second) best = std::make_pair(p.first, p.second);
                }
        s = e;
    }
    return best;
}

bool is_integral(const bj::value& v) noexcept {
    if (v.is_int64() || v.is_uint64()) return true;
    if (!v.is_double()) return false;
    double d = v.get_double();
    return std::isfinite(d) && d == std::floor(d);
}

bool is_multiple_of(const bj::value& v, const bj::value& m) noexcept {
    if ((v.is_int64() || v.is_uint64()) && (m.is_int64() || m.is_uint64())) {
        std::uint64_t mv = m.is_int64() ? static_cast<std::uint64_t>(m.get_int64()) : m.get_uint64();
        std::uint64_t x = v.is_uint64()       ? v.get_uint64()
                          : v.get_int64() < 0 ? 0 - static_cast<std::uint64_t>(v.get_int64())
                                              : static_cast<std::uint64_t>(v.get_int64());
        return mv != 0 && x % mv == 0;
    }
    long double x = to_long_double(v), d = to_long_double(m);
    if (d <= 0) return false;
    long double q = x / d;
    if (!std::isfinite(static_cast<double>(q))) return false;
    long double r = std::nearbyint(q);
    long double tol = std::max<long double>(1e-9L, std::fabs(q) * 4 * LDBL_EPSILON);
    return std::fabs(q - r) <= tol;
}

std::size_t code_points(std::string_view s) noexcept {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

}  // namespace candor::schema::detail
