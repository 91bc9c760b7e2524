// SPDX-License-Identifier: BSL-1.0
// Fuzzes sql_collection's filter language and its translation to SQL: the input is a JSON text,
// through the strict intake, as the `filter` argument. Checked on every input: no crash, no hang,
// and every filter that compile_filter accepts becomes SQL that holds no literal (no quote: every
// value is a bound parameter), that SQLite prepares against the table, whose parameters are
// exactly the ones compile_filter returns, and that runs to the end without an error.
#include <candor/json/intake.hpp>
#include <candor/sql_collection/filter.hpp>

#include <sqlite3.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

namespace sc = candor::sql_collection;

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

const sc::table_spec& table() {
    static const sc::table_spec spec = [] {
        sc::table_spec t;
        t.table = "items";
        t.key = "id";
        t.fields = {{"id", sc::field_type::text, false, "key"},
                    {"title", sc::field_type::text, false, "title"},
                    {"priority", sc::field_type::integer, false, "priority"},
                    {"score", sc::field_type::number, true, "score"},
                    {"open", sc::field_type::boolean, false, "open"},
                    {"due", sc::field_type::date, true, "due date"}};
        t.validate();
        return t;
    }();
    return spec;
}

sqlite3* database() {
    static sqlite3* db = [] {
        sqlite3* d = nullptr;
        check(sqlite3_open(":memory:", &d) == SQLITE_OK);
        check(sqlite3_exec(d,
                           "CREATE TABLE items (id TEXT PRIMARY KEY, title TEXT NOT NULL, priority INTEGER NOT NULL, "
                           "score REAL, open INTEGER NOT NULL, due TEXT);"
                           "INSERT INTO items VALUES ('a', 'printer', 3, 1.5, 1, '2026-01-02'),"
                           "('b', 'mail', -7, NULL, 0, NULL);",
                           nullptr, nullptr, nullptr) == SQLITE_OK);
        return d;
    }();
    return db;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    candor::json::limits lim;
    lim.max_depth = 32;
    lim.max_nodes = 1024;
    lim.max_bytes = 1 << 16;
    auto doc = candor::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), lim);
    if (!doc) return 0;
    const auto compiled = sc::compile_filter(doc->root(), table(), sc::filter_limits{});
    if (!compiled) {
        check(!compiled.error().empty());
        return 0;
    }
    check(compiled->sql.find('\'') == std::string::npos);
    const std::string sql = "SELECT count(*) FROM items WHERE " + compiled->sql;
    sqlite3_stmt* stmt = nullptr;
    check(sqlite3_prepare_v2(database(), sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) == SQLITE_OK);
    check(sqlite3_bind_parameter_count(stmt) == static_cast<int>(compiled->params.size()));
    int i = 0;
    for (const auto& p : compiled->params) {
        ++i;
        int rc = SQLITE_OK;
        if (std::holds_alternative<std::nullptr_t>(p)) rc = sqlite3_bind_null(stmt, i);
        else if (const auto* n = std::get_if<std::int64_t>(&p)) rc = sqlite3_bind_int64(stmt, i, *n);
        else if (const auto* d = std::get_if<double>(&p)) rc = sqlite3_bind_double(stmt, i, *d);
        else {
            const auto& s = std::get<std::string>(p);
            rc = sqlite3_bind_text(stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        }
        check(rc == SQLITE_OK);
    }
    int rc = SQLITE_ROW;
    while (rc == SQLITE_ROW) rc = sqlite3_step(stmt);
    check(rc == SQLITE_DONE);
    sqlite3_finalize(stmt);
    return 0;
}
