// SPDX-License-Identifier: BSL-1.0
// A SKILL.md's YAML frontmatter as JSON: the subset of YAML whose reading every YAML 1.2 parser
// agrees on (candor/skills/skill.hpp says which); the rest is refused with the line it is on.
// Line by line, two levels at most: nothing recursive.
#include <candor/skills/skill.hpp>

#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace candor::skills {

namespace {

constexpr std::size_t max_frontmatter_bytes = 64u << 10;

struct line {
    std::string_view text;
    std::size_t number;  // 1-based, in SKILL.md
};

skill_error invalid(std::size_t number, std::string what) {
    return {"FRONTMATTER_INVALID", "SKILL.md line " + std::to_string(number) + ": " + std::move(what)};
}

bool is_blank_or_comment(std::string_view t) {
    const auto first = t.find_first_not_of(" \t");
    return first == std::string_view::npos || t[first] == '#';
}

std::string_view trim_right(std::string_view t) {
    const auto last = t.find_last_not_of(" \t\r");
    return last == std::string_view::npos ? std::string_view() : t.substr(0, last + 1);
}

bool is_delimiter(std::string_view t) { return trim_right(t) == "---"; }

// After a quoted scalar: nothing, or a comment.
bool only_comment_after(std::string_view rest) {
    const auto first = rest.find_first_not_of(" \t");
    return first == std::string_view::npos || (rest[first] == '#' && first > 0);
}

bool all_of(std::string_view s, bool (*pred)(char)) {
    if (s.empty()) return false;
    for (char c : s)
        if (!pred(c)) return false;
    return true;
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

void append_utf8(std::uint32_t cp, std::string& out) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

boost::system::result<boost::json::value, skill_error> double_quoted(std::string_view t, std::size_t number) {
    std::string out;
    std::size_t i = 1;
    for (; i < t.size() && t[i] != '"'; ++i) {
        if (t[i] != '\\') {
            out += t[i];
            continue;
        }
        if (++i == t.size()) break;
        switch (t[i]) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                const auto hex = t.substr(i + 1, 4);
                std::uint32_t cp = 0;
                if (hex.size() != 4 || !all_of(hex, is_hex) ||
                    std::from_chars(hex.data(), hex.data() + 4, cp, 16).ec != std::errc() ||
                    (cp >= 0xD800 && cp <= 0xDFFF))
                    return invalid(number, "\\u needs four hex digits of a character that is not a surrogate");
                append_utf8(cp, out);
                i += 4;
                break;
            }
            default:
                return invalid(number, std::string("the escape \\") + t[i] +
                                           " is not one Candor reads; write the character itself");
        }
    }
    if (i >= t.size()) return invalid(number, "a double-quoted value must end on its line");
    if (!only_comment_after(t.substr(i + 1))) return invalid(number, "text after the closing quote");
    return boost::json::value(out);
}

boost::system::result<boost::json::value, skill_error> single_quoted(std::string_view t, std::size_t number) {
    std::string out;
    std::size_t i = 1;
    for (; i < t.size(); ++i) {
        if (t[i] != '\'') {
            out += t[i];
        } else if (i + 1 < t.size() && t[i + 1] == '\'') {
            out += '\'';
            ++i;
        } else {
            break;
        }
    }
    if (i >= t.size()) return invalid(number, "a single-quoted value must end on its line");
    if (!only_comment_after(t.substr(i + 1))) return invalid(number, "text after the closing quote");
    return boost::json::value(out);
}

// YAML 1.2's core schema for a plain scalar; what it would read differently elsewhere is refused.
boost::system::result<boost::json::value, skill_error> plain(std::string_view t, std::size_t number) {
    if (t == "~" || t == "null" || t == "Null" || t == "NULL") return boost::json::value(nullptr);
    if (t == "true" || t == "True" || t == "TRUE") return boost::json::value(true);
    if (t == "false" || t == "False" || t == "FALSE") return boost::json::value(false);
    const std::string_view digits = (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
    const auto integer = [&](std::string_view text,
                             int base) -> boost::system::result<boost::json::value, skill_error> {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
        if (ec != std::errc() || end != text.data() + text.size())
            return invalid(number, "the integer " + std::string(t) + " is out of range; quote it");
        return boost::json::value(t[0] == '-' ? -v : v);
    };
    if (all_of(digits, is_dec)) return integer(digits, 10);
    if (t.size() > 2 && t.substr(0, 2) == "0o" && all_of(t.substr(2), is_oct)) return integer(t.substr(2), 8);
    if (t.size() > 2 && t.substr(0, 2) == "0x" && all_of(t.substr(2), is_hex)) return integer(t.substr(2), 16);
    // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    {
        std::size_t i = 0;
        const auto run = [&] {
            const auto from = i;
            while (i < digits.size() && is_dec(digits[i])) ++i;
            return i - from;
        };
        bool number_like = false;
        if (i < digits.size() && digits[i] == '.') {
            ++i;
            number_like = run() > 0;
        } else if (run() > 0) {
            number_like = true;
            if (i < digits.size() && digits[i] == '.') {
                ++i;
                run();
            }
        }
        if (number_like && i < digits.size() && (digits[i] == 'e' || digits[i] == 'E')) {
            ++i;
            if (i < digits.size() && (digits[i] == '-' || digits[i] == '+')) ++i;
            number_like = run() > 0;
        }
        if (number_like && i == digits.size()) {
            const std::string text(t[0] == '+' ? t.substr(1) : t);
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (!std::isfinite(v))
                return invalid(number, "the number " + std::string(t) + " is out of range; quote it");
            return boost::json::value(v);
        }
    }
    const std::string_view bare = digits;
    if (bare == ".inf" || bare == ".Inf" || bare == ".INF" || t == ".nan" || t == ".NaN" || t == ".NAN")
        return invalid(number, std::string(t) + " has no JSON form; quote it to mean the text");
    // A date: YAML 1.1 readers (and some 1.2 ones) make it a timestamp.
    if (t.size() >= 8 && all_of(t.substr(0, 4), is_dec) && t[4] == '-' && is_dec(t[5]))
        return invalid(number, "an unquoted date; quote it (\"" + std::string(t) + "\")");
    return boost::json::value(boost::json::string(t));
}

// One value written on its line (after `key:` or `- `).
boost::system::result<boost::json::value, skill_error> scalar(std::string_view t, std::size_t number) {
    t = trim_right(t);
    t.remove_prefix(std::min(t.size(), t.find_first_not_of(' ')));
    if (t.empty() || t[0] == '#') return boost::json::value(nullptr);
    if (t[0] == '"') return double_quoted(t, number);
    if (t[0] == '\'') return single_quoted(t, number);
    if (t[0] == '|' || t[0] == '>')
        return invalid(number, "block scalars (| and >) are not read; write the value on one line, quoted");
    if (t[0] == '[' || t[0] == '{')
        return invalid(number, "flow collections ([…], {…}) are not read; use a block list or mapping");
    if (t[0] == '&' || t[0] == '*' || t[0] == '!') return invalid(number, "anchors, aliases and tags are not read");
    if (t[0] == '%' || t[0] == '@' || t[0] == '`' || t[0] == ',' || t[0] == ']' || t[0] == '}' ||
        ((t[0] == '-' || t[0] == '?' || t[0] == ':') && (t.size() == 1 || t[1] == ' ')))
        return invalid(number, "a value may not begin with '" + std::string(1, t[0]) + "' unquoted; quote it");
    // A comment begins at " #".
    if (const auto hash = t.find(" #"); hash != std::string_view::npos) t = trim_right(t.substr(0, hash));
    if (t.find(": ") != std::string_view::npos || t.back() == ':')
        return invalid(number, "an unquoted value holding ': ' reads as a mapping; quote the value");
    return plain(t, number);
}

// `key: rest` at the line's start (after its indentation).
boost::system::result<std::pair<std::string, std::string_view>, skill_error> key_of(std::string_view t,
                                                                                    std::size_t number) {
    if (t.empty() || t[0] == '"' || t[0] == '\'' || t[0] == '?' || t[0] == '-' || t[0] == '[' || t[0] == '{' ||
        t[0] == '&' || t[0] == '*' || t[0] == '!' || t[0] == '|' || t[0] == '>' || t[0] == '%' || t[0] == '@')
        return invalid(number, "expected `key: value` with an unquoted key");
    std::size_t colon = 0;
    while (true) {
        colon = t.find(':', colon);
        if (colon == std::string_view::npos) return invalid(number, "expected `key: value`");
        if (colon + 1 == t.size() || t[colon + 1] == ' ') break;
        ++colon;
    }
    const auto key = trim_right(t.substr(0, colon));
    if (key.empty() || key.find(" #") != std::string_view::npos) return invalid(number, "expected a key before ':'");
    return std::make_pair(std::string(key), t.substr(colon + 1));
}

std::size_t indentation(const line& l) { return l.text.find_first_not_of(' '); }

}  // namespace

boost::system::result<boost::json::object, skill_error> parse_frontmatter(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<line> lines;
    bool opened = false, closed = false;
    std::size_t number = 0, bytes = 0;
    while (!text.empty() && !closed) {
        const auto end = text.find('\n');
        auto t = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if ((bytes += t.size() + 1) > max_frontmatter_bytes)
            return skill_error{"FRONTMATTER_INVALID", "SKILL.md: the frontmatter is longer than 64 KiB"};
        if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
        ++number;
        if (!opened) {
            if (!is_delimiter(t)) break;
            opened = true;
        } else if (is_delimiter(t)) {
            closed = true;
        } else {
            lines.push_back({t, number});
        }
    }
    if (!opened || !closed)
        return skill_error{"FRONTMATTER_MISSING", "SKILL.md must begin with YAML frontmatter between two '---' lines"};

    boost::json::object out;
    for (std::size_t i = 0; i < lines.size();) {
        const auto& l = lines[i];
        if (is_blank_or_comment(l.text)) {
            ++i;
            continue;
        }
        if (l.text.find('\t') < l.text.find_first_not_of(" \t")) return invalid(l.number, "a tab in indentation");
        if (indentation(l) != 0)
            return invalid(l.number,
                           "indented where a top-level key was expected (a value continued on the next "
                           "line is not read: write it on one line)");
        auto kv = key_of(l.text, l.number);
        if (!kv) return kv.error();
        auto& [key, rest] = *kv;
        if (out.contains(key)) return invalid(l.number, "the key '" + key + "' appears twice");
        ++i;
        // The lines indented under it.
        std::vector<const line*> children;
        for (; i < lines.size(); ++i) {
            if (is_blank_or_comment(lines[i].text)) continue;
            if (lines[i].text.find('\t') < lines[i].text.find_first_not_of(" \t"))
                return invalid(lines[i].number, "a tab in indentation");
            if (indentation(lines[i]) == 0) break;
            children.push_back(&lines[i]);
        }
        const auto first = rest.find_first_not_of(' ');
        const bool inline_value = first != std::string_view::npos && rest[first] != '#';
        if (inline_value) {
            if (!children.empty())
                return invalid(children.front()->number,
                               "a value continued on the next line is not read; write it on one line");
            auto v = scalar(rest.substr(first), l.number);
            if (!v) return v.error();
            out[key] = std::move(*v);
            continue;
        }
        if (children.empty()) {
            out[key] = nullptr;
            continue;
        }
        const auto depth = indentation(*children.front());
        const auto item = [](std::string_view t) { return t == "-" || t.substr(0, 2) == "- "; };
        const bool sequence = item(children.front()->text.substr(depth));
        boost::json::array items;
        boost::json::object members;
        for (const auto* c : children) {
            if (indentation(*c) != depth)
                return invalid(c->number, "nested deeper than one level under a key; Candor reads two levels");
            const auto t = c->text.substr(depth);
            if (sequence != item(t)) return invalid(c->number, "a list and a mapping mixed under one key");
            if (sequence) {
                auto v = scalar(t.substr(1), c->number);
                if (!v) return v.error();
                items.push_back(std::move(*v));
                continue;
            }
            auto member = key_of(t, c->number);
            if (!member) return member.error();
            if (members.contains(member->first))
                return invalid(c->number, "the key '" + member->first + "' appears twice");
            const auto value = member->second.find_first_not_of(' ');
            if (value == std::string_view::npos || member->second[value] == '#')
                return invalid(c->number, "nested deeper than one level under a key; Candor reads two levels");
            auto v = scalar(member->second.substr(value), c->number);
            if (!v) return v.error();
            members[member->first] = std::move(*v);
        }
        if (sequence) out[key] = std::move(items);
        else out[key] = std::move(members);
    }
    return out;
}

}  // namespace candor::skills
