#pragma once
// Internal: ECMA-262 regular expressions (as JSON Schema patterns are written) on RE2.

#include <boost/system/result.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace candor::schema::detail {

/// Translate an ECMA-262 pattern into RE2 syntax and compile it.
/// Supported: literals, `.`, classes and ranges, `\d \D \w \W \s \S \b \B` (with ECMA's
/// meaning: `\d`/`\w` ASCII, `\s` the Unicode white space set), `\t \n \r \f \v \0 \cX`,
/// `\xHH`, `\uHHHH` (surrogate pairs combined), `\u{H...}`, `\p{...}`/`\P{...}` as far as
/// RE2 knows the property, anchors, groups `(...)`, `(?:...)`, `(?<name>...)`, alternation,
/// greedy and lazy quantifiers (counts up to 1000).
/// Refused (with the reason): lookahead/lookbehind, backreferences (numbered and named) —
/// they cannot run in linear time.
/// @return the compiled expression, or a message saying why the pattern is refused.
boost::system::result<std::unique_ptr<re2::RE2>, std::string> compile_pattern(std::string_view ecma);

/// Unanchored search, as JSON Schema's `pattern` requires.
bool search(const re2::RE2& re, std::string_view text);

}  // namespace candor::schema::detail
