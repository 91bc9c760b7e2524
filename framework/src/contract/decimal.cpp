// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/decimal.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace candor::contract {

namespace {

// 128-bit intermediates make every alignment exact: a coefficient below 10^18 times 10^18
// stays below 10^36, far inside the range of a signed 128-bit integer.
__extension__ typedef __int128 wide;

constexpr wide pow10_wide(int n) noexcept {
    wide r = 1;
    for (int i = 0; i < n; ++i) r *= 10;
    return r;
}

bool fits(wide v) noexcept { return v <= decimal::max_coefficient && v >= -decimal::max_coefficient; }

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view to_string(decimal_error e) noexcept {
    switch (e) {
        case decimal_error::invalid_text: return "invalid_text";
        case decimal_error::overflow: return "overflow";
        case decimal_error::too_precise: return "too_precise";
    }
    return "invalid_text";
}

void throw_exception_from_error(decimal_error e, const boost::source_location&) {
    throw std::invalid_argument("decimal: " + std::string(to_string(e)));
}

boost::system::result<decimal, decimal_error> decimal::from_integer(std::int64_t v) noexcept {
    return from_parts(v, 0);
}

boost::system::result<decimal, decimal_error> decimal::from_parts(std::int64_t c, int s) noexcept {
    if (s < 0) {
        if (s < -max_scale) return decimal_error::overflow;
        const wide v = static_cast<wide>(c) * pow10_wide(-s);
        if (!fits(v)) return decimal_error::overflow;
        return decimal(static_cast<std::int64_t>(v), 0);
    }
    if (!fits(c)) return decimal_error::overflow;
    while (s > max_scale && c % 10 == 0) {
        c /= 10;
        --s;
    }
    if (s > max_scale) return decimal_error::too_precise;
    return decimal(c, s);
}

boost::system::result<decimal, decimal_error> decimal::parse(std::string_view text) noexcept {
    std::size_t i = 0;
    const std::size_t n = text.size();
    bool negative = false;
    if (i < n && text[i] == '-') {
        negative = true;
        ++i;
    }
    // Integer part: "0" or [1-9][0-9]*.
    const std::size_t int_begin = i;
    if (i < n && text[i] == '0') {
        ++i;
    } else {
        while (i < n && is_digit(text[i])) ++i;
    }
    if (i == int_begin) return decimal_error::invalid_text;
    const std::size_t int_end = i;
    std::size_t frac_begin = i, frac_end = i;
    if (i < n && text[i] == '.') {
        frac_begin = ++i;
        while (i < n && is_digit(text[i])) ++i;
        frac_end = i;
        if (frac_end == frac_begin) return decimal_error::invalid_text;
    }
    // Exponent, saturated: anything beyond ±10^6 is far outside what can fit anyway.
    long exponent = 0;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool exp_negative = false;
        if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
        const std::size_t exp_begin = i;
        while (i < n && is_digit(text[i])) {
            if (exponent < 1'000'000) exponent = exponent * 10 + (text[i] - '0');
            ++i;
        }
        if (i == exp_begin) return decimal_error::invalid_text;
        if (exp_negative) exponent = -exponent;
    }
    if (i != n) return decimal_error::invalid_text;

    // The significand's digits, integer and fraction read as one sequence (no copy: this runs
    // for every decimal argument).
    const std::size_t int_len = int_end - int_begin;
    const std::size_t total = int_len + (frac_end - frac_begin);
    const auto digit = [&](std::size_t k) { return text[k < int_len ? int_begin + k : frac_begin + (k - int_len)]; };
    std::size_t first = 0;
    while (first < total && digit(first) == '0') ++first;
    long scale = static_cast<long>(frac_end - frac_begin) - exponent;

    if (first == total) {  // zero, any sign: keep the written scale if it fits
        if (scale < 0) scale = 0;
        if (scale > max_scale) scale = max_scale;
        return decimal(0, static_cast<int>(scale));
    }
    std::size_t last = total - 1;  // last non-zero digit
    while (digit(last) == '0') --last;
    long count = static_cast<long>(total - first);
    // Drop trailing fractional zeros only while the number does not fit.
    const long spare_zeros = static_cast<long>(total - 1 - last);
    long drop = std::max<long>(scale - max_scale, count - 18);
    drop = std::min<long>({drop, spare_zeros, scale});
    if (drop > 0) {
        count -= drop;
        scale -= drop;
    }
    const long integer_digits = count - scale;
    if (integer_digits > 18) return decimal_error::overflow;
    if (scale > max_scale || count > 18) return decimal_error::too_precise;

    wide c = 0;
    for (std::size_t k = first; k < first + static_cast<std::size_t>(count); ++k) c = c * 10 + (digit(k) - '0');
    if (scale < 0) {
        c *= pow10_wide(static_cast<int>(-scale));  // integer_digits ≤ 18 keeps this in range
        scale = 0;
    }
    if (!fits(c)) return decimal_error::overflow;
    return decimal(static_cast<std::int64_t>(negative ? -c : c), static_cast<int>(scale));
}

int decimal::decimal_places() const noexcept {
    std::int64_t c = coefficient_;
    int s = scale_;
    while (s > 0 && c % 10 == 0) {
        c /= 10;
        --s;
    }
    return s;
}

int decimal::digits() const noexcept {
    if (coefficient_ == 0) return 1;
    const int places = decimal_places();
    // Integer part without leading zeros.
    std::int64_t int_part = coefficient_ / static_cast<std::int64_t>(pow10_wide(scale_));
    if (int_part < 0) int_part = -int_part;
    int int_digits = 0;
    while (int_part != 0) {
        int_part /= 10;
        ++int_digits;
    }
    return int_digits + places;
}

std::string decimal::to_string() const {
    const bool negative = coefficient_ < 0;
    // |coefficient| ≤ 10^18 - 1, so negation cannot overflow.
    std::string magnitude = std::to_string(negative ? -coefficient_ : coefficient_);
    if (scale_ > 0) {
        if (magnitude.size() <= static_cast<std::size_t>(scale_))
            magnitude.insert(0, static_cast<std::size_t>(scale_) + 1 - magnitude.size(), '0');
        magnitude.insert(magnitude.size() - static_cast<std::size_t>(scale_), 1, '.');
    }
    return negative ? "-" + magnitude : magnitude;
}

double decimal::to_double() const noexcept {
    // Through the text, so that the result is the correctly rounded nearest double.
    const std::string s = to_string();
    double d = 0;
    std::from_chars(s.data(), s.data() + s.size(), d);
    return d;
}

namespace {
boost::system::result<decimal, decimal_error> add_scaled(std::int64_t a, int sa, std::int64_t b, int sb) noexcept {
    const int s = sa > sb ? sa : sb;
    const wide v = static_cast<wide>(a) * pow10_wide(s - sa) + static_cast<wide>(b) * pow10_wide(s - sb);
    if (!fits(v)) return decimal_error::overflow;
    return decimal::from_parts(static_cast<std::int64_t>(v), s);
}
}  // namespace

boost::system::result<decimal, decimal_error> decimal::add(const decimal& o) const noexcept {
    return add_scaled(coefficient_, scale_, o.coefficient_, o.scale_);
}

boost::system::result<decimal, decimal_error> decimal::subtract(const decimal& o) const noexcept {
    return add_scaled(coefficient_, scale_, -o.coefficient_, o.scale_);
}

boost::system::result<decimal, decimal_error> decimal::multiply(std::int64_t factor) const noexcept {
    const wide v = static_cast<wide>(coefficient_) * static_cast<wide>(factor);
    if (!fits(v)) return decimal_error::overflow;
    return decimal(static_cast<std::int64_t>(v), scale_);
}

std::strong_ordering operator<=>(const decimal& a, const decimal& b) noexcept {
    const int s = a.scale_ > b.scale_ ? a.scale_ : b.scale_;
    const wide x = static_cast<wide>(a.coefficient_) * pow10_wide(s - a.scale_);
    const wide y = static_cast<wide>(b.coefficient_) * pow10_wide(s - b.scale_);
    return x < y ? std::strong_ordering::less : (x > y ? std::strong_ordering::greater : std::strong_ordering::equal);
}

}  // namespace candor::contract
