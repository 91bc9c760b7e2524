#include <candor/evidence/store.hpp>

#include <sqlite3.h>

#include <chrono>
#include <mutex>
#include <stdexcept>

namespace candor::evidence {

namespace {

// One prepared statement, reset on scope exit so it can be reused.
class statement {
public:
    statement(sqlite3* db, const char* sql) {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
            throw std::runtime_error(std::string("evidence store: ") + sqlite3_errmsg(db));
    }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;
    sqlite3_stmt* get() const noexcept { return stmt_; }

private:
    sqlite3_stmt* stmt_ = nullptr;
};

struct reset_guard {
    sqlite3_stmt* s;
    ~reset_guard() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
};

void bind_text(sqlite3_stmt* s, int i, std::string_view v) {
    sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

class sqlite_store final : public evidence_store {
public:
    explicit sqlite_store(sqlite3* db)
        : closer_{db},
          db_(db),
          insert_walk_(db, "INSERT OR IGNORE INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?1, 0, 0)"),
          insert_id_(db, "INSERT OR IGNORE INTO candor_evidence_id(walk, id) "
                         "SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM candor_evidence_walk WHERE walk = ?1 AND closed = 0)"),
          close_(db, "UPDATE candor_evidence_walk SET closed = 1, expiry_ms = ?2 WHERE walk = ?1"),
          find_walk_(db, "SELECT closed, expiry_ms FROM candor_evidence_walk WHERE walk = ?1"),
          find_id_(db, "SELECT 1 FROM candor_evidence_id WHERE walk = ?1 AND id = ?2"),
          purge_ids_(db, "DELETE FROM candor_evidence_id WHERE walk IN "
                         "(SELECT walk FROM candor_evidence_walk WHERE closed = 1 AND expiry_ms <= ?1)"),
          purge_walks_(db, "DELETE FROM candor_evidence_walk WHERE closed = 1 AND expiry_ms <= ?1") {}

    ~sqlite_store() override = default;

    void record(std::string_view walk, std::span<const std::string> ids) override {
        std::lock_guard lock(mutex_);
        exec("BEGIN");
        {
            reset_guard g{insert_walk_.get()};
            bind_text(insert_walk_.get(), 1, walk);
            step_done(insert_walk_.get());
        }
        for (const auto& id : ids) {
            reset_guard g{insert_id_.get()};
            bind_text(insert_id_.get(), 1, walk);
            bind_text(insert_id_.get(), 2, id);
            step_done(insert_id_.get());
        }
        exec("COMMIT");
    }

    void close(std::string_view walk, wall_time expiry) override {
        std::lock_guard lock(mutex_);
        {
            reset_guard g{insert_walk_.get()};
            bind_text(insert_walk_.get(), 1, walk);
            step_done(insert_walk_.get());
        }
        reset_guard g{close_.get()};
        bind_text(close_.get(), 1, walk);
        sqlite3_bind_int64(close_.get(), 2, to_epoch_ms(expiry));
        step_done(close_.get());
    }

    std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                      wall_time now) const override {
        std::lock_guard lock(mutex_);
        {
            reset_guard g{find_walk_.get()};
            bind_text(find_walk_.get(), 1, walk);
            if (sqlite3_step(find_walk_.get()) != SQLITE_ROW) return std::nullopt;
            const bool closed = sqlite3_column_int(find_walk_.get(), 0) != 0;
            const auto expiry = sqlite3_column_int64(find_walk_.get(), 1);
            if (!closed || expiry <= to_epoch_ms(now)) return std::nullopt;
        }
        std::vector<std::string> out;
        for (const auto& id : ids) {
            reset_guard g{find_id_.get()};
            bind_text(find_id_.get(), 1, walk);
            bind_text(find_id_.get(), 2, id);
            if (sqlite3_step(find_id_.get()) != SQLITE_ROW) out.push_back(id);
        }
        return out;
    }

    void purge(wall_time now) override {
        std::lock_guard lock(mutex_);
        for (auto* s : {purge_ids_.get(), purge_walks_.get()}) {
            reset_guard g{s};
            sqlite3_bind_int64(s, 1, to_epoch_ms(now));
            step_done(s);
        }
    }

    struct db_closer {
        sqlite3* db;
        ~db_closer() { sqlite3_close(db); }
    };

private:
    // Declared first so that it is destroyed last, after the statements.
    db_closer closer_;
    sqlite3* db_;
    mutable std::mutex mutex_;
    statement insert_walk_, insert_id_, close_, find_walk_, find_id_, purge_ids_, purge_walks_;

    void exec(const char* sql) {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "?";
            sqlite3_free(err);
            throw std::runtime_error("evidence store: " + msg);
        }
    }
    void step_done(sqlite3_stmt* s) const {
        if (sqlite3_step(s) != SQLITE_DONE) throw std::runtime_error(std::string("evidence store: ") + sqlite3_errmsg(db_));
    }
};

}  // namespace

std::string_view to_string(store_error e) noexcept {
    switch (e) {
    case store_error::open_failed: return "the evidence database could not be opened";
    case store_error::schema_failed: return "the evidence tables could not be created";
    }
    return "unknown store error";
}

void throw_exception_from_error(store_error e, const boost::source_location&) {
    throw std::runtime_error(std::string(to_string(e)));
}

boost::system::result<std::shared_ptr<evidence_store>, store_error> open_sqlite_store(const std::string& path) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return store_error::open_failed;
    }
    const char* schema =
        "CREATE TABLE IF NOT EXISTS candor_evidence_walk("
        "  walk TEXT PRIMARY KEY, closed INTEGER NOT NULL, expiry_ms INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS candor_evidence_id("
        "  walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id)) WITHOUT ROWID;";
    if (sqlite3_exec(db, schema, nullptr, nullptr, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return store_error::schema_failed;
    }
    return std::shared_ptr<evidence_store>(std::make_shared<sqlite_store>(db));
}

}  // namespace candor::evidence
