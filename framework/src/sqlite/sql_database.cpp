// SPDX-License-Identifier: BSL-1.0
#include <candor/sqlite/sql_database.hpp>

#include <candor/sqlite/database.hpp>

#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

namespace candor::sqlite {

using store::db_error;
using store::read_view_options;
using store::read_views;
using store::sql_database;
using store::sql_dialect;
using store::sql_row;
using store::sql_value;
using store::view_error;

namespace {

// Run one statement on `db` with `params` bound in order, calling `on_row` per row.
boost::system::result<void, db_error> run_statement(sqlite::database& db, std::string_view sql,
                                                    std::span<const sql_value> params,
                                                    const std::function<bool(const sql_row&)>& on_row) {
    auto st = db.prepare(sql);
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

// Read views on SQLite: a read transaction per view, on a connection of its own to the same
// file (WAL: writers go on, and the view keeps reading the database as it was at its first read).
class sqlite_read_views final : public read_views {
public:
    sqlite_read_views(std::string path, read_view_options options) : path_(std::move(path)), options_(options) {}

    boost::system::result<std::string, view_error> open() override {
        {
            std::lock_guard lock(mutex_);
            sweep();
            if (views_.size() >= options_.max_held)
                return view_error{view_error::kind::limit,
                                  "read views held: " + std::to_string(views_.size()) + " (the most allowed)"};
        }
        auto db = sqlite::database::open(path_, sqlite::database::mode::read_only);
        if (!db) return view_error{view_error::kind::failed, db.error().message};
        if (auto b = db->exec("BEGIN"); !b) return view_error{view_error::kind::failed, b.error().message};
        // A read transaction takes its snapshot at its first read.
        if (auto r = run_statement(*db, "SELECT count(*) FROM sqlite_schema", {}, [](const sql_row&) { return false; });
            !r)
            return view_error{view_error::kind::failed, r.error().message};
        auto v = std::make_shared<view>(std::move(*db), now());
        std::lock_guard lock(mutex_);
        if (views_.size() >= options_.max_held)  // others opened meanwhile
            return view_error{view_error::kind::limit, "read views held: the most allowed"};
        std::string id = "v" + std::to_string(++opened_) + "-" + std::to_string(nonce_);
        views_.emplace(id, std::move(v));
        return id;
    }

    boost::system::result<void, view_error> query(std::string_view id, std::string_view sql,
                                                  std::span<const sql_value> params,
                                                  const std::function<bool(const sql_row&)>& on_row) override {
        std::shared_ptr<view> v;
        {
            std::lock_guard lock(mutex_);
            sweep();
            auto it = views_.find(std::string(id));
            if (it == views_.end())
                return view_error{view_error::kind::gone, "no such read view here (ended, or of another process)"};
            v = it->second;
        }
        std::lock_guard one(v->mutex);
        if (auto r = run_statement(v->db, sql, params, on_row); !r)
            return view_error{view_error::kind::failed, r.error().message};
        return {};
    }

    void close(std::string_view id) override {
        std::lock_guard lock(mutex_);
        views_.erase(std::string(id));
    }

    std::size_t held() const override {
        std::lock_guard lock(mutex_);
        return views_.size();
    }

private:
    struct view {
        view(sqlite::database d, std::chrono::steady_clock::time_point at) : db(std::move(d)), opened(at) {}
        sqlite::database db;  // closed with the view: its read transaction ends
        std::chrono::steady_clock::time_point opened;
        std::mutex mutex;  // one statement at a time on the view's connection
    };

    // Under mutex_: end the views past their age (a statement running in one keeps it alive
    // until the statement ends: the map holds one of its owners).
    void sweep() {
        const auto oldest = now() - options_.max_age;
        std::erase_if(views_, [&](const auto& kv) { return kv.second->opened <= oldest; });
    }

    std::string path_;
    read_view_options options_;

    std::chrono::steady_clock::time_point now() const {
        return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
    }
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<view>> views_;
    std::uint64_t opened_ = 0;
    // Ids of another run of this process (or another process) are never ids of this one.
    const std::uint64_t nonce_ = std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32);
};

class sqlite_database final : public sql_database {
public:
    sqlite_database(sqlite::database db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}

    std::shared_ptr<read_views> open_read_views(const read_view_options& options) override {
        if (path_ == ":memory:" || path_.empty()) return nullptr;
        return std::make_shared<sqlite_read_views>(path_, options);
    }

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
    std::string path_;
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
        return run_statement(db_, sql, params, on_row);
    }
};

}  // namespace

boost::system::result<std::shared_ptr<sql_database>, db_error> open_sql_database(const std::string& path) {
    auto db = database::open(path);
    if (!db) return db_error{db.error().message};
    if (path != ":memory:") {
        if (auto r = db->exec("PRAGMA journal_mode=WAL"); !r) return db_error{r.error().message};
    }
    return std::shared_ptr<sql_database>(std::make_shared<sqlite_database>(std::move(*db), path));
}

}  // namespace candor::sqlite
