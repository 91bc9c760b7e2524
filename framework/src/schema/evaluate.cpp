#include "evaluate.hpp"

#include "format.hpp"
#include "pattern.hpp"
#include "values.hpp"

#include <candor/json/pointer.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <optional>

namespace candor::schema::detail {

namespace bj = boost::json;

void annotations::mark_item(std::size_t i, std::size_t n) {
    if (items.size() < n) items.resize(n, 0);
    items[i] = 1;
}
void annotations::mark_prop(std::size_t i, std::size_t n) {
    if (props.size() < n) props.resize(n, 0);
    props[i] = 1;
}
void annotations::merge(const annotations& o) {
    prefix = std::max(prefix, o.prefix);
    all_items = all_items || o.all_items;
    all_props = all_props || o.all_props;
    if (items.size() < o.items.size()) items.resize(o.items.size(), 0);
    for (std::size_t i = 0; i < o.items.size(); ++i) items[i] = static_cast<char>(items[i] | o.items[i]);
    if (props.size() < o.props.size()) props.resize(o.props.size(), 0);
    for (std::size_t i = 0; i < o.props.size(); ++i) props[i] = static_cast<char>(props[i] | o.props[i]);
}

namespace {

std::uint8_t type_bits_of(const bj::value& v) {
    switch (v.kind()) {
    case bj::kind::null: return t_null;
    case bj::kind::bool_: return t_boolean;
    case bj::kind::object: return t_object;
    case bj::kind::array: return t_array;
    case bj::kind::string: return t_string;
    case bj::kind::int64:
    case bj::kind::uint64: return t_number | t_integer;
    case bj::kind::double_: return is_integral(v) ? (t_number | t_integer) : t_number;
    }
    return 0;
}

// Member names are short: a byte loop beats a libc memcmp call here.
inline bool same_bytes(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

std::string plural(std::size_t k, std::string_view one, std::string_view many) {
    return std::to_string(k) + " " + std::string(k == 1 ? one : many);
}

// Restores a member on scope exit (evaluation state is shared across the recursion).
template <class T>
struct restore {
    T& ref;
    T saved;
    explicit restore(T& r) : ref(r), saved(r) {}
    ~restore() { ref = saved; }
    restore(const restore&) = delete;
    restore& operator=(const restore&) = delete;
};

}  // namespace

issue evaluator::abort_issue() const {
    issue is;
    is.code = "SCHEMA_MISMATCH";
    is.path = abort_path_;
    is.keyword = abort_keyword_;
    is.message = "the arguments could not be checked: " + abort_reason_ + "; send a simpler value";
    is.repairable = true;
    is.where = layer::contract;
    return is;
}

void evaluator::report(const node& n, std::string_view keyword, std::string_view code, std::string message,
                       const segment* extra, bj::object details) {
    if (!out_ || out_->size() >= p_.opts.max_issues) return;
    issue is;
    is.code = std::string(code);
    is.path = pointer_of(path_, extra);
    is.message = std::move(message);
    is.repairable = true;
    is.where = layer::contract;
    is.keyword = n.location;
    if (!keyword.empty()) {
        is.keyword += '/';
        is.keyword += keyword;
    }
    is.details = std::move(details);
    out_->push_back(std::move(is));
}

bool evaluator::quiet(index n, const bj::value& v, annotations* ann) {
    issue_list* saved = out_;
    out_ = nullptr;
    bool ok = eval(n, v, ann);
    out_ = saved;
    return ok;
}

bool evaluator::eval_child(index n, const bj::value& v, segment s) {
    if (!out_) return eval(n, v, nullptr);
    path_.push_back(s);
    bool ok = eval(n, v, nullptr);
    path_.pop_back();
    return ok;
}

std::string evaluator::type_phrase(const node& n) const {
    std::string out = describe_types(n.types ? n.types : std::uint8_t(t_number));
    if (n.types & (t_number | t_integer)) {
        std::string range = describe_range(n);
        if (!range.empty()) out += " " + range;
    }
    if ((n.types & t_string) && !(n.types & (t_number | t_integer))) {
        std::string len = describe_length(n);
        if (!len.empty()) out += " " + len;
    }
    return out;
}

bool evaluator::eval(index ni, const bj::value& v, annotations* ann) {
    const node& n = p_.nodes[static_cast<std::size_t>(ni)];
    if (n.is_boolean) {
        if (n.boolean_value) return true;
        if (out_) report(n, "", "SCHEMA_MISMATCH", name_of(path_) + " is not allowed here");
        return false;
    }
    if (aborted_) return false;
    if (depth_ >= p_.opts.max_evaluation_depth || ++steps_ > p_.opts.max_evaluation_steps) {
        // Sticky: every caller up the stack now fails, so that no combinator (`not`!) can turn
        // the cut into a success, and exponential re-exploration stops at once.
        aborted_ = true;
        abort_path_ = pointer_of(path_);
        abort_keyword_ = n.location;
        abort_reason_ = depth_ >= p_.opts.max_evaluation_depth
                            ? "schema evaluation went deeper than " + std::to_string(p_.opts.max_evaluation_depth) +
                                  " levels (a reference cycle?)"
                            : "schema evaluation took more than " + std::to_string(p_.opts.max_evaluation_steps) +
                                  " steps";
        return false;
    }
    ++depth_;
    struct leave {
        evaluator& e;
        bool pop;
        ~leave() {
            --e.depth_;
            if (pop) e.scope_.pop_back();
        }
    } guard{*this, false};
    if (p_.uses_dynamic_scope && (scope_.empty() || scope_.back() != n.resource)) {
        scope_.push_back(n.resource);
        guard.pop = true;
    }

    // Only nodes with unevaluated* keep their own annotations (most schemas never do).
    std::optional<annotations> own;
    const bool own_annotations = n.unevaluated_items != none || n.unevaluated_properties != none;
    if (own_annotations) own.emplace();
    annotations* here = own_annotations ? &*own : ann;
    bool ok = true;

    if (n.ref != none) {
        ok = eval(n.ref, v, here) && ok;
        if (!ok && !out_) return false;
    }
    if (n.dynamic_ref != none) {
        index target = n.dynamic_ref;
        if (n.dynamic_ref_rebinds) {
            bool found = false;
            for (index r : scope_) {  // outermost first
                for (const auto& c : n.dynamic_candidates)
                    if (c.resource == r) {
                        target = c.target;
                        found = true;
                        break;
                    }
                if (found) break;
            }
        }
        ok = eval(target, v, here) && ok;
        if (!ok && !out_) return false;
    }

    const std::uint8_t bits = type_bits_of(v);
    if (n.types && !(n.types & bits)) {
        if (!out_) return false;
        report(n, "type", "TYPE_MISMATCH", name_of(path_) + " must be " + type_phrase(n) + "; got " + describe_value(v));
        return false;  // the other keywords would only repeat the same mistake
    }
    if (n.has_const && !json_equal(v, n.const_value)) {
        if (!out_) return false;
        ok = false;
        report(n, "const", "CONST_MISMATCH",
               name_of(path_) + " must be " + describe_literal(n.const_value) + "; got " + describe_literal(v));
    }
    if (n.has_enum) {
        bool found = false;
        if (v.is_string()) {
            // Fast path for the common string enum: compare size and first byte before bytes.
            std::string_view s = v.get_string();
            for (const auto& e : n.enum_values) {
                if (!e.is_string()) continue;
                std::string_view t = e.get_string();
                if (same_bytes(t, s)) {
                    found = true;
                    break;
                }
            }
        } else {
            for (const auto& e : n.enum_values)
                if (json_equal(v, e)) {
                    found = true;
                    break;
                }
        }
        if (!found) {
            if (!out_) return false;
            ok = false;
            std::string allowed;
            bj::array values;
            for (std::size_t i = 0; i < n.enum_values.size(); ++i) {
                if (i == 12) {
                    allowed += ", ...";
                    break;
                }
                if (i) allowed += ", ";
                allowed += describe_literal(n.enum_values[i]);
            }
            for (const auto& e : n.enum_values) values.push_back(e);
            bj::object details;
            details["allowed"] = std::move(values);
            report(n, "enum", "ENUM_MISMATCH", name_of(path_) + " must be one of " + allowed + "; got " + describe_literal(v),
                   nullptr, std::move(details));
        }
    }
    if (n.number_keywords && v.is_number()) {
        if (!check_number(n, v)) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (n.string_keywords && v.is_string()) {
        if (!check_string(n, v)) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (v.is_array() && (n.array_keywords || (here && n.contains != none))) {
        if (!check_array(n, v.get_array(), here)) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (v.is_object() && n.object_keywords) {
        if (!check_object(n, v, here)) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (!n.all_of.empty() || !n.any_of.empty() || !n.one_of.empty() || n.not_ != none || n.if_ != none) {
        if (!check_combinators(n, v, here)) {
            ok = false;
            if (!out_) return false;
        }
    }

    // unevaluated* look at everything the keywords above (and their in-place subschemas) did.
    if (n.unevaluated_items != none && v.is_array()) {
        const auto& a = v.get_array();
        const node& u = p_.nodes[static_cast<std::size_t>(n.unevaluated_items)];
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (own->item(i)) continue;
            if (u.is_boolean && !u.boolean_value) {
                ok = false;
                if (!out_) return false;
                report(n, "unevaluatedItems", "TOO_LONG",
                       name_of(path_) + " has an item at index " + std::to_string(i) +
                           " that its schema does not allow; got " + plural(a.size(), "item", "items"));
                break;
            }
            if (!eval_child(n.unevaluated_items, a[i], {{}, i, true})) {
                ok = false;
                if (!out_) return false;
            }
        }
        own->all_items = true;
    }
    if (n.unevaluated_properties != none && v.is_object()) {
        const auto& o = v.get_object();
        const node& u = p_.nodes[static_cast<std::size_t>(n.unevaluated_properties)];
        std::size_t i = 0;
        for (const auto& kv : o) {
            if (!own->prop(i)) {
                segment s{kv.key(), 0, false};
                if (u.is_boolean && !u.boolean_value) {
                    ok = false;
                    if (!out_) return false;
                    report(n, "unevaluatedProperties", "UNKNOWN_FIELD", "unknown argument " + name_of(path_, &s), &s);
                } else if (!eval_child(n.unevaluated_properties, kv.value(), s)) {
                    ok = false;
                    if (!out_) return false;
                }
            }
            ++i;
        }
        own->all_props = true;
    }
    if (own_annotations && ann && ok) ann->merge(*own);
    return ok;
}

bool evaluator::check_number(const node& n, const bj::value& v) {
    bool ok = true;
    auto range_issue = [&](std::string_view kw) {
        ok = false;
        if (!out_) return;
        std::string what = n.types ? describe_types(n.types) : std::string("a number");
        report(n, kw, "OUT_OF_RANGE", name_of(path_) + " must be " + what + " " + describe_range(n) + "; got " + describe_value(v));
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
                   name_of(path_) + " must be a multiple of " + number_text(*n.multiple_of) + "; got " + describe_value(v));
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
                   name_of(path_) + " must be a string " + describe_length(n) + "; got " + plural(len, "character", "characters"));
        }
        if (n.max_length && len > *n.max_length) {
            ok = false;
            if (!out_) return false;
            report(n, "maxLength", "TOO_LONG",
                   name_of(path_) + " must be a string " + describe_length(n) + "; got " + plural(len, "character", "characters"));
        }
    }
    if (n.pattern != none && !p_.regexes[static_cast<std::size_t>(n.pattern)].search(s)) {
        ok = false;
        if (!out_) return false;
        report(n, "pattern", "PATTERN_MISMATCH",
               name_of(path_) + " must match the pattern " + n.pattern_source + "; got " + describe_value(v));
    }
    if (n.format_assert && n.format != format_kind::other && n.format != format_kind::unset && !check_format(n.format, s)) {
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
        report(n, "minItems", "TOO_SHORT", name_of(path_) + " must have at least " + items(*n.min_items) + "; got " + std::to_string(a.size()));
    }
    if (n.max_items && a.size() > *n.max_items) {
        ok = false;
        if (!out_) return false;
        report(n, "maxItems", "TOO_LONG", name_of(path_) + " must have at most " + items(*n.max_items) + "; got " + std::to_string(a.size()));
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
                   name_of(path_) + " must have at most " + items(n.prefix_items.size()) + "; got " + std::to_string(a.size()));
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
                       p_.nodes[static_cast<std::size_t>(n.contains)].location + "; " + std::to_string(matches) + " match");
        }
        if (n.max_contains && matches > *n.max_contains) {
            ok = false;
            if (!out_) return false;
            report(n, "maxContains", "SCHEMA_MISMATCH",
                   name_of(path_) + " must contain at most " + items(*n.max_contains) + " matching the schema at " +
                       p_.nodes[static_cast<std::size_t>(n.contains)].location + "; " + std::to_string(matches) + " match");
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
        report(n, "minProperties", "TOO_SHORT", name_of(path_) + " must have at least " + props(*n.min_properties) + "; got " + std::to_string(o.size()));
    }
    if (n.max_properties && o.size() > *n.max_properties) {
        ok = false;
        if (!out_) return false;
        report(n, "maxProperties", "TOO_LONG", name_of(path_) + " must have at most " + props(*n.max_properties) + "; got " + std::to_string(o.size()));
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
                   "missing argument " + name_of(path_, &s) + ", required when " + name_of(path_, &by) + " is present", &s);
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
        const std::uint64_t all = n.required.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n.required.size()) - 1;
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

void evaluator::summarise(const node& n, std::string_view keyword, const std::vector<index>& branches,
                          const bj::value& v, std::string lead) {
    if (!out_) return;
    bj::array details;
    std::string message = std::move(lead);
    for (std::size_t i = 0; i < branches.size(); ++i) {
        issue_list branch;
        issue_list* saved = out_;
        out_ = &branch;
        eval(branches[i], v, nullptr);
        out_ = saved;
        bj::array issues;
        for (const auto& b : branch) {
            bj::object o;
            o["code"] = b.code;
            o["path"] = b.path;
            o["message"] = b.message;
            issues.push_back(std::move(o));
        }
        if (i < 4 && !branch.empty()) message += " (" + std::to_string(i + 1) + ") " + branch.front().message + ";";
        details.push_back(std::move(issues));
    }
    if (!message.empty() && message.back() == ';') message.pop_back();
    bj::object d;
    d["branches"] = std::move(details);
    report(n, keyword, "SCHEMA_MISMATCH", std::move(message), nullptr, std::move(d));
}

bool evaluator::check_combinators(const node& n, const bj::value& v, annotations* ann) {
    bool ok = true;
    for (index c : n.all_of) {
        if (!eval(c, v, ann)) {
            ok = false;
            if (!out_) return false;
        }
    }
    if (!n.any_of.empty()) {
        bool any = false;
        for (index c : n.any_of) {
            if (ann) {
                annotations branch;
                if (quiet(c, v, &branch)) {
                    any = true;
                    ann->merge(branch);
                }
            } else if (quiet(c, v, nullptr)) {
                any = true;
                break;
            }
        }
        if (!any) {
            ok = false;
            if (!out_) return false;
            summarise(n, "anyOf", n.any_of, v,
                      name_of(path_) + " must match at least one of " + std::to_string(n.any_of.size()) + " alternatives:");
        }
    }
    if (!n.one_of.empty()) {
        std::size_t count = 0;
        std::vector<std::size_t> matched;
        annotations chosen;
        for (std::size_t i = 0; i < n.one_of.size(); ++i) {
            annotations branch;
            if (quiet(n.one_of[i], v, ann ? &branch : nullptr)) {
                ++count;
                if (out_) matched.push_back(i + 1);
                if (ann) chosen = std::move(branch);
                if (count > 1 && !out_) return false;
            }
        }
        if (count == 1 && ann) ann->merge(chosen);
        if (count != 1) {
            ok = false;
            if (!out_) return false;
            if (count == 0) {
                summarise(n, "oneOf", n.one_of, v,
                          name_of(path_) + " must match exactly one of " + std::to_string(n.one_of.size()) + " alternatives; it matches none:");
            } else {
                std::string which;
                for (std::size_t k = 0; k < matched.size(); ++k) which += (k ? ", " : "") + std::to_string(matched[k]);
                report(n, "oneOf", "SCHEMA_MISMATCH",
                       name_of(path_) + " must match exactly one of " + std::to_string(n.one_of.size()) +
                           " alternatives; it matches alternatives " + which);
            }
        }
    }
    if (n.not_ != none && quiet(n.not_, v, nullptr)) {
        ok = false;
        if (!out_) return false;
        report(n, "not", "SCHEMA_MISMATCH",
               name_of(path_) + " must not match the schema at " + p_.nodes[static_cast<std::size_t>(n.not_)].location +
                   "; got " + describe_value(v));
    }
    if (n.if_ != none) {
        annotations cond;
        bool holds = quiet(n.if_, v, ann ? &cond : nullptr);
        if (holds && ann) ann->merge(cond);
        index branch = holds ? n.then_ : n.else_;
        if (branch != none && !eval(branch, v, ann)) {
            ok = false;
            if (!out_) return false;
        }
    }
    return ok;
}

}  // namespace candor::schema::detail
