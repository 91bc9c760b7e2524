// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The evidence store in a SQLite database (component sqlite, so that the evidence component
/// itself needs no SQLite): it survives restarts and is shared by the processes of one host.

#include <candor/evidence/store.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace candor::state {

/// Why the SQLite store could not be opened.
enum class store_error { open_failed, schema_failed };
std::string_view to_string(store_error e) noexcept;
[[noreturn]] void throw_exception_from_error(store_error e, const boost::source_location& loc);

/// A store in a SQLite database file (":memory:" for a private in-memory database). Creates
/// its tables (`candor_evidence_walk`, `candor_evidence_id`) if they do not exist.
boost::system::result<std::shared_ptr<evidence::evidence_store>, store_error> open_sqlite_store(
    const std::string& path);

}  // namespace candor::state
