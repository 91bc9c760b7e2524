// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The database interface behind a SQL collection: the framework's `store::sql_database`
/// (candor/store/database.hpp), named here as well so that collection code reads as one
/// vocabulary.

#include <candor/sqlite/sql_database.hpp>
#include <candor/store/database.hpp>

namespace candor::sql_collection {

using store::db_error;
using store::sql_database;
using store::sql_row;
using store::sql_value;

/// A SQLite file as a collection's database (`sqlite::open_sql_database`).
inline boost::system::result<std::shared_ptr<sql_database>, db_error> open_sqlite(const std::string& path) {
    return sqlite::open_sql_database(path);
}

}  // namespace candor::sql_collection
