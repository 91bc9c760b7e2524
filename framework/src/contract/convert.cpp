// SPDX-License-Identifier: BSL-1.0
#include <candor/contract/detail/convert.hpp>

#include <algorithm>
#include <vector>

namespace candor::contract::detail {

namespace {
// The frames from the root to `c`, outermost first (bounded by the type's nesting).
std::vector<const cursor*> frames_of(const cursor& c) {
    std::vector<const cursor*> frames;
    for (const cursor* f = &c; f; f = f->parent) frames.push_back(f);
    return {frames.rbegin(), frames.rend()};
}
}  // namespace

std::string cursor::path() const {
    std::string out;
    for (const cursor* f : frames_of(*this)) {
        if (f->kind == step::index) candor::json::append_index(out, f->index);
        else if (f->kind != step::none) candor::json::append_token(out, f->name);
    }
    return out;
}

std::string cursor::keyword() const {
    std::string out;
    for (const cursor* f : frames_of(*this)) {
        switch (f->kind) {
            case step::none: break;
            case step::member:
                out += "/properties";
                candor::json::append_token(out, f->name);
                break;
            case step::index: out += "/items"; break;
            case step::key: out += "/additionalProperties"; break;
        }
    }
    return out;
}

void convert_decimal(const boost::json::value& v, decimal& out, const field_spec* fs, const cursor& c,
                     convert_context& cx) {
    if (!v.is_number()) return type_mismatch(v, c, cx, "a decimal number (a JSON number such as 19.99)");
    const auto name = [&] { return quoted_name(c.path()); };
    auto parsed = decimal::parse(number_source(v, cx.doc));
    if (!parsed) {
        if (parsed.error() == decimal_error::overflow) {
            return cx.add("OUT_OF_RANGE", c.path(), kw(c, "type"),
                          name() +
                              " must be a decimal number with at most 18 digits before "
                              "the decimal point; got " +
                              got_text(v, cx.doc));
        }
        return cx.add("TOO_MANY_DIGITS", c.path(), kw(c, "type"),
                      name() +
                          " must be a decimal number with at most 18 significant digits "
                          "after the decimal point; got " +
                          got_text(v, cx.doc));
    }
    const decimal d = *parsed;
    bool ok = true;
    if (fs && fs->max_digits && d.digits() > *fs->max_digits) {
        boost::json::object details;
        details["max_digits"] = *fs->max_digits;
        cx.add("TOO_MANY_DIGITS", c.path(), kw(c, "type"),
               name() + " must have at most " + std::to_string(*fs->max_digits) + " digits in total; got " +
                   got_text(v, cx.doc),
               std::move(details));
        ok = false;
    }
    if (fs && fs->decimal_places && d.decimal_places() > *fs->decimal_places) {
        boost::json::object details;
        details["decimal_places"] = *fs->decimal_places;
        cx.add("TOO_MANY_DIGITS", c.path(), kw(c, "type"),
               name() + " must have at most " + std::to_string(*fs->decimal_places) +
                   " digits after the decimal point; got " + got_text(v, cx.doc),
               std::move(details));
        ok = false;
    }
    if (fs && (fs->decimal_minimum || fs->decimal_maximum)) {
        const auto& lo = fs->decimal_minimum;
        const auto& hi = fs->decimal_maximum;
        const bool below = lo && (lo->exclusive ? !(d > lo->value) : d < lo->value);
        const bool above = hi && (hi->exclusive ? !(d < hi->value) : d > hi->value);
        if (below || above) {
            std::string bounds;
            if (lo) bounds += (lo->exclusive ? "greater than " : "at least ") + lo->value.to_string();
            if (hi) {
                if (!bounds.empty()) bounds += " and ";
                bounds += (hi->exclusive ? "less than " : "at most ") + hi->value.to_string();
            }
            const char* keyword = below ? (lo->exclusive ? "exclusiveMinimum" : "minimum")
                                        : (hi->exclusive ? "exclusiveMaximum" : "maximum");
            cx.add("OUT_OF_RANGE", c.path(), kw(c, keyword),
                   name() + " must be a decimal number " + bounds + "; got " + got_text(v, cx.doc));
            ok = false;
        }
    }
    if (ok) out = d;
}

void convert_string(const boost::json::value& v, std::string& out, const field_spec* fs, const cursor& c,
                    convert_context& cx) {
    if (!v.is_string()) return type_mismatch(v, c, cx, "a string");
    const std::string_view s = v.get_string();
    const auto name = [&] { return quoted_name(c.path()); };
    bool ok = true;
    if (fs) {
        const std::size_t n = code_points(s);
        if (fs->min_length && n < *fs->min_length) {
            cx.add("TOO_SHORT", c.path(), kw(c, "minLength"),
                   name() + " must be at least " + std::to_string(*fs->min_length) + " characters long; got " +
                       std::to_string(n));
            ok = false;
        }
        if (fs->max_length && n > *fs->max_length) {
            cx.add("TOO_LONG", c.path(), kw(c, "maxLength"),
                   name() + " must be at most " + std::to_string(*fs->max_length) + " characters long; got " +
                       std::to_string(n));
            ok = false;
        }
        if (fs->compiled && !pattern_matches(*fs->compiled, s)) {
            cx.add("PATTERN_MISMATCH", c.path(), kw(c, "pattern"),
                   name() + " must match the pattern " + fs->pattern + "; got " + got_text(v, cx.doc));
            ok = false;
        }
        if (!fs->choices.empty() && std::find(fs->choices.begin(), fs->choices.end(), s) == fs->choices.end()) {
            std::string names;
            for (const auto& choice : fs->choices) {
                if (!names.empty()) names += ", ";
                names += '"' + choice + '"';
            }
            cx.add("ENUM_MISMATCH", c.path(), kw(c, "enum"),
                   name() + " must be one of " + names + "; got " + got_text(v, cx.doc));
            ok = false;
        }
    }
    if (ok) out.assign(s.data(), s.size());
}

bool check_items(std::size_t n, bool is_array, const field_spec* fs, const cursor& c, convert_context& cx) {
    if (!fs) return true;
    const char* unit = is_array ? " items" : " entries";
    if (fs->min_items && n < *fs->min_items) {
        cx.add("TOO_SHORT", c.path(), kw(c, is_array ? "minItems" : "minProperties"),
               quoted_name(c.path()) + " must have at least " + std::to_string(*fs->min_items) + unit + "; got " +
                   std::to_string(n));
        return false;
    }
    if (fs->max_items && n > *fs->max_items) {
        cx.add("TOO_LONG", c.path(), kw(c, is_array ? "maxItems" : "maxProperties"),
               quoted_name(c.path()) + " must have at most " + std::to_string(*fs->max_items) + unit + "; got " +
                   std::to_string(n));
        return false;
    }
    return true;
}

}  // namespace candor::contract::detail
