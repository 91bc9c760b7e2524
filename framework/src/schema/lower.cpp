// SPDX-License-Identifier: BSL-1.0
// Lowering one schema object into one node: every keyword checked and pre-parsed.
#include "compiler.hpp"

#include "format.hpp"
#include "pattern.hpp"

#include <candor/json/pointer.hpp>

#include <cmath>
#include <limits>
#include <unordered_set>

namespace candor::schema::detail {

namespace {

std::optional<std::size_t> as_size(const bj::value& v) {
    if (v.is_int64()) {
        if (v.get_int64() < 0) return std::nullopt;
        return static_cast<std::size_t>(v.get_int64());
    }
    if (v.is_uint64()) return static_cast<std::size_t>(v.get_uint64());
    if (v.is_double()) {
        double d = v.get_double();
        if (d < 0 || d != std::floor(d) || !std::isfinite(d)) return std::nullopt;
        if (d >= 1.8e19) return std::numeric_limits<std::size_t>::max();
        return static_cast<std::size_t>(d);
    }
    return std::nullopt;
}

std::uint8_t type_bit(std::string_view name) {
    if (name == "null") return t_null;
    if (name == "boolean") return t_boolean;
    if (name == "object") return t_object;
    if (name == "array") return t_array;
    if (name == "number") return t_number;
    if (name == "string") return t_string;
    if (name == "integer") return t_integer;
    return 0;
}

}  // namespace

void compiler::compile_node(const pending& w) {
    if (w.value->is_bool()) {
        auto& nd = p_.nodes[static_cast<std::size_t>(w.node)];
        nd.is_boolean = true;
        nd.boolean_value = w.value->get_bool();
        return;
    }
    const auto* op = w.value->if_object();
    if (!op) {
        fail(doc_location(w.doc, w.pointer), "a schema must be an object or a boolean");
        return;
    }
    const bj::object& o = *op;
    // Nodes may be appended while this one is compiled: always index, never hold a reference.
    auto nd = [&]() -> node& { return p_.nodes[static_cast<std::size_t>(w.node)]; };
    const std::uint8_t vocab = nd().vocab;
    auto where = [&](std::string_view kw) { return doc_location(w.doc, json::child_pointer(w.pointer, kw)); };
    auto ptr = [&](std::string_view kw) { return json::child_pointer(w.pointer, kw); };
    auto find = [&](std::string_view kw) -> const bj::value* {
        auto it = o.find(kw);
        return it == o.end() ? nullptr : &it->value();
    };
    auto one = [&](std::string_view kw) -> index {
        const bj::value* v = find(kw);
        return v ? subschema(w, ptr(kw), *v, where(kw)) : none;
    };
    auto many = [&](std::string_view kw) {
        std::vector<index> out;
        const bj::value* v = find(kw);
        if (!v) return out;
        if (!v->is_array() || v->get_array().empty()) {
            fail(where(kw), std::string(kw) + " must be a non-empty array of schemas");
            return out;
        }
        std::size_t i = 0;
        for (const auto& s : v->get_array()) {
            std::string p = ptr(kw);
            json::append_index(p, i);
            std::string loc = doc_location(w.doc, p);
            out.push_back(subschema(w, p, s, loc));
            ++i;
        }
        return out;
    };
    auto size_kw = [&](std::string_view kw, std::optional<std::size_t>& out) {
        const bj::value* v = find(kw);
        if (!v) return;
        auto n = as_size(*v);
        if (!n) {
            fail(where(kw), std::string(kw) + " must be a non-negative integer");
            return;
        }
        out = *n;
    };
    auto number_kw = [&](std::string_view kw, std::optional<bj::value>& out) {
        const bj::value* v = find(kw);
        if (!v) return;
        if (!v->is_number()) {
            fail(where(kw), std::string(kw) + " must be a number");
            return;
        }
        out = *v;
    };
    auto string_array = [&](std::string_view kw, const bj::value& v, std::vector<std::string>& out,
                            const std::string& loc) {
        if (!v.is_array()) {
            fail(loc, std::string(kw) + " must be an array of strings");
            return;
        }
        std::unordered_set<std::string_view> seen;
        for (const auto& s : v.get_array()) {
            if (!s.is_string()) {
                fail(loc, std::string(kw) + " must be an array of strings");
                return;
            }
            if (!seen.insert(s.get_string()).second) {
                fail(loc, std::string(kw) + " must not repeat a name ('" + std::string(s.get_string()) + "')");
                return;
            }
            out.emplace_back(s.get_string());
        }
    };

    // --- core
    if (const bj::value* v = find("$ref")) {
        if (!v->is_string()) return fail(where("$ref"), "$ref must be a string (a URI reference)");
        auto loc = locate(w.base, v->get_string(), where("$ref"));
        if (!loc) return;
        index t = get_node(loc->doc, loc->pointer, loc->value);
        nd().ref = t;
    }
    if (const bj::value* v = find("$dynamicRef")) {
        if (!v->is_string()) return fail(where("$dynamicRef"), "$dynamicRef must be a string (a URI reference)");
        std::string name;
        auto loc = locate(w.base, v->get_string(), where("$dynamicRef"), &name);
        if (!loc) return;
        index t = get_node(loc->doc, loc->pointer, loc->value);
        nd().dynamic_ref = t;
        dynamic_refs_.push_back({w.node, name});
    }
    if (const bj::value* v = find("$dynamicAnchor"); v && v->is_string())
        node_dynamic_anchor_[w.node] = std::string(v->get_string());
    if (const bj::value* v = find("$defs"); v && !v->is_object())
        return fail(where("$defs"), "$defs must be an object of schemas");
    if (const bj::value* v = find("$defs")) {
        // Compiled so that they are checked at registration even if nothing refers to them.
        for (const auto& kv : v->get_object())
            subschema(w, json::child_pointer(ptr("$defs"), kv.key()), kv.value(),
                      doc_location(w.doc, json::child_pointer(ptr("$defs"), kv.key())));
    }

    // --- validation vocabulary
    if (vocab & v_validation) {
        if (const bj::value* v = find("type")) {
            std::uint8_t bits = 0;
            auto add = [&](const bj::value& t) {
                std::uint8_t b = t.is_string() ? type_bit(t.get_string()) : 0;
                if (b == 0) {
                    fail(where("type"), "type must name null, boolean, object, array, number, string or integer");
                    return;
                }
                bits |= b;
            };
            if (v->is_array()) {
                if (v->get_array().empty()) return fail(where("type"), "type must not be an empty array");
                for (const auto& t : v->get_array()) add(t);
            } else {
                add(*v);
            }
            nd().types = bits;
        }
        if (const bj::value* v = find("const")) {
            nd().has_const = true;
            nd().const_value = *v;
        }
        if (const bj::value* v = find("enum")) {
            if (!v->is_array()) return fail(where("enum"), "enum must be an array");
            nd().has_enum = true;
            for (const auto& e : v->get_array()) nd().enum_values.emplace_back(e, bj::storage_ptr());
        }
        number_kw("multipleOf", nd().multiple_of);
        if (nd().multiple_of) {
            const auto& m = *nd().multiple_of;
            bool positive = m.is_int64() ? m.get_int64() > 0 : m.is_uint64() ? m.get_uint64() > 0 : m.get_double() > 0;
            if (!positive) return fail(where("multipleOf"), "multipleOf must be greater than 0");
        }
        number_kw("minimum", nd().minimum);
        number_kw("maximum", nd().maximum);
        number_kw("exclusiveMinimum", nd().exclusive_minimum);
        number_kw("exclusiveMaximum", nd().exclusive_maximum);
        size_kw("minLength", nd().min_length);
        size_kw("maxLength", nd().max_length);
        size_kw("minItems", nd().min_items);
        size_kw("maxItems", nd().max_items);
        size_kw("minContains", nd().min_contains);
        size_kw("maxContains", nd().max_contains);
        size_kw("minProperties", nd().min_properties);
        size_kw("maxProperties", nd().max_properties);
        if (const bj::value* v = find("uniqueItems")) {
            if (!v->is_bool()) return fail(where("uniqueItems"), "uniqueItems must be a boolean");
            nd().unique_items = v->get_bool();
        }
        if (const bj::value* v = find("pattern")) {
            if (!v->is_string()) return fail(where("pattern"), "pattern must be a string");
            auto re = compile_pattern(v->get_string());
            if (!re) return fail(where("pattern"), re.error());
            nd().pattern = static_cast<index>(p_.regexes.size());
            nd().pattern_source = std::string(v->get_string());
            p_.regexes.push_back(std::move(*re));
        }
        if (const bj::value* v = find("required")) {
            std::vector<std::string> names;
            string_array("required", *v, names, where("required"));
            nd().required = std::move(names);
        }
        if (const bj::value* v = find("dependentRequired")) {
            if (!v->is_object()) return fail(where("dependentRequired"), "dependentRequired must be an object");
            for (const auto& kv : v->get_object()) {
                required_dependency d{std::string(kv.key()), {}};
                string_array("dependentRequired", kv.value(), d.required,
                             doc_location(w.doc, json::child_pointer(ptr("dependentRequired"), kv.key())));
                nd().dependent_required.push_back(std::move(d));
            }
        }
    }
    if (const bj::value* v = find("format")) {
        if (!v->is_string()) return fail(where("format"), "format must be a string");
        nd().format = format_from_name(v->get_string());
        nd().format_name = std::string(v->get_string());
        nd().format_assert = p_.opts.format_assertion || (vocab & v_format_assertion);
    }
    if (error_) return;

    // --- applicator vocabulary
    if (vocab & v_applicator) {
        {
            auto all = many("allOf");
            auto any = many("anyOf");
            auto one_of = many("oneOf");
            nd().all_of = std::move(all);
            nd().any_of = std::move(any);
            nd().one_of = std::move(one_of);
        }
        if (error_) return;
        {
            index c = one("not");
            nd().not_ = c;
        }
        {
            index c = one("if");
            nd().if_ = c;
        }
        {
            index c = one("then");
            nd().then_ = c;
        }
        {
            index c = one("else");
            nd().else_ = c;
        }
        if (const bj::value* v = find("dependentSchemas")) {
            if (!v->is_object())
                return fail(where("dependentSchemas"), "dependentSchemas must be an object of schemas");
            for (const auto& kv : v->get_object()) {
                std::string p = json::child_pointer(ptr("dependentSchemas"), kv.key());
                index c = subschema(w, p, kv.value(), doc_location(w.doc, p));
                nd().dependent_schemas.push_back({std::string(kv.key()), c});
            }
        }
        if (const bj::value* v = find("prefixItems")) {
            if (!v->is_array() || v->get_array().empty())
                return fail(where("prefixItems"), "prefixItems must be a non-empty array of schemas");
            auto items = many("prefixItems");
            nd().prefix_items = std::move(items);
        }
        {
            index c = one("items");
            nd().items = c;
        }
        {
            index c = one("contains");
            nd().contains = c;
        }
        if (const bj::value* v = find("properties")) {
            if (!v->is_object()) return fail(where("properties"), "properties must be an object of schemas");
            for (const auto& kv : v->get_object()) {
                std::string p = json::child_pointer(ptr("properties"), kv.key());
                index c = subschema(w, p, kv.value(), doc_location(w.doc, p));
                nd().properties.push_back({std::string(kv.key()), c});
            }
        }
        if (const bj::value* v = find("patternProperties")) {
            if (!v->is_object())
                return fail(where("patternProperties"), "patternProperties must be an object of schemas");
            for (const auto& kv : v->get_object()) {
                std::string p = json::child_pointer(ptr("patternProperties"), kv.key());
                auto re = compile_pattern(kv.key());
                if (!re) return fail(doc_location(w.doc, p), re.error());
                index r = static_cast<index>(p_.regexes.size());
                p_.regexes.push_back(std::move(*re));
                index c = subschema(w, p, kv.value(), doc_location(w.doc, p));
                nd().pattern_properties.push_back({r, std::string(kv.key()), c});
            }
        }
        {
            index c = one("additionalProperties");
            nd().additional_properties = c;
        }
        {
            index c = one("propertyNames");
            nd().property_names = c;
        }
    }
    if (vocab & v_unevaluated) {
        {
            index c = one("unevaluatedItems");
            nd().unevaluated_items = c;
        }
        {
            index c = one("unevaluatedProperties");
            nd().unevaluated_properties = c;
        }
    }
    if (error_) return;
    auto& n = nd();
    if (!n.required.empty() && n.required.size() <= 64 && !n.properties.empty()) {
        std::size_t found = 0;
        for (std::size_t r = 0; r < n.required.size(); ++r)
            for (auto& prop : n.properties)
                if (prop.name == n.required[r]) {
                    prop.required_slot = static_cast<std::int32_t>(r);
                    ++found;
                }
        n.required_by_mask = found == n.required.size();
    }
    n.object_keywords = !n.properties.empty() || !n.pattern_properties.empty() || n.additional_properties != none ||
                        n.property_names != none || n.unevaluated_properties != none || !n.required.empty() ||
                        !n.dependent_required.empty() || !n.dependent_schemas.empty() || n.min_properties ||
                        n.max_properties;
    n.array_keywords = !n.prefix_items.empty() || n.items != none || n.contains != none ||
                       n.unevaluated_items != none || n.min_items || n.max_items || n.unique_items;
    n.string_keywords =
        n.min_length || n.max_length || n.pattern != none || (n.format_assert && n.format != format_kind::other);
    n.number_keywords = n.multiple_of || n.minimum || n.maximum || n.exclusive_minimum || n.exclusive_maximum;
}

}  // namespace candor::schema::detail
