// SPDX-License-Identifier: BSL-1.0
#pragma once
// Internal: ECMA-262 regular expressions (as JSON Schema patterns are written) on RE2.

#include <boost/system/result.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace candor::schema::detail {

/// One step of a pattern simple enough to match without RE2: an ASCII class repeated
/// [min, max] times.
struct simple_atom {
    std::uint64_t lo = 0, hi = 0;  // class membership of bytes 0-63 and 64-127
    std::uint32_t min = 1, max = 1;
    bool has(unsigned char c) const noexcept {
        return c < 64 ? (lo >> c) & 1u : c < 128 ? (hi >> (c - 64)) & 1u : false;
    }
};

/// A compiled pattern: RE2 always; plus, for fully anchored sequences of ASCII classes whose
/// greedy match is the only match (`^[A-Z]{3}-\d{1,4}$`), a direct byte matcher that
/// gives the same answers several times faster.
struct compiled_pattern {
    std::unique_ptr<re2::RE2> re;
    std::vector<simple_atom> simple;
    bool is_simple = false;

    compiled_pattern();
    compiled_pattern(compiled_pattern&&) noexcept;
    compiled_pattern& operator=(compiled_pattern&&) noexcept;
    ~compiled_pattern();

    /// Unanchored search, as JSON Schema's `pattern` requires.
    bool search(std::string_view text) const;
};

/// Translate an ECMA-262 pattern into RE2 syntax and compile it.
/// Supported: literals, `.`, classes and ranges, `\d \D \w \W \s \S \b \B` (with ECMA's
/// meaning: `\d`/`\w` ASCII, `\s` the Unicode white space set), `\t \n \r \f \v \0 \cX`,
/// `\xHH`, `\uHHHH` (surrogate pairs combined), `\u{H...}`, `\p{...}`/`\P{...}` as far as
/// RE2 knows the property, anchors, groups `(...)`, `(?:...)`, `(?<name>...)`, alternation,
/// greedy and lazy quantifiers (counts up to 1000).
/// Refused (with the reason): lookahead/lookbehind, backreferences (numbered and named) —
/// they cannot run in linear time.
/// @return the compiled expression, or a message saying why the pattern is refused.
boost::system::result<compiled_pattern, std::string> compile_pattern(std::string_view ecma);

}  // namespace candor::schema::detail
