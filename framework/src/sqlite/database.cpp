// SPDX-License-Identifier: BSL-1.0
#include <candor/sqlite/database.hpp>

#include <sqlite3.h>

#include <stdexcept>
#include <utility>

namespace candor::sqlite {

namespace {

error failure_of(sqlite3* db, int code) { return error{code, db ? sqlite3_errmsg(db) : sqlite3_errstr(code)}; }

}  // namespace

void throw_exception_from_error(const error& e, const boost::source_location&) {
    throw std::runtime_error("sqlite: " + e.message);
}

statement::statement(statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(std::exchange(other.db_, nullptr)) {}

statement& statement::operator=(statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(stmt_);
        stmt_ = std::exchange(other.stmt_, nullptr);
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

statement::~statement() { sqlite3_finalize(stmt_); }

void statement::bind(int index, std::string_view text) {
    sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}
void statement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void statement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void statement::bind_null(int index) { sqlite3_bind_null(stmt_, index); }

bool statement::step(error& failure) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) failure = failure_of(db_, rc);
    else failure = {};
    return false;
}

boost::system::result<void, error> statement::run() {
    error e;
    while (step(e)) {
    }
    if (e.code != 0) return e;
    return {};
}

void statement::reset() noexcept {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

value_type statement::type(int column) const noexcept {
    switch (sqlite3_column_type(stmt_, column)) {
        case SQLITE_INTEGER: return value_type::integer;
        case SQLITE_FLOAT: return value_type::real;
        case SQLITE_TEXT: return value_type::text;
        case SQLITE_BLOB: return value_type::blob;
        default: return value_type::null;
    }
}
std::int64_t statement::integer(int column) const noexcept { return sqlite3_column_int64(stmt_, column); }
double statement::real(int column) const noexcept { return sqlite3_column_double(stmt_, column); }
std::string_view statement::text(int column) const noexcept {
    const auto* p = sqlite3_column_text(stmt_, column);
    if (!p) return {};
    return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}
int statement::column_count() const noexcept { return sqlite3_column_count(stmt_); }

boost::system::result<database, error> database::open(const std::string& path, mode m) {
    int flags = SQLITE_OPEN_FULLMUTEX;
    switch (m) {
        case mode::read_write_create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
        case mode::read_write: flags |= SQLITE_OPEN_READWRITE; break;
        case mode::read_only: flags |= SQLITE_OPEN_READONLY; break;
    }
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        auto e = failure_of(db, rc);
        sqlite3_close(db);
        return e;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_extended_result_codes(db, 1);
    return database(db);
}

database::database(database&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

database& database::operator=(database&& other) noexcept {
    if (this != &other) {
        sqlite3_close(db_);
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

database::~database() { sqlite3_close(db_); }

boost::system::result<void, error> database::exec(const char* sql) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
    if (rc == SQLITE_OK) return {};
    error e{rc, message ? message : sqlite3_errstr(rc)};
    sqlite3_free(message);
    return e;
}

boost::system::result<statement, error> database::prepare(std::string_view sql) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return failure_of(db_, rc);
    }
    return statement(s, db_);
}

std::int64_t database::changes() const noexcept { return sqlite3_changes64(db_); }

boost::system::result<transaction, error> transaction::begin(database& db) {
    if (auto r = db.exec("BEGIN IMMEDIATE"); !r) return r.error();
    return transaction(db);
}

transaction::transaction(transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

transaction::~transaction() {
    if (db_) (void)db_->exec("ROLLBACK");
}

boost::system::result<void, error> transaction::commit() {
    auto r = db_->exec("COMMIT");
    if (r) db_ = nullptr;
    return r;
}

}  // namespace candor::sqlite
