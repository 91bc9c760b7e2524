// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The HTTP transport's SSE event log (`transport::event_log`) in a SQL database
/// (`store::sql_database`) that the replicas share: SQLite on one host, PostgreSQL
/// (`postgres::open_sql_database`) for replicas on several. A stream sent by one replica resumes on
/// any other (`Last-Event-ID`).
///
/// One table, created if missing:
/// `candor_http_event(session_id TEXT, stream_id TEXT, seq BIGINT, ends_stream INTEGER, body
/// TEXT, expires BIGINT, PRIMARY KEY (session_id, stream_id, seq))` (times in Unix milliseconds;
/// `expires` indexed, for `purge`). The statements are plain SQL that SQLite and PostgreSQL both
/// run; on PostgreSQL the table is created under an advisory lock, as for
/// `sql_session_records`.

#include <candor/store/database.hpp>
#include <candor/transport/event_log.hpp>

#include <memory>

namespace candor::state {

class sql_event_log final : public transport::event_log {
public:
    /// Create the table if it is missing (blocking, on the calling thread: call it at startup).
    /// @return the log, or why the table could not be created
    static boost::system::result<std::shared_ptr<sql_event_log>, store::db_error> open(
        std::shared_ptr<store::sql_database> db);

    transport::event_log_result<void> append(const transport::logged_event& e, std::size_t keep) override;
    transport::event_log_result<std::vector<transport::logged_event>> read(
        std::string_view session_id, std::string_view stream_id, std::uint64_t from, std::size_t max,
        std::chrono::system_clock::time_point now) override;
    transport::event_log_result<std::size_t> purge(std::chrono::system_clock::time_point now) override;

private:
    explicit sql_event_log(std::shared_ptr<store::sql_database> db) : db_(std::move(db)) {}

    std::shared_ptr<store::sql_database> db_;
};

}  // namespace candor::state
