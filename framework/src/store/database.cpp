// SPDX-License-Identifier: BSL-1.0
#include <candor/store/database.hpp>

#include <candor/sqlite/database.hpp>

#include <mutex>
#include <stdexcept>

namespace candor::store {

void throw_exception_from_error(const db_error& e, const boost::source_location&) {
    throw std::runtime_error("store: " + e.message);
}

boost::system::result<void, db_error> lock_for_setup(sql_database& tx, std::int64_t key) {
    if (tx.dialect() != sql_dialect::postgres) return {};
    const sql_value k[] = {key};
    if (auto r = tx.execute("SELECT pg_advisory_xact_lock(CAST(? AS BIGINT))", k); !r) return r.error();
    return {};
}

boost::system::result<void, db_error> create_schema(sql_database& db, std::int64_t key,
                                                    std::span<const std::string_view> statements) {
    return db.transaction([&](sql_database& tx) -> boost::system::result<void, db_error> {
        if (auto l = lock_for_setup(tx, key); !l) return l;
        for (auto statement : statements)
            if (auto r = tx.execute(statement, {}); !r) return r.error();
        return {};
    });
}

namespace {

class sqlite_database final : public sql_database {
public:
    explicit sqlite_database(sqlite::database db) : db_(std::move(db)) {}

    sql_dialect dialect() const noexcept override { return sql_dialect::sqlite; }

    boost::system::result<void, db_error> query(std::string_view sql, std::span<const sql_value> params,
                                                const std::function<bool(const sql_row&)>& on_row) override {
        std::lock_guard lock(mutex_);
        return query_locked(sql, params, on_row);
    }

    boost::system::result<std::int64_t, db_error> execute(std::string_view sql,
                                                          std::span<const sql_value> params) override {
        std::lock_guard lock(mutex_);
        auto r = query_locked(sql, params, [](const sql_row&) { return true; });
        if (!r) return r.error();
        return db_.changes();
    }

    boost::system::result<void, db_error> transaction(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) override {
        std::lock_guard lock(mutex_);
        if (depth_ > 0) return nested(work);
        auto tx = sqlite::transaction::begin(db_);
        if (!tx) return db_error{tx.error().message};
        // An exception from `work` unwinds through the transaction's destructor (rollback).
        auto r = within(work);
        if (!r) return r;
        if (auto c = tx->commit(); !c) return db_error{c.error().message};
        return {};
    }

private:
    sqlite::database db_;
    // Held for one statement, or for a whole transaction (recursive: the statements `work`
    // runs inside a transaction take it again on the same thread).
    std::recursive_mutex mutex_;
    // Transactions open on this connection (under `mutex_`): past the first, a savepoint.
    int depth_ = 0;

    boost::system::result<void, db_error> within(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) {
        struct level {
            int& depth;
            explicit level(int& d) : depth(++d) {}
            ~level() { --depth; }
        } in(depth_);
        return work(*this);
    }

    // A savepoint: the inner work's writes go when it fails, the outer transaction goes on.
    boost::system::result<void, db_error> nested(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) {
        if (auto s = db_.exec("SAVEPOINT candor_nested"); !s) return db_error{s.error().message};
        bool released = false;
        struct undo {
            sqlite::database& db;
            bool& released;
            ~undo() {
                if (!released) (void)db.exec("ROLLBACK TO candor_nested; RELEASE candor_nested");
            }
        } guard{db_, released};
        auto r = within(work);
        if (!r) return r;
        if (auto s = db_.exec("RELEASE candor_nested"); !s) return db_error{s.error().message};
        released = true;
        return {};
    }

    boost::system::result<void, db_error> query_locked(std::string_view sql, std::span<const sql_value> params,
                                                       const std::function<bool(const sql_row&)>& on_row) {
        auto st = db_.prepare(sql);
        if (!st) return db_error{st.error().message};
        int index = 1;
        for (const auto& p : params) {
            std::visit(
                [&](const auto& v) {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, std::nullptr_t>) st->bind_null(index);
                    else st->bind(index, v);
                },
                p);
            ++index;
        }
        const int columns = st->column_count();
        sql_row row(static_cast<std::size_t>(columns));
        sqlite::error failure;
        while (st->step(failure)) {
            for (int c = 0; c < columns; ++c) {
                auto& cell = row[static_cast<std::size_t>(c)];
                switch (st->type(c)) {
                    case sqlite::value_type::integer: cell = st->integer(c); break;
                    case sqlite::value_type::real: cell = st->real(c); break;
                    case sqlite::value_type::text:
                    case sqlite::value_type::blob: cell = std::string(st->text(c)); break;
                    case sqlite::value_type::null: cell = nullptr; break;
                }
            }
            if (!on_row(row)) return {};
        }
        if (failure.code != 0) return db_error{failure.message};
        return {};
    }
};

}  // namespace

boost::system::result<std::shared_ptr<sql_database>, db_error> open_sqlite(const std::string& path) {
    auto db = sqlite::database::open(path);
    if (!db) return db_error{db.error().message};
    if (path != ":memory:") {
        if (auto r = db->exec("PRAGMA journal_mode=WAL"); !r) return db_error{r.error().message};
    }
    return std::shared_ptr<sql_database>(std::make_shared<sqlite_database>(std::move(*db)));
}

}  // namespace candor::store
