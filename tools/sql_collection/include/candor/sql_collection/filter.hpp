// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The filter language of SQL collections, its checks and its translation to SQL.
///
/// A filter is a JSON object. Each member is either a condition on a field or a group:
///
///     {"status": "open"}                          equality
///     {"priority": {"gte": 2, "lte": 4}}          operators: eq ne in lt lte gt gte
///     {"owner": null}  {"owner": {"ne": null}}    null tests (nullable fields only)
///     {"and": [F, …]}  {"or": [F, …]}             groups of filters; they nest
///
/// Members of one object must all hold (an implicit `and`). Checks run in this order, each
/// problem an issue with a stable code and the JSON Pointer of the offending part (under
/// `base_path`, e.g. `/filter/and/1/status`), repairable, with a message that says what would
/// be right: first the structural budget — `FILTER_TOO_DEEP` (groups nested deeper than
/// `max_depth`), `FILTER_TOO_LARGE` (more than `max_nodes` JSON values) — and only when it
/// holds the rules: `FILTER_MALFORMED` (shapes), `FILTER_UNKNOWN_FIELD`,
/// `FILTER_UNKNOWN_OPERATOR` (also: an operator the field's type does not support),
/// `FILTER_TYPE_MISMATCH`, `FILTER_LIST_TOO_LONG` (`in`), `FILTER_VALUE_TOO_LONG`.
///
/// Translation yields SQL text whose only variable parts are field names from the table's
/// allow-list and `?` placeholders; every value is a bound parameter.

#include <candor/error/issue.hpp>
#include <candor/sql_collection/database.hpp>
#include <candor/sql_collection/table.hpp>

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace candor::sql_collection {

/// Codes of this module (documented in docs/codes.md).
namespace codes {
inline constexpr std::string_view filter_too_deep = "FILTER_TOO_DEEP";
inline constexpr std::string_view filter_too_large = "FILTER_TOO_LARGE";
inline constexpr std::string_view filter_malformed = "FILTER_MALFORMED";
inline constexpr std::string_view filter_unknown_field = "FILTER_UNKNOWN_FIELD";
inline constexpr std::string_view filter_unknown_operator = "FILTER_UNKNOWN_OPERATOR";
inline constexpr std::string_view filter_type_mismatch = "FILTER_TYPE_MISMATCH";
inline constexpr std::string_view filter_list_too_long = "FILTER_LIST_TOO_LONG";
inline constexpr std::string_view filter_value_too_long = "FILTER_VALUE_TOO_LONG";
}  // namespace codes

struct filter_limits {
    /// Levels of `and`/`or` groups (a filter without groups has depth 0).
    std::size_t max_depth = 3;
    /// JSON values in the whole filter (objects, arrays and scalars each count one).
    std::size_t max_nodes = 100;
    /// Elements of one `in` list.
    std::size_t max_in = 50;
    /// Bytes of one string value.
    std::size_t max_value_bytes = 256;
    /// Rule issues reported at most (the first ones, in document order).
    std::size_t max_issues = 20;
};

/// A filter in SQL: `sql` is a boolean expression ("TRUE" for the empty filter, "FALSE" for
/// one that nothing matches, e.g. an empty `in` list), `params` its bound values in order. The
/// same text runs on SQLite and PostgreSQL (`IS DISTINCT FROM` for `ne`, text compared
/// bytewise on both: see `create_table`).
struct sql_condition {
    std::string sql = "TRUE";
    std::vector<sql_value> params{};
};

/// Check and translate a filter.
/// @param filter the filter value (the `filter` argument)
/// @param base_path JSON Pointer of the filter inside the arguments (issues' paths start here)
/// @return the condition, or the issues (budget issues alone when the budget fails)
/// @complexity linear in the filter's size; never recursive beyond `max_depth` groups
boost::system::result<sql_condition, issue_list> compile_filter(const boost::json::value& filter,
                                                                const table_spec& table, const filter_limits& limits,
                                                                std::string_view base_path = "/filter");

/// A short text for a tool description: the fields, their types and the operators.
std::string describe_filter(const table_spec& table, const filter_limits& limits);

}  // namespace candor::sql_collection
