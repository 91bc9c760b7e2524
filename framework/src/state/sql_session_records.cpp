// SPDX-License-Identifier: BSL-1.0
#include <candor/state/sql_session_records.hpp>

#include "sql_values.hpp"

#include <array>
#include <string>

namespace candor::state {

namespace {

using detail::from_unix_ms;
using detail::number_of;
using detail::text_of;
using detail::unix_ms;
using transport::session_record;
using transport::session_records_error;

// The key of the advisory lock around the table's creation on PostgreSQL ("candorSS").
constexpr std::int64_t create_lock = 7161126260141347667;

constexpr std::array<std::string_view, 2> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_http_session (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "protocol_version TEXT NOT NULL, client_name TEXT NOT NULL, client_version TEXT NOT NULL, "
    "client_capabilities TEXT NOT NULL, last_used BIGINT NOT NULL, expires BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS candor_http_session_expires ON candor_http_session (expires)",
};

transport::session_records_error failed(const store::db_error& e) {
    return transport::session_records_error{"session records: " + e.message};
}

}  // namespace

boost::system::result<std::shared_ptr<sql_session_records>, store::db_error> sql_session_records::open(
    std::shared_ptr<store::sql_database> db) {
    auto r = store::create_schema(*db, create_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_session_records>(new sql_session_records(std::move(db)));
}

transport::session_records_result<void> sql_session_records::put(const transport::session_record& r) {
    const store::sql_value row[] = {r.id,
                                    r.owner,
                                    r.protocol_version,
                                    r.client_name,
                                    r.client_version,
                                    r.client_capabilities,
                                    unix_ms(r.last_used),
                                    unix_ms(r.expires)};
    auto done = db_->execute(
        "INSERT INTO candor_http_session (id, owner, protocol_version, client_name, client_version, "
        "client_capabilities, last_used, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, protocol_version = excluded.protocol_version, "
        "client_name = excluded.client_name, client_version = excluded.client_version, "
        "client_capabilities = excluded.client_capabilities, last_used = excluded.last_used, "
        "expires = excluded.expires",
        row);
    if (!done) return failed(done.error());
    return {};
}

transport::session_records_result<std::optional<transport::session_record>> sql_session_records::find(
    std::string_view id, std::chrono::system_clock::time_point now) {
    std::optional<transport::session_record> found;
    const store::sql_value key[] = {std::string(id), unix_ms(now)};
    auto r = db_->query(
        "SELECT id, owner, protocol_version, client_name, client_version, client_capabilities, last_used, expires "
        "FROM candor_http_session WHERE id = ? AND expires > ?",
        key, [&](const store::sql_row& row) {
            transport::session_record rec;
            rec.id = text_of(row.at(0));
            rec.owner = text_of(row.at(1));
            rec.protocol_version = text_of(row.at(2));
            rec.client_name = text_of(row.at(3));
            rec.client_version = text_of(row.at(4));
            rec.client_capabilities = text_of(row.at(5));
            rec.last_used = from_unix_ms(number_of(row.at(6)));
            rec.expires = from_unix_ms(number_of(row.at(7)));
            found = std::move(rec);
            return false;
        });
    if (!r) return failed(r.error());
    return found;
}

transport::session_records_result<bool> sql_session_records::touch(std::string_view id,
                                                                   std::chrono::system_clock::time_point now,
                                                                   std::chrono::milliseconds idle) {
    const auto at = unix_ms(now);
    const store::sql_value args[] = {at, at + idle.count(), std::string(id), at, at - idle.count() / 4};
    auto changed = db_->execute(
        "UPDATE candor_http_session SET last_used = ?, expires = ? WHERE id = ? AND expires > ? AND last_used <= ?",
        args);
    if (!changed) return failed(changed.error());
    return *changed > 0;
}

transport::session_records_result<bool> sql_session_records::remove(std::string_view id) {
    const store::sql_value key[] = {std::string(id)};
    auto changed = db_->execute("DELETE FROM candor_http_session WHERE id = ?", key);
    if (!changed) return failed(changed.error());
    return *changed > 0;
}

transport::session_records_result<std::size_t> sql_session_records::purge(std::chrono::system_clock::time_point now) {
    const store::sql_value at[] = {unix_ms(now)};
    auto changed = db_->execute("DELETE FROM candor_http_session WHERE expires <= ?", at);
    if (!changed) return failed(changed.error());
    return static_cast<std::size_t>(*changed);
}

}  // namespace candor::state
