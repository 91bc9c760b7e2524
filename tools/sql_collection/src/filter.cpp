// SPDX-License-Identifier: BSL-1.0
#include <candor/sql_collection/filter.hpp>

#include <candor/json/pointer.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

namespace candor::sql_collection {

namespace {

constexpr std::array<std::string_view, 7> all_operators{"eq", "ne", "in", "lt", "lte", "gt", "gte"};
constexpr std::array<std::string_view, 3> equality_operators{"eq", "ne", "in"};

std::string_view kind_name(const boost::json::value& v) {
    switch (v.kind()) {
        case boost::json::kind::null: return "null";
        case boost::json::kind::bool_: return "a boolean";
        case boost::json::kind::int64:
        case boost::json::kind::uint64: return "an integer";
        case boost::json::kind::double_: return "a number";
        case boost::json::kind::string: return "a string";
        case boost::json::kind::array: return "an array";
        case boost::json::kind::object: return "an object";
    }
    return "a value";
}

std::string_view expected_of(field_type t) {
    switch (t) {
        case field_type::text: return "a string";
        case field_type::integer: return "an integer";
        case field_type::number: return "a number";
        case field_type::boolean: return "true or false";
        case field_type::date: return "a date string YYYY-MM-DD";
    }
    return "a value";
}

bool is_date(std::string_view s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
    for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u})
        if (s[i] < '0' || s[i] > '9') return false;
    const int month = (s[5] - '0') * 10 + (s[6] - '0');
    const int day = (s[8] - '0') * 10 + (s[9] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::string join(const auto& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

issue make_issue(std::string_view code, std::string path, std::string message) {
    issue i;
    i.code = std::string(code);
    i.path = std::move(path);
    i.message = std::move(message);
    i.repairable = true;
    i.where = layer::contract;
    return i;
}

// Pass 1: the structural budget, over an explicit stack (the filter is untrusted).
std::optional<issue> check_budget(const boost::json::value& filter, const filter_limits& limits,
                                  std::string_view base) {
    struct entry {
        const boost::json::value* v;
        std::size_t groups;  // group levels enclosing v
        std::string path;
    };
    std::vector<entry> stack{{&filter, 0, std::string(base)}};
    std::size_t nodes = 0;
    while (!stack.empty()) {
        auto e = std::move(stack.back());
        stack.pop_back();
        if (++nodes > limits.max_nodes)
            return make_issue(codes::filter_too_large, std::string(base),
                              "filter is too large: at most " + std::to_string(limits.max_nodes) +
                                  " values in all; simplify it (an 'in' list replaces many 'or' conditions)");
        if (const auto* o = e.v->if_object()) {
            for (const auto& kv : *o) {
                auto child = json::child_pointer(e.path, kv.key());
                const bool group = (kv.key() == "and" || kv.key() == "or") && kv.value().is_array();
                if (group && e.groups + 1 > limits.max_depth)
                    return make_issue(codes::filter_too_deep, child,
                                      "filter is nested too deeply: at most " + std::to_string(limits.max_depth) +
                                          " levels of groups");
                if (group) {
                    ++nodes;  // the group's array
                    const auto& arr = kv.value().get_array();
                    for (std::size_t i = 0; i < arr.size(); ++i) {
                        auto p = child;
                        json::append_index(p, i);
                        stack.push_back({&arr[i], e.groups + 1, std::move(p)});
                    }
                } else {
                    stack.push_back({&kv.value(), e.groups, std::move(child)});
                }
            }
        } else if (const auto* a = e.v->if_array()) {
            for (std::size_t i = 0; i < a->size(); ++i) {
                auto p = e.path;
                json::append_index(p, i);
                stack.push_back({&(*a)[i], e.groups, std::move(p)});
            }
        }
    }
    return std::nullopt;
}

// Pass 2: the rules and the translation. Recursion follows groups only, and the budget pass
// has bounded their depth.
class compiler {
public:
    compiler(const table_spec& t, const filter_limits& l) : table_(t), limits_(l) {}

    std::string filter(const boost::json::object& o, const std::string& path, bool top) {
        if (o.empty()) {
            if (!top)
                add(codes::filter_malformed, path,
                    "an empty condition {} inside a group; remove it or name a field, e.g. {\"" +
                        table_.fields.front().name + "\": …}");
            return "TRUE";
        }
        std::vector<std::string> parts;
        for (const auto& kv : o) {
            const auto child = json::child_pointer(path, kv.key());
            if (kv.key() == "and" || kv.key() == "or") parts.push_back(group(kv.key(), kv.value(), child));
            else parts.push_back(condition(kv.key(), kv.value(), child));
        }
        return parts.size() == 1 ? parts.front() : grouped(parts, " AND ");
    }

    issue_list issues;
    std::vector<sql_value> params;

private:
    const table_spec& table_;
    const filter_limits& limits_;

    void add(std::string_view code, std::string path, std::string message, boost::json::object details = {}) {
        if (issues.size() >= limits_.max_issues) return;
        auto i = make_issue(code, std::move(path), std::move(message));
        i.details = std::move(details);
        issues.push_back(std::move(i));
    }

    // The parts, separated by `sep`, in parentheses.
    static std::string grouped(const std::vector<std::string>& parts, std::string_view sep) {
        std::string out = "(";
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (i > 0) out += sep;
            out += parts[i];
        }
        out += ')';
        return out;
    }

    std::string group(std::string_view op, const boost::json::value& v, const std::string& path) {
        const auto* arr = v.if_array();
        // 'op', built by appending (GCC 12 warns falsely, -Wrestrict, on "'" + std::string).
        std::string quoted_op = "'";
        quoted_op += op;
        quoted_op += '\'';
        if (!arr || arr->empty()) {
            add(codes::filter_malformed, path,
                quoted_op + " takes a non-empty array of filters, e.g. {\"" + std::string(op) + "\": [{\"" +
                    table_.fields.front().name + "\": …}, …]}");
            return "FALSE";
        }
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < arr->size(); ++i) {
            auto p = path;
            json::append_index(p, i);
            const auto* o = (*arr)[i].if_object();
            if (!o) {
                add(codes::filter_malformed, p,
                    "each element of " + quoted_op + " is a filter object, got " + std::string(kind_name((*arr)[i])));
                continue;
            }
            parts.push_back(filter(*o, p, false));
        }
        if (parts.empty()) return "FALSE";
        return grouped(parts, op == "and" ? " AND " : " OR ");
    }

    boost::json::object field_list() const {
        boost::json::array names;
        for (const auto& f : table_.fields) names.emplace_back(f.name);
        return {{"allowed", std::move(names)}};
    }

    std::string condition(std::string_view name, const boost::json::value& v, const std::string& path) {
        const auto* f = table_.find(name);
        if (!f) {
            std::vector<std::string_view> names;
            for (const auto& x : table_.fields) names.push_back(x.name);
            add(codes::filter_unknown_field, path,
                "unknown field '" + std::string(name) + "'; filterable fields: " + join(names) + " (groups: and, or)",
                field_list());
            return "FALSE";
        }
        if (const auto* ops = v.if_object()) {
            if (ops->empty()) {
                add(codes::filter_malformed, path,
                    "an empty operator object; use e.g. {\"eq\": …}; operators: " + join(allowed(*f)));
                return "FALSE";
            }
            std::vector<std::string> parts;
            for (const auto& kv : *ops)
                parts.push_back(term(*f, kv.key(), kv.value(), json::child_pointer(path, kv.key())));
            return parts.size() == 1 ? parts.front() : grouped(parts, " AND ");
        }
        return term(*f, "eq", v, path);
    }

    static std::vector<std::string_view> allowed(const field& f) {
        if (f.type == field_type::boolean) return {equality_operators.begin(), equality_operators.end()};
        return {all_operators.begin(), all_operators.end()};
    }

    std::string term(const field& f, std::string_view op, const boost::json::value& v, const std::string& path) {
        const auto ops = allowed(f);
        bool known = false;
        for (auto o : ops) known = known || o == op;
        if (!known) {
            boost::json::array list;
            for (auto o : ops) list.emplace_back(o);
            add(codes::filter_unknown_operator, path,
                "operator '" + std::string(op) + "' is not available for " + std::string(to_string(f.type)) +
                    " field '" + f.name + "'; use one of " + join(ops),
                {{"allowed", std::move(list)}});
            return "FALSE";
        }
        const auto col = detail::quoted(f.name);
        if (op == "in") {
            const auto* arr = v.if_array();
            if (!arr) {
                add(codes::filter_type_mismatch, path,
                    "'in' takes an array of values for field '" + f.name + "', got " + std::string(kind_name(v)),
                    {{"expected", "array"}});
                return "FALSE";
            }
            if (arr->size() > limits_.max_in) {
                add(codes::filter_list_too_long, path,
                    "'in' lists at most " + std::to_string(limits_.max_in) + " values, got " +
                        std::to_string(arr->size()) + "; split the search",
                    {{"limit", limits_.max_in}});
                return "FALSE";
            }
            if (arr->empty()) return "FALSE";
            std::string marks;
            for (std::size_t i = 0; i < arr->size(); ++i) {
                auto p = path;
                json::append_index(p, i);
                if (!scalar(f, (*arr)[i], p, false)) return "FALSE";
                marks += i == 0 ? "?" : ", ?";
            }
            return col + " IN (" + marks + ")";
        }
        const bool equality = op == "eq" || op == "ne";
        if (v.is_array() && op == "eq") {
            add(codes::filter_type_mismatch, path,
                "field '" + f.name + "' takes " + std::string(expected_of(f.type)) +
                    "; to match any of several values write {\"" + f.name + "\": {\"in\": [...]}}",
                {{"expected", to_string(f.type)}});
            return "FALSE";
        }
        if (v.is_null() && equality) {
            if (!f.nullable) {
                add(codes::filter_type_mismatch, path,
                    "field '" + f.name + "' is never null; compare it with " + std::string(expected_of(f.type)),
                    {{"expected", to_string(f.type)}});
                return "FALSE";
            }
            return col + (op == "eq" ? " IS NULL" : " IS NOT NULL");
        }
        if (!scalar(f, v, path, false)) return "FALSE";
        if (op == "eq") return col + " = ?";
        if (op == "ne") return col + " IS DISTINCT FROM ?";
        if (op == "lt") return col + " < ?";
        if (op == "lte") return col + " <= ?";
        if (op == "gt") return col + " > ?";
        return col + " >= ?";
    }

    // Check one value against the field's type and bind it.
    bool scalar(const field& f, const boost::json::value& v, const std::string& path, bool) {
        auto mismatch = [&] {
            add(codes::filter_type_mismatch, path,
                "field '" + f.name + "' takes " + std::string(expected_of(f.type)) + ", got " +
                    std::string(kind_name(v)),
                {{"expected", to_string(f.type)}});
            return false;
        };
        switch (f.type) {
            case field_type::text:
            case field_type::date: {
                const auto* s = v.if_string();
                if (!s) return mismatch();
                if (s->size() > limits_.max_value_bytes) {
                    add(codes::filter_value_too_long, path,
                        "the value is " + std::to_string(s->size()) + " bytes long; at most " +
                            std::to_string(limits_.max_value_bytes),
                        {{"limit", limits_.max_value_bytes}});
                    return false;
                }
                if (f.type == field_type::date && !is_date(*s)) return mismatch();
                params.emplace_back(std::string(*s));
                return true;
            }
            case field_type::integer:
                if (v.is_int64()) params.emplace_back(v.get_int64());
                else if (v.is_uint64() &&
                         v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                    params.emplace_back(static_cast<std::int64_t>(v.get_uint64()));
                else return mismatch();
                return true;
            case field_type::number:
                if (v.is_int64()) params.emplace_back(v.get_int64());
                else if (v.is_uint64()) params.emplace_back(static_cast<double>(v.get_uint64()));
                else if (v.is_double()) params.emplace_back(v.get_double());
                else return mismatch();
                return true;
            case field_type::boolean:
                if (!v.is_bool()) return mismatch();
                params.emplace_back(std::int64_t{v.get_bool() ? 1 : 0});
                return true;
        }
        return mismatch();
    }
};

}  // namespace

boost::system::result<sql_condition, issue_list> compile_filter(const boost::json::value& filter,
                                                                const table_spec& table, const filter_limits& limits,
                                                                std::string_view base_path) {
    if (auto budget = check_budget(filter, limits, base_path)) return issue_list{std::move(*budget)};
    const auto* o = filter.if_object();
    if (!o) {
        return issue_list{make_issue(codes::filter_malformed, std::string(base_path),
                                     "filter is an object, e.g. {\"" + table.fields.front().name + "\": …}, got " +
                                         std::string(kind_name(filter)))};
    }
    compiler c(table, limits);
    auto sql = c.filter(*o, std::string(base_path), true);
    if (!c.issues.empty()) return std::move(c.issues);
    return sql_condition{std::move(sql), std::move(c.params)};
}

std::string describe_filter(const table_spec& table, const filter_limits& limits) {
    std::string fields;
    for (const auto& f : table.fields) {
        fields += (fields.empty() ? "" : ", ") + f.name + " (" + std::string(to_string(f.type)) +
                  (f.nullable ? ", may be null" : "") + ")";
    }
    return "Filter: {\"FIELD\": VALUE} for equality or {\"FIELD\": {\"OP\": VALUE}} with OP in eq, ne, in, lt, lte, "
           "gt, gte; combine with {\"and\": [...]} / {\"or\": [...]} (at most " +
           std::to_string(limits.max_depth) + " levels). Fields: " + fields + ".";
}

}  // namespace candor::sql_collection
