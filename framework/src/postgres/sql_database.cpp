// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/postgres/sql_database.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <map>
#include <mutex>
#include <optional>

namespace candor::postgres {

namespace asio = boost::asio;
namespace pg = candor::postgres;
using store::db_error;
using store::read_view_options;
using store::read_views;
using store::sql_database;
using store::sql_dialect;
using store::sql_row;
using store::sql_value;
using store::view_error;

std::string numbered_placeholders(std::string_view sql) {
    std::string out;
    out.reserve(sql.size() + 16);
    int n = 0;
    char quote = 0;  // the quote character of the string or identifier we are in
    for (char c : sql) {
        if (quote) {
            if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
            out += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            out += c;
        } else if (c == '?') {
            out += '$';
            out += std::to_string(++n);
        } else {
            out += c;
        }
    }
    return out;
}

db_error to_db_error(const error& e) {
    std::string m = e.message;
    if (!e.sqlstate.empty()) m = e.sqlstate + ": " + m;
    return db_error{std::move(m)};
}

namespace {

// A thread that runs the pool's executor would wait for itself.
bool on_pool_thread(const asio::any_io_executor& ex) {
    if (const auto* io = ex.target<asio::io_context::executor_type>()) return io->running_in_this_thread();
    return false;
}

// Run `a` on `ex` and wait here for its value (std::optional: co_spawn's completion needs a
// default-constructible value, which a lease is not).
template <class T>
T wait_on(const asio::any_io_executor& ex, asio::awaitable<T> a) {
    auto f = asio::co_spawn(
        ex,
        [a = std::move(a)]() mutable -> asio::awaitable<std::optional<T>> {
            co_return std::optional<T>(co_await std::move(a));
        },
        asio::use_future);
    return std::move(*f.get());
}

// An exported snapshot's id as PostgreSQL writes it ("00000003-0000001B-1"): it goes into SQL
// text (SET TRANSACTION SNAPSHOT takes no parameter), so nothing else is let through.
bool snapshot_id_ok(std::string_view id) noexcept {
    if (id.empty() || id.size() > 64) return false;
    for (char c : id)
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f') || c == '-')) return false;
    return true;
}

// Read views on PostgreSQL (see read_views in database.hpp): a holder connection per view, in a
// REPEATABLE READ transaction whose snapshot it exported; reads import it on pooled connections.
class postgres_read_views final : public read_views {
public:
    postgres_read_views(std::shared_ptr<pg::pool> pool, read_view_options options)
        : pool_(std::move(pool)), options_(options) {}

    ~postgres_read_views() override {
        std::map<std::string, holder> all;
        {
            std::lock_guard lock(mutex_);
            all.swap(holders_);
        }
        end(std::move(all));
    }

    boost::system::result<std::string, view_error> open() override {
        if (on_pool_thread(pool_->executor()))
            return view_error{view_error::kind::failed, "called on the pool's thread"};
        std::map<std::string, holder> expired;
        {
            std::lock_guard lock(mutex_);
            if (holders_.size() + opening_ >= options_.max_held) {
                expired = take_expired();
                if (holders_.size() + opening_ >= options_.max_held) {
                    const auto held = holders_.size();
                    retire(std::move(expired));
                    return view_error{view_error::kind::limit,
                                      "read views held: " + std::to_string(held) + " (the most allowed)"};
                }
            }
            ++opening_;
        }
        retire(std::move(expired));
        struct undo {
            postgres_read_views& self;
            ~undo() {
                std::lock_guard lock(self.mutex_);
                --self.opening_;
            }
        } counted{*this};
        const auto deadline = pg::clock::now() + pool_->options().statement_timeout;
        const auto age_ms = std::chrono::duration_cast<std::chrono::milliseconds>(options_.max_age).count();
        auto pool = pool_;
        auto opened = wait_on(
            pool_->executor(),
            [](std::shared_ptr<pg::pool> p, pg::clock::time_point by, long long ms)
                -> asio::awaitable<
                    boost::system::result<std::pair<std::unique_ptr<pg::connection>, std::string>, pg::error>> {
                auto c = co_await p->connect_dedicated(by);
                if (!c) co_return c.error();
                // The server ends the holder's session once its transaction has been idle
                // for the view's whole age, even if this process never comes back to it.
                const std::string setup = "SET idle_in_transaction_session_timeout = " + std::to_string(ms);
                if (auto r = co_await (*c)->execute_script(setup, by); !r) co_return r.error();
                if (auto r = co_await (*c)->execute_script("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", by); !r)
                    co_return r.error();
                auto id = co_await (*c)->query("SELECT pg_export_snapshot()", {}, by);
                if (!id) co_return id.error();
                const std::string* text = nullptr;
                if (!id->rows.empty() && !id->rows[0].empty()) text = std::get_if<std::string>(&id->rows[0][0]);
                if (!text) co_return pg::error{pg::error::kind::rejected, {}, "no snapshot id"};
                co_return std::make_pair(std::move(*c), *text);
            }(pool, deadline, age_ms));
        if (!opened) return view_error{view_error::kind::failed, to_db_error(opened.error()).message};
        auto& [conn, id] = *opened;
        if (!snapshot_id_ok(id)) return view_error{view_error::kind::failed, "unexpected snapshot id"};
        std::lock_guard lock(mutex_);
        holders_.emplace(id, holder{std::move(conn), now()});
        return id;
    }

    boost::system::result<void, view_error> query(std::string_view id, std::string_view sql,
                                                  std::span<const sql_value> params,
                                                  const std::function<bool(const sql_row&)>& on_row) override {
        if (!snapshot_id_ok(id)) return view_error{view_error::kind::gone, "not a snapshot id"};
        if (on_pool_thread(pool_->executor()))
            return view_error{view_error::kind::failed, "called on the pool's thread"};
        // Held here and past its age: gone, and ended on the server before this answers. Held
        // elsewhere: its holder's server-side timeout ends it, and the import below fails.
        std::map<std::string, holder> expired;
        {
            std::lock_guard lock(mutex_);
            expired = take_expired();
        }
        const bool mine_expired = expired.contains(std::string(id));
        retire(std::move(expired));
        if (mine_expired) return view_error{view_error::kind::gone, "the snapshot is past its age"};
        const auto deadline = pg::clock::now() + pool_->options().statement_timeout;
        std::optional<pg::result_set> rows;
        bool gone = false;
        const std::string import = "SET TRANSACTION SNAPSHOT '" + std::string(id) + "'";
        const std::string text = numbered_placeholders(sql);
        pg::pool::work_fn work = [&](pg::lease& l) -> asio::awaitable<boost::system::result<void, pg::error>> {
            if (auto r = co_await l.execute_script(import, deadline); !r) {
                // 22023: invalid_parameter_value ("invalid snapshot identifier": its holder ended).
                gone = r.error().sqlstate == "22023";
                co_return r.error();
            }
            auto r = co_await l.query(text, params, deadline);
            if (!r) co_return r.error();
            rows = std::move(*r);
            co_return boost::system::result<void, pg::error>{};
        };
        auto pool = pool_;
        auto r = wait_on(pool_->executor(), pool->transaction(work, deadline, "REPEATABLE READ"));
        if (!r) {
            if (gone) return view_error{view_error::kind::gone, "the snapshot is no longer held"};
            return view_error{view_error::kind::failed, to_db_error(r.error()).message};
        }
        for (const auto& row : rows->rows)
            if (!on_row(row)) break;
        return {};
    }

    void close(std::string_view id) override {
        std::map<std::string, holder> one;
        {
            std::lock_guard lock(mutex_);
            auto it = holders_.find(std::string(id));
            if (it == holders_.end()) return;
            one.insert(holders_.extract(it));
        }
        retire(std::move(one));
    }

    std::size_t held() const override {
        std::lock_guard lock(mutex_);
        return holders_.size();
    }

private:
    struct holder {
        std::unique_ptr<pg::connection> conn;
        std::chrono::steady_clock::time_point opened;
    };

    // Under mutex_: the holders past their age, taken out of the map.
    std::map<std::string, holder> take_expired() {
        std::map<std::string, holder> out;
        const auto oldest = now() - options_.max_age;
        for (auto it = holders_.begin(); it != holders_.end();) {
            if (it->second.opened <= oldest) out.insert(holders_.extract(it++));
            else ++it;
        }
        return out;
    }

    // End holders' transactions on the server before this returns, so that no replica imports
    // their snapshots afterwards (not under mutex_), then close them.
    void retire(std::map<std::string, holder> holders) {
        if (holders.empty()) return;
        if (!on_pool_thread(pool_->executor())) {
            const auto by = pg::clock::now() + pool_->options().statement_timeout;
            for (auto& [id, h] : holders) (void)wait_on(pool_->executor(), h.conn->execute_script("ROLLBACK", by));
        }
        end(std::move(holders));
    }

    // Close holders (their transactions end with their sessions) on the pool's executor, which
    // drives their sockets.
    void end(std::map<std::string, holder> holders) {
        if (holders.empty()) return;
        auto closing = std::make_shared<std::map<std::string, holder>>(std::move(holders));
        asio::post(pool_->executor(), [closing] { closing->clear(); });
    }

    std::shared_ptr<pg::pool> pool_;
    read_view_options options_;

    std::chrono::steady_clock::time_point now() const {
        return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
    }
    mutable std::mutex mutex_;
    std::map<std::string, holder> holders_;
    std::size_t opening_ = 0;  // views being opened now (counted against the limit)
};

class postgres_database : public sql_database {
public:
    explicit postgres_database(std::shared_ptr<pg::pool> pool, pg::lease* tx = nullptr, int depth = 0)
        : pool_(std::move(pool)), tx_(tx), depth_(depth) {}

    std::shared_ptr<read_views> open_read_views(const read_view_options& options) override {
        return std::make_shared<postgres_read_views>(pool_, options);
    }

    sql_dialect dialect() const noexcept override { return sql_dialect::postgres; }

    boost::system::result<void, db_error> query(std::string_view sql, std::span<const sql_value> params,
                                                const std::function<bool(const sql_row&)>& on_row) override {
        auto r = run(sql, params);
        if (!r) return r.error();
        for (const auto& row : r->rows)
            if (!on_row(row)) break;
        return {};
    }

    boost::system::result<std::int64_t, db_error> execute(std::string_view sql,
                                                          std::span<const sql_value> params) override {
        auto r = run(sql, params);
        if (!r) return r.error();
        return r->affected;
    }

    boost::system::result<void, db_error> transaction(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) override {
        if (tx_) return savepoint(work);
        if (on_pool_thread(pool_->executor())) return db_error{"called on a thread of the pool's executor"};
        const auto deadline = pg::clock::now() + pool_->options().statement_timeout;
        auto l = wait(pool_->acquire(deadline));
        if (!l) return to_db_error(l.error());
        if (auto b = script(*l, "BEGIN"); !b) return b;
        postgres_database inner(pool_, &*l, 1);
        auto r = work(inner);  // an exception unwinds through the lease: the connection, inside
                               // the transaction, is closed, which rolls it back on the server
        if (!r) {
            (void)script(*l, "ROLLBACK");
            return r;
        }
        return script(*l, "COMMIT");
    }

private:
    std::shared_ptr<pg::pool> pool_;
    pg::lease* tx_;  // the transaction's connection, or none
    int depth_;

    template <class T>
    T wait(asio::awaitable<T> a) {
        return wait_on(pool_->executor(), std::move(a));
    }

    boost::system::result<pg::result_set, db_error> run(std::string_view sql, std::span<const sql_value> params) {
        if (on_pool_thread(pool_->executor())) return db_error{"called on a thread of the pool's executor"};
        const std::string text = numbered_placeholders(sql);
        const auto deadline = pg::clock::now() + pool_->options().statement_timeout;
        auto r = tx_ ? wait(tx_->query(text, params, deadline)) : wait(pool_->query(text, params, deadline));
        if (!r) return to_db_error(r.error());
        return std::move(*r);
    }

    boost::system::result<void, db_error> script(pg::lease& l, std::string_view sql) {
        auto r = wait(l.execute_script(sql, pg::clock::now() + pool_->options().statement_timeout));
        if (!r) return to_db_error(r.error());
        return {};
    }

    boost::system::result<void, db_error> savepoint(
        const std::function<boost::system::result<void, db_error>(sql_database&)>& work) {
        const std::string name = "candor_nested_" + std::to_string(depth_);
        if (auto s = script(*tx_, "SAVEPOINT " + name); !s) return s;
        postgres_database inner(pool_, tx_, depth_ + 1);
        auto r = work(inner);
        if (!r) {
            (void)script(*tx_, "ROLLBACK TO SAVEPOINT " + name);
            (void)script(*tx_, "RELEASE SAVEPOINT " + name);
            return r;
        }
        return script(*tx_, "RELEASE SAVEPOINT " + name);
    }
};

}  // namespace

std::shared_ptr<sql_database> open_sql_database(std::shared_ptr<pool> pool) {
    return std::make_shared<postgres_database>(std::move(pool));
}

}  // namespace candor::postgres
