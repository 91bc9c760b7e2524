// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Guarded serialization for everything Candor sends out.
///
/// `boost::json::serialize` writes `Infinity`/`NaN` for non-finite doubles (invalid JSON) and
/// recurses on depth. Every outbound payload goes through `write` instead: an explicit stack,
/// a depth ceiling, non-finite numbers and invalid UTF-8 refused.

#include <boost/assert/source_location.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
boost::system::result<std::string, write_error> to_string(const boost::json::value& v, std::size_t max_depth = 512);
boost::system::result<std::string, write_error> to_string(const boost::json::object& v, std::size_t max_depth = 512);
boost::system::result<std::string, write_error> to_string(const boost::json::array& v, std::size_t max_depth = 512);

/// Append `s` as a JSON string literal (quoted, escaped). On error (`s` is not valid UTF-8)
/// `out` is left as it was.
boost::system::result<void, write_error> write_string(std::string_view s, std::string& out);

/// Append `s` to `out` with every byte that does not begin a valid UTF-8 sequence replaced by
/// U+FFFD, taking at most `max_bytes` of `s` and never cutting a sequence: for text of unknown
/// origin bound for JSON (an exception's message in a log line).
/// @return how many bytes of `s` were taken (`s.size()` unless it was cut)
/// @complexity linear in the bytes taken
std::size_t append_valid_utf8(std::string_view s, std::string& out, std::size_t max_bytes = SIZE_MAX);

/// Where the piecewise writers below append: a string grown ahead (doubling, its slack past the
/// written length), written through a raw pointer and cut to the written length when the sink
/// goes away. Several values written in a row through one sink cost one cut, not one per value.
class text_sink {
public:
    explicit text_sink(std::string& out) : out_(out), start_(out.size()), len_(out.size()) {}
    text_sink(const text_sink&) = delete;
    text_sink& operator=(const text_sink&) = delete;
    ~text_sink() { out_.resize(len_); }

    /// Where the next n bytes go; they fit.
    [[gnu::always_inline]] char* room(std::size_t n) {
        if (out_.size() - len_ < n) [[unlikely]]
            grow(n);
        return out_.data() + len_;
    }
    /// The bytes up to `end` (a pointer from `room`) are written.
    void commit(const char* end) noexcept { len_ = static_cast<std::size_t>(end - out_.data()); }

    /// Raw bytes: JSON punctuation, or text these writers produced.
    [[gnu::always_inline]] void put(char c) { *room(1) = c, ++len_; }
    [[gnu::always_inline]] void put(std::string_view s) {
        const std::size_t n = s.size();
        if (n == 0) return;
        char* q = room(n);
        // Keys and punctuation are short: copied inline with two overlapping moves (a call to
        // memcpy with a length known only at run time costs more than the copy).
        const char* p = s.data();
        if (n >= 8 && n <= 16) {
            copy_word<8>(q, p);
            copy_word<8>(q + n - 8, p + n - 8);
        } else if (n >= 4 && n < 8) {
            copy_word<4>(q, p);
            copy_word<4>(q + n - 4, p + n - 4);
        } else if (n < 4) {
            q[0] = p[0];
            q[n / 2] = p[n / 2];
            q[n - 1] = p[n - 1];
        } else {
            std::char_traits<char>::copy(q, p, n);
        }
        len_ += n;
    }

    std::size_t size() const noexcept { return len_; }
    /// Forget what was written after `size`.
    void rewind(std::size_t size) noexcept { len_ = size; }

private:
    /// Out of line, so that the writers' common path (room to spare) stays small.
    void grow(std::size_t n);
    template <std::size_t N>
    static void copy_word(char* to, const char* from) noexcept {
        char word[N];
        std::memcpy(word, from, N);  // fixed sizes: plain loads and stores, no call
        std::memcpy(to, word, N);
    }

    std::string& out_;
    std::size_t start_;
    std::size_t len_;
};

/// `s` as a JSON string literal. @return false (nothing written) if `s` is not valid UTF-8
bool write_string(std::string_view s, text_sink& out);
/// The bytes `write_string(s, …)` writes (the quotes included), without writing them: how much
/// a text grows when it is sent inside a JSON string (a result's `content[0].text`).
/// @pre `s` is valid UTF-8
/// @complexity linear in `s`
std::size_t string_size(std::string_view s) noexcept;
/// `v` (any kind, containers with an explicit stack). On error nothing is written.
boost::system::result<void, write_error> write(const boost::json::value& v, text_sink& out,
                                               std::size_t max_depth = 512);

/// JSON text written by these writers, kept as text: sent as it is (spliced into the message
/// around it), never parsed again on the way out. A typed collection page carries its items
/// this way (`envelope::data_written`).
class written {
public:
    written() = default;
    /// Adopts `text`, which must be one JSON value written by `write`/`write_string` through a
    /// `text_sink` (or `write`/`to_string`): nothing checks it again. Text from anywhere else
    /// belongs in a `boost::json::value`.
    static written adopt(std::string text) {
        written w;
        w.text_ = std::move(text);
        return w;
    }
    std::string_view text() const noexcept { return text_; }
    /// Gives the text up (to cut or extend it: what is adopted again must still be one value).
    std::string release() && { return std::move(text_); }
    /// The value as a tree, for readers that want one (parsed with the strict intake, so
    /// numbers read back exactly as they were written).
    boost::json::value to_value() const;

private:
    std::string text_;
};

std::string_view to_string(write_error e) noexcept;

namespace detail {
/// How long strings are escaped: `portable` (SSE2 on x86-64, bytewise elsewhere), `ssse3` and
/// `avx2` where the CPU has them (checked once at run time).
enum class escaper { portable, ssse3, avx2 };
/// Escape long strings with `e`, or with the best one below it that the CPU has; the default is
/// the best the CPU has. For tests and the fuzzer, which compare them. @return the one now used
escaper use_escaper(escaper e) noexcept;
}  // namespace detail

[[noreturn]] void throw_exception_from_error(write_error e, const boost::source_location& loc);

}  // namespace candor::json
