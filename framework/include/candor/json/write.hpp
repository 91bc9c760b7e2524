#pragma once
/// @file
/// Guarded serialization for everything Candor sends out.
///
/// `boost::json::serialize` writes `Infinity`/`NaN` for non-finite doubles (invalid JSON) and
/// recurses on depth. Every outbound payload goes through `write` instead: an explicit stack,
/// a depth ceiling, non-finite numbers and invalid UTF-8 refused.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace candor::json {

enum class write_error {
    non_finite_number,  ///< a double is NaN or ±infinity
    invalid_utf8,       ///< a string or key is not valid UTF-8
    too_deep,           ///< nesting deeper than the ceiling
};

/// Serialize `v` compactly, appending to `out`. On error `out` is left as it was.
/// @param max_depth container-depth ceiling (same rule as the intake)
/// @complexity linear in the size of the output
boost::system::result<void, write_error> write(const boost::json::value& v, std::string& out,
                                               std::size_t max_depth = 512);

/// The same for an object or an array held as such (passing one where a `value` is expected
/// would copy it whole first).
boost::system::result<void, write_error> write(const boost::json::object& v, std::string& out,
                                               std::size_t max_depth = 512);
boost::system::result<void, write_error> write(const boost::json::array& v, std::string& out,
                                               std::size_t max_depth = 512);

/// Convenience: serialize into a new string.
boost::system::result<std::string, write_error> to_string(const boost::json::value& v,
                                                          std::size_t max_depth = 512);
boost::system::result<std::string, write_error> to_string(const boost::json::object& v,
                                                          std::size_t max_depth = 512);
boost::system::result<std::string, write_error> to_string(const boost::json::array& v,
                                                          std::size_t max_depth = 512);

/// Append `s` as a JSON string literal (quoted, escaped). On error (`s` is not valid UTF-8)
/// `out` is left as it was.
boost::system::result<void, write_error> write_string(std::string_view s, std::string& out);

std::string_view to_string(write_error e) noexcept;

namespace detail {
/// Whether long strings may be escaped with SSSE3 where the CPU has it (the default); off, the
/// SSE2 path is used. For tests, which run both. @return whether SSSE3 is now used
bool use_ssse3(bool allowed) noexcept;
}  // namespace detail

[[noreturn]] void throw_exception_from_error(write_error e, const boost::source_location& loc);

}  // namespace candor::json
