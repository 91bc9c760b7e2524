// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/detail/support.hpp>
#include <candor/contract/spec.hpp>

#include <candor/json/pointer.hpp>
#include <candor/json/write.hpp>

#include <re2/re2.h>

#include <charconv>
#include <limits>
#include <stdexcept>

namespace candor::contract::detail {

struct compiled_pattern {
    explicit compiled_pattern(const std::string& p) : re(p, RE2::Quiet) {}
    RE2 re;
};

std::shared_ptr<const compiled_pattern> compile_pattern(const std::string& pattern) {
    auto p = std::make_shared<const compiled_pattern>(pattern);
    if (!p->re.ok())
        throw std::invalid_argument("candor::contract: invalid pattern '" + pattern + "': " + p->re.error());
    return p;
}

bool pattern_matches(const compiled_pattern& p, std::string_view text) {
    return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), p.re);
}

decimal decimal_constant(std::string_view text) {
    auto d = decimal::parse(text);
    if (!d)
        throw std::invalid_argument("candor::contract: '" + std::string(text) + "' is not a decimal constant (" +
                                    std::string(to_string(d.error())) + ")");
    return *d;
}

std::string to_text(wide v) {
    if (v == 0) return "0";
    const bool negative = v < 0;
    std::string s;
    while (v != 0) {
        const int digit = static_cast<int>(v % 10);
        s.push_back(static_cast<char>('0' + (digit < 0 ? -digit : digit)));
        v /= 10;
    }
    if (negative) s.push_back('-');
    return std::string(s.rbegin(), s.rend());
}

std::string quoted_name(std::string_view path) {
    std::string out = "'";
    out += display_name(path);
    out += '\'';
    return out;
}

std::string display_name(std::string_view path) {
    if (path.empty()) return "arguments";
    std::string out;
    std::string token;
    std::size_t start = 1;
    while (true) {
        const std::size_t slash = path.find('/', start);
        const std::string_view raw =
            path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (!out.empty()) out.push_back('/');
        if (candor::json::unescape_token(raw, token)) out += token;
        else out += raw;
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

std::string got_text(const boost::json::value& v, const candor::json::document* doc) {
    constexpr std::size_t max_shown = 60;
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    if (v.is_number() && doc) {
        if (auto t = doc->number_text(v)) {
            std::string s(*t);
            if (s.size() > max_shown) s = s.substr(0, max_shown - 3) + "...";
            return s;
        }
    }
    if (v.is_double()) {
        // Without the raw text: the shortest round-trip form, visibly a float ("3.0", "0.5").
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.get_double());
        std::string s(buf, r.ptr);
        if (s.find_first_of(".eE") == std::string::npos) s += ".0";
        return s;
    }
    auto text = candor::json::to_string(v);
    if (!text) return std::string(kind_of(v));
    std::string s = std::move(*text);
    if (s.size() > max_shown) {
        // Cut on a code point boundary so that the message stays valid UTF-8.
        std::size_t cut = max_shown - 4;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        s = s.substr(0, cut) + "...\"";
    }
    return s;
}

std::size_t code_points(std::string_view s) noexcept {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string_view kind_of(const boost::json::value& v) noexcept {
    switch (v.kind()) {
        case boost::json::kind::null: return "null";
        case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
        case boost::json::kind::int64:
        case boost::json::kind::uint64:
        case boost::json::kind::double_: return "a number";
        case boost::json::kind::string: return "a string";
        case boost::json::kind::array: return "an array";
        case boost::json::kind::object: return "an object";
    }
    return "a value";
}

void convert_context::add(std::string_view code, const std::string& path, const std::string& keyword,
                          std::string message, boost::json::object details) {
    if (full()) return;
    candor::issue i;
    i.code = std::string(code);
    i.path = path;
    i.message = std::move(message);
    i.repairable = true;
    i.where = candor::layer::contract;
    i.keyword = keyword;
    i.details = std::move(details);
    issues.push_back(std::move(i));
}

}  // namespace candor::contract::detail

namespace candor::contract::detail {

wide to_wide(const boost::json::value& v) noexcept {
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64()) return v.get_uint64();
    return 0;
}

boost::json::value from_wide(wide v) noexcept {
    if (v < 0) return boost::json::value(static_cast<std::int64_t>(v));
    if (v <= std::numeric_limits<std::int64_t>::max()) return boost::json::value(static_cast<std::int64_t>(v));
    return boost::json::value(static_cast<std::uint64_t>(v));
}

std::string bounds_phrase(const boost::json::value* lo, bool lo_exclusive, const boost::json::value* hi,
                          bool hi_exclusive) {
    // Shortest round-trip text ("0.5", "1"), not the serializer's "5E-1".
    auto text = [](const boost::json::value& v) {
        if (v.is_double()) {
            char buf[64];
            const auto r = std::to_chars(buf, buf + sizeof buf, v.get_double());
            return std::string(buf, r.ptr);
        }
        auto t = candor::json::to_string(v);
        return t ? std::move(*t) : std::string("?");
    };
    std::string out;
    if (lo) out += (lo_exclusive ? "greater than " : "at least ") + text(*lo);
    if (hi) {
        if (!out.empty()) out += " and ";
        out += (hi_exclusive ? "less than " : "at most ") + text(*hi);
    }
    return out;
}

std::string number_source(const boost::json::value& v, const candor::json::document* doc) {
    if (doc) {
        if (auto t = doc->number_text(v)) return std::string(*t);
    }
    if (v.is_int64()) return std::to_string(v.get_int64());
    if (v.is_uint64()) return std::to_string(v.get_uint64());
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v.is_double() ? v.get_double() : 0.0);
    return std::string(buf, r.ptr);
}

}  // namespace candor::contract::detail

#include <candor/contract/detail/generate.hpp>

namespace candor::contract::detail {

std::string decimal_note(const field_spec& fs) {
    std::string out;
    if (fs.max_digits) out += "at most " + std::to_string(*fs.max_digits) + " digits";
    if (fs.decimal_places) {
        if (!out.empty()) out += ", ";
        out += "at most " + std::to_string(*fs.decimal_places) + " after the decimal point";
    }
    return out.empty() ? out : "exact decimal: " + out;
}

}  // namespace candor::contract::detail

namespace candor::contract::detail {

bool is_integer_literal(const boost::json::value& v, const candor::json::document* doc) {
    if (!doc) return false;
    const auto t = doc->number_text(v);
    return t && t->find_first_of(".eE") == std::string_view::npos;
}

}  // namespace candor::contract::detail
