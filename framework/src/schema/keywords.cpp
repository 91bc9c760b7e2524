// SPDX-License-Identifier: BSL-1.0
// The keywords that look at one kind of instance: numbers, strings, arrays, objects.
#include "evaluate.hpp"
#include "evaluate_util.hpp"

#include "format.hpp"
#include "pattern.hpp"
#include "values.hpp"

#include <candor/json/pointer.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>

namespace candor::schema::detail {

namespace bj = boost::json;

bool evaluator::check_number(const node& n, const bj::value& v) {
    bool ok = true;
    auto range_issue = [&](std::string_view kw) {
        ok = false;
        if (!out_) return;
        std::string what = n.types ? describe_types(n.types) : std::string("a number");
        report(n, kw, "OUT_OF_RANGE",
               name_of(path_) + " must be " + what + " " + describe_range(n) + "; got " + describe_value(v));
    };
    if (n.minimum && compare_numbers(v, *n.minimum) < 0) range_issue("minimum");
    if (n.maximum && compare_numbers(v, *n.maximum) > 0) range_issue("maximum");
    if (n.exclusive_minimum && compare_numbers(v, *n.exclusive_minimum) <= 0) range_issue("exclusiveMinimum");
    if (n.exclusive_maximum && compare_numbers(v, *n.exclusive_maximum) >= 0) range_issue("exclusiveMaximum");
    if (!ok && !out_) return false;
    if (n.multiple_of && !is_multiple_of(v, *n.multiple_of)) {
        ok = false;
        if (out_)
            report(n, "multipleOf", "NOT_MULTIPLE_OF",
                   name_of(path_) + " must be a multiple of " + number_text(*n.multiple_of) + "; got " +
                       describe_value(v));
    }
    return ok;
}

bool evaluator::check_string(const node& n, const bj::value& v) {
    std::string_view s = v.get_string();
    bool ok = true;
    if (n.min_length || n.max_length) {
        std::size_t len = code_points(s);
        if (n.min_length && len < *n.min_length) {
            ok = false;
            if (!out_) return false;
            report(n, "minLength", "TOO_SHORT",
                   name_of(path_) + " must be a string " + describe_length(n) + "; got " +
                       plural(len, "character", "characters"));
        }
        if (n.max_length && len > *n.max_length) {
            ok = false;
            if (!out_) return false;
            report(n, "maxLength", "TOO_LONG",
                   name_of(path_) + " must be a string " + describe_length(n) + "; got " +
                       plural(len, "character", "characters"));
        }
    }
    if (n.pattern != none && !p_.regexes[static_cast<std::size_t>(n.pattern)].search(s)) {
        ok = false;
        if (!out_) return false;
        report(n, "pattern", "PATTERN_MISMATCH",
               name_of(path_) + " must match the pattern " + n.pattern_source + "; got " + describe_value(v));
    }
    if (n.format_assert && n.format != format_kind::other && n.format != format_kind::unset &&
        !check_format(n.format, s)) {
        ok = false;
        if (!out_) return false;
        report(n, "format", "FORMAT_MISMATCH",
               name_of(path_) + " must be " + std::string(describe_format(n.format)) + " (format \"" + n.format_name +
                   "\"); got " + describe_value(v));
    }
    return ok;
}

bool evaluator::check_array(const node& n, const bj::array& a, annotations* ann) {
    bool ok = true;
    auto items = [](std::size_t k) { return plural(k, "item", "items"); };
    if (n.min_items && a.size() < *n.min_items) {
        ok = false;
        if (!out_) return false;
        report(n, "minItems", "TOO_SHORT",
               name_of(path_) + " must have at least " + items(*n.min_items) + "; got " + std::to_string(a.size()));
    }
    if (n.max_items && a.size() > *n.max_items) {
        ok = false;
        if (!out_) return false;
        report(n, "maxItems", "TOO_LONG",
               name_of(path_) + " must have at most " + items(*n.max_items) + "; got " + std::to_string(a.size()));
    }
    if (n.unique_items) {
        if (auto dup = first_duplicate(a)) {
            ok = false;
            if (!out_) return false;
            report(n, "uniqueItems", "NOT_UNIQUE",
                   name_of(path_) + " must not contain duplicates; items " + std::to_string(dup->first) + " and " +
                       std::to_string(dup->second) + " are equal (" + describe_literal(a[dup->first]) + ")");
        }
    }
    const std::size_t prefix = std::min(n.prefix_items.size(), a.size());
    for (std::size_t i = 0; i < prefix; ++i) {
        if (!eval_child(n.prefix_items[i], a[i], {{}, i, true})) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (ann) ann->prefix = std::max(ann->prefix, prefix);
    if (n.items != none) {
        const node& it = p_.nodes[static_cast<std::size_t>(n.items)];
        if (it.is_boolean && !it.boolean_value && a.size() > n.prefix_items.size()) {
            ok = false;
            if (!out_) return false;
            report(n, "items", "TOO_LONG",
                   name_of(path_) + " must have at most " + items(n.prefix_items.size()) + "; got " +
                       std::to_string(a.size()));
        } else {
            for (std::size_t i = n.prefix_items.size(); i < a.size(); ++i) {
                if (!eval_child(n.items, a[i], {{}, i, true})) {
                    ok = false;
                    if (!out_) return false;
                }
            }
        }
        if (ann) ann->all_items = true;
    }
    if (n.contains != none) {
        std::size_t matches = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (quiet(n.contains, a[i], nullptr)) {
                ++matches;
                if (ann) ann->mark_item(i, a.size());
            }
        }
        std::size_t min = n.min_contains.value_or(1);
        if (matches < min) {
            ok = false;
            if (!out_) return false;
            report(n, "contains", "SCHEMA_MISMATCH",
                   name_of(path_) + " must contain at least " + items(min) + " matching the schema at " +
                       p_.nodes[static_cast<std::size_t>(n.contains)].location + "; " + std::to_string(matches) +
                       " match");
        }
        if (n.max_contains && matches > *n.max_contains) {
            ok = false;
            if (!out_) return false;
            report(n, "maxContains", "SCHEMA_MISMATCH",
                   name_of(path_) + " must contain at most " + items(*n.max_contains) + " matching the schema at " +
                       p_.nodes[static_cast<std::size_t>(n.contains)].location + "; " + std::to_string(matches) +
                       " match");
        }
    }
    return ok;
}

bool evaluator::check_object(const node& n, const bj::value& v, annotations* ann) {
    const bj::object& o = v.get_object();
    bool ok = true;
    auto props = [](std::size_t k) { return plural(k, "property", "properties"); };
    if (n.min_properties && o.size() < *n.min_properties) {
        ok = false;
        if (!out_) return false;
        report(
            n, "minProperties", "TOO_SHORT",
            name_of(path_) + " must have at least " + props(*n.min_properties) + "; got " + std::to_string(o.size()));
    }
    if (n.max_properties && o.size() > *n.max_properties) {
        ok = false;
        if (!out_) return false;
        report(n, "maxProperties", "TOO_LONG",
               name_of(path_) + " must have at most " + props(*n.max_properties) + "; got " + std::to_string(o.size()));
    }
    auto missing = [&](const std::string& r) {
        ok = false;
        segment s{r, 0, false};
        report(n, "required", "REQUIRED_MISSING", "missing required argument " + name_of(path_, &s), &s);
    };
    if (!n.required_by_mask) {
        for (const auto& r : n.required) {
            if (o.contains(r)) continue;
            if (!out_) return false;
            missing(r);
        }
    }
    std::uint64_t seen_required = 0;
    for (const auto& d : n.dependent_required) {
        if (!o.contains(d.name)) continue;
        for (const auto& r : d.required) {
            if (o.contains(r)) continue;
            ok = false;
            if (!out_) return false;
            segment s{r, 0, false};
            segment by{d.name, 0, false};
            report(n, "dependentRequired/" + json::child_pointer("", d.name).substr(1), "REQUIRED_MISSING",
                   "missing argument " + name_of(path_, &s) + ", required when " + name_of(path_, &by) + " is present",
                   &s);
        }
    }
    const bool members = !n.properties.empty() || !n.pattern_properties.empty() || n.additional_properties != none ||
                         n.property_names != none;
    if (members) {
        std::size_t i = 0;
        for (const auto& kv : o) {
            std::string_view key = kv.key();
            segment s{key, 0, false};
            bool matched = false;
            for (const auto& p : n.properties) {
                if (!same_bytes(p.name, key)) continue;
                matched = true;
                if (p.required_slot >= 0) seen_required |= std::uint64_t{1} << p.required_slot;
                if (!eval_child(p.schema, kv.value(), s)) {
                    ok = false;
                    if (!out_) return false;
                }
                break;
            }
            for (const auto& pp : n.pattern_properties) {
                if (!p_.regexes[static_cast<std::size_t>(pp.regex)].search(key)) continue;
                matched = true;
                if (!eval_child(pp.schema, kv.value(), s)) {
                    ok = false;
                    if (!out_) return false;
                }
            }
            if (!matched && n.additional_properties != none) {
                const node& ap = p_.nodes[static_cast<std::size_t>(n.additional_properties)];
                if (ap.is_boolean && !ap.boolean_value) {
                    ok = false;
                    if (!out_) return false;
                    std::string message = "unknown argument " + name_of(path_, &s);
                    if (!n.properties.empty() && n.properties.size() <= 24) {
                        message += "; expected ";
                        if (n.properties.size() > 1) message += "one of ";
                        for (std::size_t k = 0; k < n.properties.size(); ++k) {
                            if (k) message += ", ";
                            message += "'" + n.properties[k].name + "'";
                        }
                    }
                    report(n, "additionalProperties", "UNKNOWN_FIELD", std::move(message), &s);
                } else if (!eval_child(n.additional_properties, kv.value(), s)) {
                    ok = false;
                    if (!out_) return false;
                }
                matched = true;
            }
            if (matched && ann) ann->mark_prop(i, o.size());
            if (n.property_names != none) {
                bj::value name(key);
                bool good;
                if (out_) {
                    path_.push_back(s);
                    good = eval(n.property_names, name, nullptr);
                    path_.pop_back();
                } else {
                    good = eval(n.property_names, name, nullptr);
                }
                if (!good) {
                    ok = false;
                    if (!out_) return false;
                }
            }
            ++i;
        }
    }
    if (n.required_by_mask) {
        const std::uint64_t all =
            n.required.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n.required.size()) - 1;
        if (seen_required != all) {
            if (!out_) return false;
            for (std::size_t r = 0; r < n.required.size(); ++r)
                if (!((seen_required >> r) & 1u)) missing(n.required[r]);
        }
    }
    for (const auto& d : n.dependent_schemas) {
        if (!o.contains(d.name)) continue;
        if (!eval(d.schema, v, ann)) {
            ok = false;
            if (!out_) return false;
        }
    }
    return ok;
}

}  // namespace candor::schema::detail
