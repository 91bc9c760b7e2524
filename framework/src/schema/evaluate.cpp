// SPDX-License-Identifier: BSL-1.0
#include "evaluate.hpp"
#include "evaluate_util.hpp"

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
        abort_reason_ =
            depth_ >= p_.opts.max_evaluation_depth
                ? "schema evaluation went deeper than " + std::to_string(p_.opts.max_evaluation_depth) +
                      " levels (a reference cycle?)"
                : "schema evaluation took more than " + std::to_string(p_.opts.max_evaluation_steps) + " steps";
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
        report(n, "type", "TYPE_MISMATCH",
               name_of(path_) + " must be " + type_phrase(n) + "; got " + describe_value(v));
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
            report(n, "enum", "ENUM_MISMATCH",
                   name_of(path_) + " must be one of " + allowed + "; got " + describe_literal(v), nullptr,
                   std::move(details));
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
            summarise(
                n, "anyOf", n.any_of, v,
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
                          name_of(path_) + " must match exactly one of " + std::to_string(n.one_of.size()) +
                              " alternatives; it matches none:");
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
