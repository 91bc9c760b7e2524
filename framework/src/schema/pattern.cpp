// SPDX-License-Identifier: BSL-1.0
#include "pattern.hpp"

#include <re2/re2.h>

#include <cstdint>

namespace candor::schema::detail {
namespace {

// ECMA-262 WhiteSpace and LineTerminator code points, as a class body (no brackets).
constexpr std::string_view ecma_space =
    "\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}"
    "\\x{3000}\\x{feff}";
constexpr std::string_view ecma_not_space =
    "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}"
    "\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}"
    "\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}";

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool read_hex(std::string_view s, std::size_t pos, std::size_t count, std::uint32_t& out) {
    if (pos + count > s.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < count; ++i) {
        int h = hex_value(s[pos + i]);
        if (h < 0) return false;
        out = out * 16 + static_cast<std::uint32_t>(h);
    }
    return true;
}

void append_code_point(std::string& out, std::uint32_t cp) {
    static constexpr char digits[] = "0123456789abcdef";
    out += "\\x{";
    std::string hex;
    do {
        hex.insert(hex.begin(), digits[cp % 16]);
        cp /= 16;
    } while (cp != 0);
    out += hex;
    out += '}';
}

struct translator {
    std::string_view in;
    std::string out;
    std::string error;

    // Translates one escape starting at in[i] == '\\'; returns the index after it.
    std::size_t escape(std::size_t i, bool in_class) {
        if (i + 1 >= in.size()) {
            error = "pattern ends with a lone backslash";
            return in.size();
        }
        char c = in[i + 1];
        switch (c) {
            case 'd':
            case 'D':
            case 'w':
            case 'W':
            case 't':
            case 'n':
            case 'r':
            case 'f':
            case 'v':
                out += '\\';
                out += c;
                return i + 2;
            case 'b':
            case 'B':
                if (in_class) {  // [\b] is a backspace in ECMA-262
                    if (c == 'b') out += "\\x{8}";
                    else out += 'B';
                } else {
                    out += '\\';
                    out += c;
                }
                return i + 2;
            case 's':
                if (!in_class) out += '[';
                out += ecma_space;
                if (!in_class) out += ']';
                return i + 2;
            case 'S':
                if (!in_class) out += '[';
                out += ecma_not_space;
                if (!in_class) out += ']';
                return i + 2;
            case '0':
                if (i + 2 < in.size() && in[i + 2] >= '0' && in[i + 2] <= '9') {
                    error = "octal escapes are not supported";
                    return in.size();
                }
                out += "\\x{0}";
                return i + 2;
            case 'c':
                if (i + 2 < in.size() &&
                    ((in[i + 2] >= 'a' && in[i + 2] <= 'z') || (in[i + 2] >= 'A' && in[i + 2] <= 'Z'))) {
                    append_code_point(out, static_cast<std::uint32_t>(in[i + 2]) % 32);
                    return i + 3;
                }
                out += "\\\\c";
                return i + 2;
            case 'x': {
                std::uint32_t cp = 0;
                if (read_hex(in, i + 2, 2, cp)) {
                    append_code_point(out, cp);
                    return i + 4;
                }
                out += 'x';
                return i + 2;
            }
            case 'u': {
                std::uint32_t cp = 0;
                if (i + 2 < in.size() && in[i + 2] == '{') {
                    std::size_t close = in.find('}', i + 3);
                    if (close == std::string_view::npos || close == i + 3 || close - (i + 3) > 6 ||
                        !read_hex(in, i + 3, close - (i + 3), cp) || cp > 0x10FFFF) {
                        error = "invalid \\u{...} escape";
                        return in.size();
                    }
                    append_code_point(out, cp);
                    return close + 1;
                }
                if (!read_hex(in, i + 2, 4, cp)) {
                    out += 'u';
                    return i + 2;
                }
                std::size_t next = i + 6;
                if (cp >= 0xD800 && cp <= 0xDBFF && next + 1 < in.size() && in[next] == '\\' && in[next + 1] == 'u') {
                    std::uint32_t low = 0;
                    if (read_hex(in, next + 2, 4, low) && low >= 0xDC00 && low <= 0xDFFF) {
                        append_code_point(out, 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
                        return next + 6;
                    }
                }
                if (cp >= 0xD800 && cp <= 0xDFFF) {
                    error = "lone surrogate escapes cannot match UTF-8 text";
                    return in.size();
                }
                append_code_point(out, cp);
                return next;
            }
            case 'p':
            case 'P': {
                out += '\\';
                out += c;
                std::size_t close = in.find('}', i + 2);
                if (i + 2 < in.size() && in[i + 2] == '{' && close != std::string_view::npos) {
                    // RE2 knows general categories by their short names only.
                    std::string_view name = in.substr(i + 3, close - i - 3);
                    static constexpr std::pair<std::string_view, std::string_view> long_names[] = {
                        {"Letter", "L"},
                        {"Lowercase_Letter", "Ll"},
                        {"Uppercase_Letter", "Lu"},
                        {"Titlecase_Letter", "Lt"},
                        {"Modifier_Letter", "Lm"},
                        {"Other_Letter", "Lo"},
                        {"Mark", "M"},
                        {"Number", "N"},
                        {"Decimal_Number", "Nd"},
                        {"digit", "Nd"},
                        {"Letter_Number", "Nl"},
                        {"Other_Number", "No"},
                        {"Punctuation", "P"},
                        {"punct", "P"},
                        {"Symbol", "S"},
                        {"Separator", "Z"},
                        {"Space_Separator", "Zs"},
                        {"Other", "C"},
                        {"Control", "Cc"},
                        {"cntrl", "Cc"},
                        {"Format", "Cf"},
                        {"Private_Use", "Co"},
                        {"Math_Symbol", "Sm"},
                        {"Currency_Symbol", "Sc"}};
                    for (const auto& [from, to] : long_names)
                        if (name == from) name = to;
                    if (name.substr(0, 7) == "Script=" || name.substr(0, 3) == "sc=")
                        name = name.substr(name.find('=') + 1);
                    out += '{';
                    out += name;
                    out += '}';
                    return close + 1;
                }
                return i + 2;
            }
            case 'k':
                error = "named backreferences (\\k<name>) are not supported: RE2 runs in linear time";
                return in.size();
            default: break;
        }
        if (c >= '1' && c <= '9') {
            error = "backreferences (\\1...) are not supported: RE2 runs in linear time";
            return in.size();
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            // ECMA-262 identity escape: the letter itself.
            out += c;
            return i + 2;
        }
        // Escaped punctuation or other character: keep it literal.
        if (static_cast<unsigned char>(c) < 0x80) {
            out += '\\';
            out += c;
        } else {
            out += c;
        }
        return i + 2;
    }

    void run() {
        std::size_t i = 0;
        while (i < in.size() && error.empty()) {
            char c = in[i];
            if (c == '\\') {
                i = escape(i, false);
            } else if (c == '[') {
                i = klass(i);
            } else if (c == '(') {
                if (in.substr(i, 3) == "(?=" || in.substr(i, 3) == "(?!" || in.substr(i, 4) == "(?<=" ||
                    in.substr(i, 4) == "(?<!") {
                    error = "lookahead and lookbehind are not supported: RE2 runs in linear time";
                    return;
                }
                if (in.substr(i, 3) == "(?<") {
                    out += "(?P<";
                    i += 3;
                } else {
                    out += c;
                    ++i;
                }
            } else if (c == '.') {
                out += "[^\\n\\r\\x{2028}\\x{2029}]";
                ++i;
            } else {
                out += c;
                ++i;
            }
        }
    }

    std::size_t klass(std::size_t i) {
        std::size_t j = i + 1;
        bool negated = j < in.size() && in[j] == '^';
        if (negated) ++j;
        if (j < in.size() && in[j] == ']') {
            // ECMA-262: [] matches nothing, [^] matches anything.
            out += negated ? "[\\x{0}-\\x{10ffff}]" : "[^\\x{0}-\\x{10ffff}]";
            return j + 1;
        }
        out += negated ? "[^" : "[";
        while (j < in.size() && error.empty()) {
            char c = in[j];
            if (c == ']') {
                out += ']';
                return j + 1;
            }
            if (c == '\\') {
                j = escape(j, true);
            } else if (c == '[') {
                out += "\\[";
                ++j;
            } else {
                out += c;
                ++j;
            }
        }
        if (error.empty()) error = "unterminated character class";
        return in.size();
    }
};

// Parses `^atom{m,n}...$` over ASCII classes; false for anything else.
bool parse_simple(std::string_view p, std::vector<simple_atom>& atoms) {
    if (p.size() < 2 || p.front() != '^' || p.back() != '$') return false;
    if (p.size() >= 3 && p[p.size() - 2] == '\\') return false;  // "\$" is a literal
    std::string_view body = p.substr(1, p.size() - 2);
    auto set = [](simple_atom& a, unsigned char c) {
        if (c < 64) a.lo |= std::uint64_t{1} << c;
        else a.hi |= std::uint64_t{1} << (c - 64);
    };
    auto set_range = [&](simple_atom& a, unsigned char from, unsigned char to) {
        for (unsigned c = from; c <= to; ++c) set(a, static_cast<unsigned char>(c));
    };
    auto class_escape = [&](simple_atom& a, char e) -> bool {
        switch (e) {
            case 'd': set_range(a, '0', '9'); return true;
            case 'w':
                set_range(a, '0', '9');
                set_range(a, 'a', 'z');
                set_range(a, 'A', 'Z');
                set(a, '_');
                return true;
            default: break;
        }
        if (static_cast<unsigned char>(e) < 128 &&
            !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))) {
            set(a, static_cast<unsigned char>(e));  // escaped punctuation
            return true;
        }
        return false;
    };
    std::size_t i = 0;
    while (i < body.size()) {
        simple_atom a;
        char c = body[i];
        if (c == '[') {
            ++i;
            if (i < body.size() && body[i] == '^') return false;
            bool closed = false;
            while (i < body.size()) {
                char d = body[i];
                if (d == ']') {
                    closed = true;
                    ++i;
                    break;
                }
                if (static_cast<unsigned char>(d) >= 128 || d == '[') return false;
                if (d == '\\') {
                    if (i + 1 >= body.size() || !class_escape(a, body[i + 1])) return false;
                    i += 2;
                    continue;
                }
                if (i + 2 < body.size() && body[i + 1] == '-' && body[i + 2] != ']') {
                    char to = body[i + 2];
                    if (to == '\\' || static_cast<unsigned char>(to) >= 128 || to < d) return false;
                    set_range(a, static_cast<unsigned char>(d), static_cast<unsigned char>(to));
                    i += 3;
                    continue;
                }
                set(a, static_cast<unsigned char>(d));
                ++i;
            }
            if (!closed) return false;
        } else if (c == '\\') {
            if (i + 1 >= body.size() || !class_escape(a, body[i + 1])) return false;
            i += 2;
        } else if (static_cast<unsigned char>(c) < 128 &&
                   std::string_view(".^$|()[]{}*+?").find(c) == std::string_view::npos) {
            set(a, static_cast<unsigned char>(c));
            ++i;
        } else {
            return false;
        }
        if (i < body.size()) {
            char q = body[i];
            if (q == '*' || q == '+' || q == '?') {
                a.min = q == '+' ? 1 : 0;
                a.max = q == '?' ? 1 : UINT32_MAX;
                ++i;
            } else if (q == '{') {
                std::size_t close = body.find('}', i);
                if (close == std::string_view::npos) return false;
                std::string_view spec = body.substr(i + 1, close - i - 1);
                auto comma = spec.find(',');
                auto number = [](std::string_view t, std::uint32_t& out) {
                    if (t.empty() || t.size() > 4) return false;
                    out = 0;
                    for (char ch : t) {
                        if (ch < '0' || ch > '9') return false;
                        out = out * 10 + static_cast<std::uint32_t>(ch - '0');
                    }
                    return true;
                };
                if (comma == std::string_view::npos) {
                    if (!number(spec, a.min)) return false;
                    a.max = a.min;
                } else {
                    if (!number(spec.substr(0, comma), a.min)) return false;
                    if (comma + 1 == spec.size()) a.max = UINT32_MAX;
                    else if (!number(spec.substr(comma + 1), a.max) || a.max < a.min) return false;
                }
                i = close + 1;
            }
            if (i < body.size() && (body[i] == '?' || body[i] == '*' || body[i] == '+' || body[i] == '{'))
                return false;  // lazy or stacked quantifiers
        }
        atoms.push_back(a);
    }
    // Greedy matching is exact when no variable-length atom can give a byte to what follows
    // it: its class must be disjoint from every later atom up to the first mandatory one.
    for (std::size_t k = 0; k < atoms.size(); ++k) {
        if (atoms[k].min == atoms[k].max) continue;
        for (std::size_t j = k + 1; j < atoms.size(); ++j) {
            if ((atoms[k].lo & atoms[j].lo) || (atoms[k].hi & atoms[j].hi)) return false;
            if (atoms[j].min > 0) break;
        }
    }
    return true;
}

}  // namespace

compiled_pattern::compiled_pattern() = default;
compiled_pattern::compiled_pattern(compiled_pattern&&) noexcept = default;
compiled_pattern& compiled_pattern::operator=(compiled_pattern&&) noexcept = default;
compiled_pattern::~compiled_pattern() = default;

bool compiled_pattern::search(std::string_view text) const {
    if (!is_simple) return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re);
    std::size_t pos = 0;
    for (const auto& a : simple) {
        std::uint32_t count = 0;
        while (count < a.max && pos < text.size() && a.has(static_cast<unsigned char>(text[pos]))) {
            ++pos;
            ++count;
        }
        if (count < a.min) return false;
    }
    return pos == text.size();
}

boost::system::result<compiled_pattern, std::string> compile_pattern(std::string_view ecma) {
    translator t{ecma, {}, {}};
    t.out.reserve(ecma.size() + 16);
    t.run();
    if (!t.error.empty()) return t.error;
    re2::RE2::Options opt;
    opt.set_log_errors(false);
    opt.set_encoding(re2::RE2::Options::EncodingUTF8);
    compiled_pattern out;
    out.re = std::make_unique<re2::RE2>(t.out, opt);
    if (!out.re->ok()) return "not a supported regular expression: " + out.re->error();
    out.is_simple = parse_simple(ecma, out.simple);
    return out;
}

}  // namespace candor::schema::detail
