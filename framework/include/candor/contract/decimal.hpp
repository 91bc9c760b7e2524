// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// An exact decimal number for money and other quantities that must not pass through a double.
///
/// A `decimal` is `coefficient × 10^-scale` with at most 18 significant digits
/// (|coefficient| ≤ 999 999 999 999 999 999) and a scale of 0..18. That covers every amount of
/// money a tool argument can sensibly carry, fits in 64 bits, and keeps every operation exact:
/// a result that does not fit is an error value (`decimal_error::overflow`), never rounded and
/// never undefined behaviour.
///
/// Text rules (`decimal::parse`, the JSON number grammar of RFC 8259):
/// - the scale written is kept: `19.99` has scale 2, `0.10` has scale 2 and prints as `0.10`;
/// - an exponent is applied exactly: `1e2` is `100` (scale 0), `1.5e-3` is `0.0015` (scale 4);
/// - `-0` (and `-0.00`) is zero without a sign;
/// - trailing fractional zeros are dropped only when needed to fit (`1.000…0` with 30 zeros
///   becomes `1.000000000000000000`); digits that are not zeros are never dropped.
///
/// Equality and ordering are numeric: `0.10 == 0.1`. For Pydantic-style constraints,
/// `digits()` and `decimal_places()` ignore trailing fractional zeros, exactly like
/// Pydantic's `max_digits` / `decimal_places` (`0.10` has 1 decimal place and 1 digit;
/// `100` has 3 digits; `0.001` has 3 digits).

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace candor::contract {

enum class decimal_error {
    invalid_text,  ///< not a JSON number
    overflow,      ///< more than 18 digits before the point, or a result out of range
    too_precise,   ///< more than 18 significant fractional digits that are not zeros
};

std::string_view to_string(decimal_error e) noexcept;

[[noreturn]] void throw_exception_from_error(decimal_error e, const boost::source_location& loc);

class decimal {
public:
    /// Largest coefficient magnitude: 18 nines.
    static constexpr std::int64_t max_coefficient = 999'999'999'999'999'999;
    /// Largest scale (digits after the point).
    static constexpr int max_scale = 18;

    /// Zero, scale 0.
    constexpr decimal() noexcept = default;

    /// An integer, scale 0. Fails with `overflow` beyond 18 digits.
    static boost::system::result<decimal, decimal_error> from_integer(std::int64_t v) noexcept;

    /// `coefficient × 10^-scale`. Fails with `overflow` or `too_precise` outside the limits.
    static boost::system::result<decimal, decimal_error> from_parts(std::int64_t coefficient, int scale) noexcept;

    /// Parse a JSON number's text exactly (see the file comment for the rules).
    /// @complexity linear in the length of the text.
    static boost::system::result<decimal, decimal_error> parse(std::string_view text) noexcept;

    std::int64_t coefficient() const noexcept { return coefficient_; }
    int scale() const noexcept { return scale_; }
    bool is_negative() const noexcept { return coefficient_ < 0; }

    /// Significant digits, Pydantic's rule: digits before the point (without leading zeros)
    /// plus `decimal_places()`; zero counts as 1 digit.
    int digits() const noexcept;
    /// Digits after the point, trailing zeros not counted.
    int decimal_places() const noexcept;

    /// Plain notation, never an exponent, scale kept: "19.99", "0.10", "-3", "100".
    std::string to_string() const;

    /// The nearest double (for advertising bounds in a JSON Schema, never for arithmetic).
    double to_double() const noexcept;

    /// Exact sum / difference at the larger of the two scales.
    boost::system::result<decimal, decimal_error> add(const decimal& o) const noexcept;
    boost::system::result<decimal, decimal_error> subtract(const decimal& o) const noexcept;
    /// Exact product with an integer (e.g. unit price × quantity), same scale.
    boost::system::result<decimal, decimal_error> multiply(std::int64_t factor) const noexcept;

    /// Numeric comparison: scales do not matter (`0.10 == 0.1`).
    friend std::strong_ordering operator<=>(const decimal& a, const decimal& b) noexcept;
    friend bool operator==(const decimal& a, const decimal& b) noexcept {
        return (a <=> b) == std::strong_ordering::equal;
    }

private:
    constexpr decimal(std::int64_t c, int s) noexcept : coefficient_(c), scale_(s) {}
    std::int64_t coefficient_ = 0;
    int scale_ = 0;
};

}  // namespace candor::contract
