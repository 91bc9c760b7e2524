// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A small RAII layer over SQLite, shared by every module that keeps data in SQLite (the
/// evidence store, `tools/sql_collection`, the examples).
///
/// It does three things and no more: closes what it opens (`database`, `statement`), makes
/// failures values (`result<…, sqlite::error>`), and binds values by position only — there is
/// no way to splice a value into SQL text through this interface. The header does not include
/// `<sqlite3.h>`, so users of the framework need no SQLite headers.
///
/// A `database` is one connection opened in serialized mode (SQLite's FULLMUTEX), so it may be
/// used from several threads; a `statement` belongs to one thread at a time (callers that share
/// statements hold their own lock for the duration of one execution).

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace candor::sqlite {

/// A failure reported by SQLite: its result code and message (for the server log only).
struct error {
    int code = 0;
    std::string message{};
};
[[noreturn]] void throw_exception_from_error(const error& e, const boost::source_location& loc);

/// The storage class of a column value.
enum class value_type { integer, real, text, blob, null };

/// One prepared statement. Move-only; finalized on destruction.
class statement {
public:
    statement() = default;
    statement(statement&& other) noexcept;
    statement& operator=(statement&& other) noexcept;
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    ~statement();

    /// Bind parameter `index` (1-based). Texts are copied (they may hold NUL bytes).
    void bind(int index, std::string_view text);
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bind_null(int index);

    /// Run one step. @return true when a row is available, false when done, or the failure
    bool step(error& failure);
    /// Run to completion, ignoring rows. @return the failure, if any
    boost::system::result<void, error> run();
    /// Ready for another execution: reset and clear the bindings.
    void reset() noexcept;

    /// Column accessors for the current row (0-based).
    value_type type(int column) const noexcept;
    std::int64_t integer(int column) const noexcept;
    double real(int column) const noexcept;
    /// The text of a column (valid until the next step or reset).
    std::string_view text(int column) const noexcept;
    int column_count() const noexcept;

    sqlite3_stmt* handle() const noexcept { return stmt_; }

private:
    friend class database;
    statement(sqlite3_stmt* s, sqlite3* db) noexcept : stmt_(s), db_(db) {}
    sqlite3_stmt* stmt_ = nullptr;
    sqlite3* db_ = nullptr;
};

/// Resets a statement when the scope ends (so a shared statement is reusable after an early
/// return or an exception).
class reset_on_exit {
public:
    explicit reset_on_exit(statement& s) noexcept : s_(s) {}
    ~reset_on_exit() { s_.reset(); }
    reset_on_exit(const reset_on_exit&) = delete;
    reset_on_exit& operator=(const reset_on_exit&) = delete;

private:
    statement& s_;
};

/// One connection. Move-only; closed on destruction (after its statements: destroy those first).
class database {
public:
    enum class mode { read_write_create, read_write, read_only };

    /// Open (and for `read_write_create`, create) a database file; ":memory:" is a private
    /// in-memory database. Sets a busy timeout so that a second process waits briefly instead
    /// of failing at once.
    static boost::system::result<database, error> open(const std::string& path, mode m = mode::read_write_create);

    database() = default;
    database(database&& other) noexcept;
    database& operator=(database&& other) noexcept;
    database(const database&) = delete;
    database& operator=(const database&) = delete;
    ~database();

    /// Run SQL text without parameters (schema, BEGIN/COMMIT); several statements allowed.
    /// Never pass values through here: use `prepare` and `bind`.
    boost::system::result<void, error> exec(const char* sql);

    /// Prepare one statement.
    boost::system::result<statement, error> prepare(std::string_view sql);

    /// Rows changed by the last INSERT/UPDATE/DELETE on this connection.
    std::int64_t changes() const noexcept;
    sqlite3* handle() const noexcept { return db_; }

private:
    explicit database(sqlite3* db) noexcept : db_(db) {}
    sqlite3* db_ = nullptr;
};

/// A transaction that rolls back unless committed.
class transaction {
public:
    /// `BEGIN IMMEDIATE` (takes the write lock at once, so a read-then-write cannot deadlock).
    static boost::system::result<transaction, error> begin(database& db);
    transaction(transaction&& other) noexcept;
    transaction& operator=(transaction&&) = delete;
    transaction(const transaction&) = delete;
    ~transaction();
    boost::system::result<void, error> commit();

private:
    explicit transaction(database& db) noexcept : db_(&db) {}
    database* db_ = nullptr;
};

}  // namespace candor::sqlite
