// SPDX-License-Identifier: BSL-1.0
#include "messages.hpp"

#include <candor/json/pointer.hpp>
#include <candor/json/write.hpp>

namespace candor::schema::detail {

std::string pointer_of(std::span<const segment> path, const segment* extra) {
    std::string out;
    auto add = [&](const segment& s) {
        if (s.is_index) json::append_index(out, s.index);
        else json::append_token(out, s.key);
    };
    for (const auto& s : path) add(s);
    if (extra) add(*extra);
    return out;
}

std::string name_of(std::span<const segment> path, const segment* extra) {
    if (path.empty() && !extra) return "the arguments";
    std::string out = "'";
    bool first = true;
    auto add = [&](const segment& s) {
        if (s.is_index) {
            out += '[';
            out += std::to_string(s.index);
            out += ']';
        } else {
            if (!first) out += '.';
            out += s.key;
        }
        first = false;
    };
    for (const auto& s : path) add(s);
    if (extra) add(*extra);
    out += '\'';
    return out;
}

std::string number_text(const boost::json::value& v) {
    auto text = json::to_string(v);
    return text ? *text : std::string("?");
}

std::string describe_value(const boost::json::value& v) {
    switch (v.kind()) {
        case boost::json::kind::object: return v.get_object().empty() ? "an empty object" : "an object";
        case boost::json::kind::array: return v.get_array().empty() ? "an empty array" : "an array";
        case boost::json::kind::string: {
            std::string_view s = v.get_string();
            constexpr std::size_t max = 48;
            if (s.size() <= max) return number_text(v);
            std::size_t cut = max;
            while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
            boost::json::value shortened(s.substr(0, cut));
            std::string text = number_text(shortened);
            text.insert(text.size() - 1, "...");
            return text;
        }
        default: return number_text(v);
    }
}

std::string describe_literal(const boost::json::value& v) {
    if (!v.is_object() && !v.is_array()) return describe_value(v);
    auto text = json::to_string(v);
    if (text && text->size() <= 80) return *text;
    return describe_value(v);
}

std::string describe_types(std::uint8_t types) {
    static constexpr std::pair<std::uint8_t, std::string_view> names[] = {
        {t_object, "an object"}, {t_array, "an array"},    {t_string, "a string"}, {t_integer, "an integer"},
        {t_number, "a number"},  {t_boolean, "a boolean"}, {t_null, "null"},
    };
    std::string out;
    for (const auto& [bit, name] : names) {
        if (!(types & bit)) continue;
        if (bit == t_integer && (types & t_number)) continue;  // "a number" covers it
        if (!out.empty()) out += " or ";
        out += name;
    }
    return out;
}

std::string describe_range(const node& n) {
    const auto* lo = n.minimum ? &*n.minimum : nullptr;
    const auto* hi = n.maximum ? &*n.maximum : nullptr;
    const auto* xlo = n.exclusive_minimum ? &*n.exclusive_minimum : nullptr;
    const auto* xhi = n.exclusive_maximum ? &*n.exclusive_maximum : nullptr;
    if (lo && hi && !xlo && !xhi) return "from " + number_text(*lo) + " to " + number_text(*hi);
    std::string out;
    auto add = [&](std::string part) {
        if (!out.empty()) out += " and ";
        out += part;
    };
    if (lo) add("at least " + number_text(*lo));
    if (xlo) add("greater than " + number_text(*xlo));
    if (hi) add("at most " + number_text(*hi));
    if (xhi) add("less than " + number_text(*xhi));
    return out;
}

std::string describe_length(const node& n) {
    auto chars = [](std::size_t k) { return std::to_string(k) + (k == 1 ? " character" : " characters"); };
    if (n.min_length && n.max_length) {
        if (*n.min_length == *n.max_length) return "of exactly " + chars(*n.min_length);
        return "of " + std::to_string(*n.min_length) + " to " + chars(*n.max_length);
    }
    if (n.min_length) return "of at least " + chars(*n.min_length);
    if (n.max_length) return "of at most " + chars(*n.max_length);
    return {};
}

}  // namespace candor::schema::detail
