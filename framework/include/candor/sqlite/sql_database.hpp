// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The store interface (`store::sql_database`, candor/store/database.hpp) on SQLite (component
/// `sqlite`).

#include <candor/store/database.hpp>

#include <boost/system/result.hpp>

#include <memory>
#include <string>

namespace candor::sqlite {

/// A SQLite file (or ":memory:") through `candor::sqlite` (WAL journal, busy timeout): one
/// connection, serialized by a mutex that is held for one statement or one transaction — never
/// across a tool's call. Its read views (`open_read_views`) are read-only connections of their
/// own, each holding a read transaction (see `store::read_views`).
boost::system::result<std::shared_ptr<store::sql_database>, store::db_error> open_sql_database(const std::string& path);

}  // namespace candor::sqlite
