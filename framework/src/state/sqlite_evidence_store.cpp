// SPDX-License-Identifier: BSL-1.0
#include <candor/state/sqlite_evidence_store.hpp>

#include <candor/seal/key_ring.hpp>

#include <candor/sqlite/database.hpp>

#include <chrono>
#include <mutex>
#include <stdexcept>

namespace candor::state {

namespace {

sqlite::statement prepared(sqlite::database& db, std::string_view sql) {
    return db.prepare(sql).value();  // fixed SQL: a failure is a bug (or a broken file)
}

void run(sqlite::statement& s) {
    if (auto r = s.run(); !r) throw std::runtime_error("evidence store: " + r.error().message);
}

class sqlite_store final : public evidence::evidence_store {
public:
    explicit sqlite_store(sqlite::database db)
        : db_(std::move(db)),
          // An open walk's expiry is how long it may still continue; a closed one's is fixed.
          insert_walk_(prepared(db_,
                                "INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?1, 0, ?2) "
                                "ON CONFLICT(walk) DO UPDATE SET expiry_ms = max(expiry_ms, ?2) WHERE closed = 0")),
          insert_id_(prepared(
              db_,
              "INSERT OR IGNORE INTO candor_evidence_id(walk, id) "
              "SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM candor_evidence_walk WHERE walk = ?1 AND closed = 0)")),
          close_(prepared(db_, "UPDATE candor_evidence_walk SET closed = 1, expiry_ms = ?2 WHERE walk = ?1")),
          find_walk_(prepared(db_, "SELECT closed, expiry_ms FROM candor_evidence_walk WHERE walk = ?1")),
          find_id_(prepared(db_, "SELECT 1 FROM candor_evidence_id WHERE walk = ?1 AND id = ?2")),
          purge_ids_(prepared(db_,
                              "DELETE FROM candor_evidence_id WHERE walk IN "
                              "(SELECT walk FROM candor_evidence_walk WHERE expiry_ms <= ?1)")),
          purge_walks_(prepared(db_, "DELETE FROM candor_evidence_walk WHERE expiry_ms <= ?1")) {}

    void record(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until) override {
        std::lock_guard lock(mutex_);
        auto tx = sqlite::transaction::begin(db_).value();
        open_walk(walk, open_until);
        for (const auto& id : ids) {
            sqlite::reset_on_exit g{insert_id_};
            insert_id_.bind(1, walk);
            insert_id_.bind(2, id);
            run(insert_id_);
        }
        tx.commit().value();
    }

    void close(std::string_view walk, seal::wall_time expiry) override {
        std::lock_guard lock(mutex_);
        open_walk(walk, expiry);
        sqlite::reset_on_exit g{close_};
        close_.bind(1, walk);
        close_.bind(2, seal::to_epoch_ms(expiry));
        run(close_);
    }

    std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                      seal::wall_time now) const override {
        std::lock_guard lock(mutex_);
        sqlite::error failure;
        {
            sqlite::reset_on_exit g{find_walk_};
            find_walk_.bind(1, walk);
            if (!find_walk_.step(failure)) return std::nullopt;
            const bool closed = find_walk_.integer(0) != 0;
            const auto expiry = find_walk_.integer(1);
            if (!closed || expiry <= seal::to_epoch_ms(now)) return std::nullopt;
        }
        std::vector<std::string> out;
        for (const auto& id : ids) {
            sqlite::reset_on_exit g{find_id_};
            find_id_.bind(1, walk);
            find_id_.bind(2, id);
            if (!find_id_.step(failure)) out.push_back(id);
        }
        return out;
    }

    void purge(seal::wall_time now) override {
        std::lock_guard lock(mutex_);
        for (auto* s : {&purge_ids_, &purge_walks_}) {
            sqlite::reset_on_exit g{*s};
            s->bind(1, seal::to_epoch_ms(now));
            run(*s);
        }
    }

private:
    // Declared first so that it is destroyed last, after the statements.
    sqlite::database db_;
    mutable std::mutex mutex_;
    sqlite::statement insert_walk_, insert_id_, close_;
    mutable sqlite::statement find_walk_, find_id_;
    sqlite::statement purge_ids_, purge_walks_;

    void open_walk(std::string_view walk, seal::wall_time open_until) {
        sqlite::reset_on_exit g{insert_walk_};
        insert_walk_.bind(1, walk);
        insert_walk_.bind(2, seal::to_epoch_ms(open_until));
        run(insert_walk_);
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

boost::system::result<std::shared_ptr<evidence::evidence_store>, store_error> open_sqlite_store(
    const std::string& path) {
    auto db = sqlite::database::open(path);
    if (!db) return store_error::open_failed;
    const char* schema =
        "CREATE TABLE IF NOT EXISTS candor_evidence_walk("
        "  walk TEXT PRIMARY KEY, closed INTEGER NOT NULL, expiry_ms INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS candor_evidence_id("
        "  walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id)) WITHOUT ROWID;";
    if (!db->exec(schema)) return store_error::schema_failed;
    return std::shared_ptr<evidence::evidence_store>(std::make_shared<sqlite_store>(std::move(*db)));
}

}  // namespace candor::state
