// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The HTTP transport's shared session records (`transport::session_records`) in a SQL database
/// (`store::sql_database`): SQLite on one host, PostgreSQL (`postgres::open_sql_database`) for
/// replicas on several.
///
/// One table, created if missing:
/// `candor_http_session(id TEXT PRIMARY KEY, owner, protocol_version, client_name,
/// client_version, client_capabilities TEXT NOT NULL, last_used BIGINT NOT NULL, expires BIGINT
/// NOT NULL)` (times in Unix milliseconds; `expires` indexed, for `purge`). The statements are
/// plain SQL that SQLite and PostgreSQL both run (`INSERT … ON CONFLICT (id) DO UPDATE`). On
/// PostgreSQL the table is created in a transaction that first takes an advisory lock
/// (`pg_advisory_xact_lock`), so replicas that start at once do not race on the catalog.

#include <candor/store/database.hpp>
#include <candor/transport/session_records.hpp>

#include <memory>

namespace candor::state {

class sql_session_records final : public transport::session_records {
public:
    /// Create the table if it is missing (blocking, on the calling thread: call it at startup).
    /// @return the records, or why the table could not be created
    static boost::system::result<std::shared_ptr<sql_session_records>, store::db_error> open(
        std::shared_ptr<store::sql_database> db);

    transport::session_records_result<void> put(const transport::session_record& r) override;
    transport::session_records_result<std::optional<transport::session_record>> find(
        std::string_view id, std::chrono::system_clock::time_point now) override;
    transport::session_records_result<bool> touch(std::string_view id, std::chrono::system_clock::time_point now,
                                                  std::chrono::milliseconds idle) override;
    transport::session_records_result<bool> remove(std::string_view id) override;
    transport::session_records_result<std::size_t> purge(std::chrono::system_clock::time_point now) override;

private:
    explicit sql_session_records(std::shared_ptr<store::sql_database> db) : db_(std::move(db)) {}

    std::shared_ptr<store::sql_database> db_;
};

}  // namespace candor::state
