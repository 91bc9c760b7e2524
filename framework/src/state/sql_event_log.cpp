// SPDX-License-Identifier: BSL-1.0
#include <candor/state/sql_event_log.hpp>

#include "sql_values.hpp"

#include <array>
#include <string>

namespace candor::state {

namespace {

using detail::from_unix_ms;
using detail::number_of;
using detail::text_of;
using detail::unix_ms;
using transport::event_log_error;
using transport::logged_event;

// The key of the advisory lock around the table's creation on PostgreSQL ("candorEL"; the
// evidence store has "candorEV").
constexpr std::int64_t create_lock = 0x63616E646F72454C;

constexpr std::array<std::string_view, 2> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_http_event (session_id TEXT NOT NULL, stream_id TEXT NOT NULL, "
    "seq BIGINT NOT NULL, ends_stream INTEGER NOT NULL, body TEXT NOT NULL, expires BIGINT NOT NULL, "
    "PRIMARY KEY (session_id, stream_id, seq))",
    "CREATE INDEX IF NOT EXISTS candor_http_event_expires ON candor_http_event (expires)",
};

transport::event_log_error failed(const store::db_error& e) {
    return transport::event_log_error{"event log: " + e.message};
}

}  // namespace

boost::system::result<std::shared_ptr<sql_event_log>, store::db_error> sql_event_log::open(
    std::shared_ptr<store::sql_database> db) {
    auto r = store::create_schema(*db, create_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_event_log>(new sql_event_log(std::move(db)));
}

transport::event_log_result<void> sql_event_log::append(const transport::logged_event& e, std::size_t keep) {
    const auto seq = static_cast<std::int64_t>(e.seq);
    const store::sql_value row[] = {e.session_id, e.stream_id,       seq, std::int64_t{e.final ? 1 : 0},
                                    e.text,       unix_ms(e.expires)};
    auto done = db_->execute(
        "INSERT INTO candor_http_event (session_id, stream_id, seq, ends_stream, body, expires) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, stream_id, seq) DO UPDATE SET "
        "ends_stream = excluded.ends_stream, body = excluded.body, expires = excluded.expires",
        row);
    if (!done) return failed(done.error());
    if (keep <= e.seq) {
        // The stream's bound: its oldest events go (one indexed range, only once it is reached).
        const store::sql_value range[] = {e.session_id, e.stream_id, static_cast<std::int64_t>(e.seq - keep)};
        auto dropped =
            db_->execute("DELETE FROM candor_http_event WHERE session_id = ? AND stream_id = ? AND seq <= ?", range);
        if (!dropped) return failed(dropped.error());
    }
    return {};
}

transport::event_log_result<std::vector<transport::logged_event>> sql_event_log::read(
    std::string_view session_id, std::string_view stream_id, std::uint64_t from, std::size_t max,
    std::chrono::system_clock::time_point now) {
    std::vector<transport::logged_event> out;
    const store::sql_value key[] = {std::string(session_id), std::string(stream_id), static_cast<std::int64_t>(from),
                                    unix_ms(now), static_cast<std::int64_t>(max)};
    auto r = db_->query(
        "SELECT seq, ends_stream, body, expires FROM candor_http_event "
        "WHERE session_id = ? AND stream_id = ? AND seq >= ? AND expires > ? ORDER BY seq LIMIT ?",
        key, [&](const store::sql_row& row) {
            transport::logged_event e;
            e.session_id = std::string(session_id);
            e.stream_id = std::string(stream_id);
            e.seq = static_cast<std::uint64_t>(number_of(row.at(0)));
            e.final = number_of(row.at(1)) != 0;
            e.text = text_of(row.at(2));
            e.expires = from_unix_ms(number_of(row.at(3)));
            out.push_back(std::move(e));
            return true;
        });
    if (!r) return failed(r.error());
    return out;
}

transport::event_log_result<std::size_t> sql_event_log::purge(std::chrono::system_clock::time_point now) {
    const store::sql_value at[] = {unix_ms(now)};
    auto changed = db_->execute("DELETE FROM candor_http_event WHERE expires <= ?", at);
    if (!changed) return failed(changed.error());
    return static_cast<std::size_t>(*changed);
}

}  // namespace candor::state
