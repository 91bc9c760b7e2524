// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The narrow database interface behind a SQL collection: run one parameterized statement and
/// stream its rows, run a few statements in one transaction. SQLite is the embedded default
/// (`open_sqlite`); a PostgreSQL implementation needs only these three methods and its own
/// placeholder style (the generated SQL uses `?` placeholders and double-quoted identifiers).
///
/// Values only ever travel as bound parameters (`sql_value`); SQL text comes from the
/// collection's own generator, whose identifiers come from the table's allow-list.

#include <candor/sqlite/database.hpp>

#include <boost/system/result.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace candor::sql_collection {

/// One bound value or column value.
using sql_value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using sql_row = std::vector<sql_value>;

/// A database failure (for the server log; callers see `SOURCE_UNAVAILABLE`).
struct db_error {
    std::string message;
};
[[noreturn]] void throw_exception_from_error(const db_error& e, const boost::source_location& loc);

class sql_database {
public:
    virtual ~sql_database() = default;

    /// Run `sql` with `params` bound in order; call `on_row` per row until it returns false.
    virtual boost::system::result<void, db_error> query(std::string_view sql, std::span<const sql_value> params,
                                                        const std::function<bool(const sql_row&)>& on_row) = 0;

    /// Run a statement that returns no rows. @return the number of rows changed
    virtual boost::system::result<std::int64_t, db_error> execute(std::string_view sql,
                                                                  std::span<const sql_value> params) = 0;

    /// Run `work` inside one write transaction (committed when `work` succeeds, rolled back
    /// otherwise). No other statement of this object runs meanwhile.
    virtual boost::system::result<void, db_error> transaction(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) = 0;
};

/// SQLite through `candor::sqlite` (WAL journal, busy timeout): one connection, serialized by
/// a mutex that is held for one statement or one transaction — never across a tool's call.
boost::system::result<std::shared_ptr<sql_database>, db_error> open_sqlite(const std::string& path);

}  // namespace candor::sql_collection
