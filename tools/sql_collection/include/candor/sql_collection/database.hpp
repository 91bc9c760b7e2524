// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The database interface behind a SQL collection: the framework's `store::sql_database`
/// (candor/store/database.hpp), named here as well so that collection code reads as one
/// vocabulary.

#include <candor/store/database.hpp>

namespace candor::sql_collection {

using store::db_error;
using store::open_sqlite;
using store::sql_database;
using store::sql_row;
using store::sql_value;

}  // namespace candor::sql_collection
