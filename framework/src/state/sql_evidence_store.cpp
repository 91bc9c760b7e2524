// SPDX-License-Identifier: BSL-1.0
#include <candor/offload/worker.hpp>
#include <candor/state/sql_evidence_store.hpp>

#include <array>
#include <unordered_set>

namespace candor::state {

namespace {

// The key of the advisory lock around the tables' creation on PostgreSQL ("candorEV").
constexpr std::int64_t evidence_lock = 0x63616E646F724556;

constexpr std::array<std::string_view, 3> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_evidence_walk("
    "walk TEXT PRIMARY KEY, closed BIGINT NOT NULL, expiry_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS candor_evidence_id(walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id))",
    "CREATE INDEX IF NOT EXISTS candor_evidence_walk_expiry ON candor_evidence_walk(expiry_ms)",
};

using db_result = boost::system::result<void, store::db_error>;

void check(const db_result& r) {
    if (!r) throw evidence::store_failure("evidence store: " + r.error().message);
}
void check(const boost::system::result<std::int64_t, store::db_error>& r) {
    if (!r) throw evidence::store_failure("evidence store: " + r.error().message);
}

// "(CAST(? AS TEXT)), (?), …": the first row names the column's type for PostgreSQL, which
// otherwise cannot infer the type of a parameter in a VALUES list.
std::string value_rows(std::size_t n) {
    std::string out = "(CAST(? AS TEXT))";
    for (std::size_t i = 1; i < n; ++i) out += ", (?)";
    return out;
}

class sql_store final : public evidence::evidence_store {
public:
    sql_store(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker)
        : db_(std::move(db)), worker_(std::move(worker)) {}

    void record(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until) override {
        check(record_on(*db_, walk, ids, open_until));
    }

    void record_page(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until,
                     std::optional<seal::wall_time> closing) override {
        if (db_->dialect() != store::sql_dialect::postgres) {
            // In-process: one transaction (one commit) rather than one round trip.
            check(db_->transaction([&](store::sql_database& tx) -> db_result {
                if (auto r = record_on(tx, walk, ids, open_until); !r || !closing) return r;
                return close_on(tx, walk, *closing);
            }));
            return;
        }
        // One statement: the walk's row (opened, its time pushed out, or closed) in a
        // data-modifying WITH, and the ids unless the walk was closed before this statement.
        const std::int64_t closed = closing ? 1 : 0;
        const std::int64_t until_ms = seal::to_epoch_ms(closing ? *closing : open_until);
        std::vector<store::sql_value> params{std::string(walk), closed, until_ms};
        std::string sql =
            "WITH candor_walk AS (INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?, ?, ?) "
            "ON CONFLICT(walk) DO UPDATE SET closed = excluded.closed, expiry_ms = excluded.expiry_ms "
            "WHERE excluded.closed = 1 OR (candor_evidence_walk.closed = 0 AND candor_evidence_walk.expiry_ms < "
            "excluded.expiry_ms)) ";
        if (ids.empty()) {
            sql += "SELECT 1";
        } else {
            sql += "INSERT INTO candor_evidence_id(walk, id) SELECT CAST(? AS TEXT), v.column1 FROM (VALUES " +
                   value_rows(ids.size()) +
                   ") AS v WHERE NOT EXISTS (SELECT 1 FROM candor_evidence_walk WHERE walk = ? AND closed = 1) "
                   "ON CONFLICT DO NOTHING";
            params.reserve(params.size() + ids.size() + 2);
            params.emplace_back(std::string(walk));
            for (const auto& id : ids) params.emplace_back(id);
            params.emplace_back(std::string(walk));
        }
        check(db_->execute(sql, params));
    }

    void close(std::string_view walk, seal::wall_time expiry) override { check(close_on(*db_, walk, expiry)); }

    std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                      seal::wall_time now) const override {
        bool live = false;
        const store::sql_value w[] = {std::string(walk), seal::to_epoch_ms(now)};
        check(db_->query("SELECT 1 FROM candor_evidence_walk WHERE walk = ? AND closed = 1 AND expiry_ms > ?", w,
                         [&](const store::sql_row&) {
                             live = true;
                             return false;
                         }));
        if (!live) return std::nullopt;
        std::vector<std::string> out;
        if (ids.empty()) return out;
        std::vector<store::sql_value> params{std::string(walk)};
        std::string marks;
        for (const auto& id : ids) {
            marks += marks.empty() ? "?" : ", ?";
            params.emplace_back(id);
        }
        std::unordered_set<std::string> found;
        check(db_->query("SELECT id FROM candor_evidence_id WHERE walk = ? AND id IN (" + marks + ")", params,
                         [&](const store::sql_row& row) {
                             if (const auto* s = std::get_if<std::string>(&row.at(0))) found.insert(*s);
                             return true;
                         }));
        for (const auto& id : ids)
            if (!found.contains(id)) out.push_back(id);
        return out;
    }

    void purge(seal::wall_time now) override {
        const store::sql_value p[] = {seal::to_epoch_ms(now)};
        check(
            db_->execute("DELETE FROM candor_evidence_id WHERE walk IN "
                         "(SELECT walk FROM candor_evidence_walk WHERE expiry_ms <= ?)",
                         p));
        check(db_->execute("DELETE FROM candor_evidence_walk WHERE expiry_ms <= ?", p));
    }

    std::shared_ptr<offload::worker> worker() const override { return worker_; }

private:
    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<offload::worker> worker_;

    static db_result record_on(store::sql_database& db, std::string_view walk, std::span<const std::string> ids,
                               seal::wall_time open_until) {
        // Create the walk, or push an open walk's time further out; a closed walk keeps its own.
        const store::sql_value w[] = {std::string(walk), seal::to_epoch_ms(open_until)};
        auto opened = db.execute(
            "INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?, 0, ?) "
            "ON CONFLICT(walk) DO UPDATE SET expiry_ms = excluded.expiry_ms "
            "WHERE candor_evidence_walk.closed = 0 AND candor_evidence_walk.expiry_ms < excluded.expiry_ms",
            w);
        if (!opened) return opened.error();
        if (ids.empty()) return {};
        // Only into an open walk: a closed walk's set is what its token vouches for.
        std::vector<store::sql_value> params;
        params.reserve(ids.size() + 1);
        for (const auto& id : ids) params.emplace_back(id);
        params.emplace_back(std::string(walk));
        auto added = db.execute("INSERT INTO candor_evidence_id(walk, id) SELECT w.walk, v.column1 FROM (VALUES " +
                                    value_rows(ids.size()) +
                                    ") AS v, candor_evidence_walk w WHERE w.walk = ? AND w.closed = 0 "
                                    "ON CONFLICT DO NOTHING",
                                params);
        if (!added) return added.error();
        return {};
    }

    static db_result close_on(store::sql_database& db, std::string_view walk, seal::wall_time expiry) {
        const store::sql_value p[] = {std::string(walk), seal::to_epoch_ms(expiry)};
        auto closed = db.execute(
            "INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?, 1, ?) "
            "ON CONFLICT(walk) DO UPDATE SET closed = 1, expiry_ms = excluded.expiry_ms",
            p);
        if (!closed) return closed.error();
        return {};
    }
};

}  // namespace

std::span<const std::string_view> sql_store_schema() noexcept { return schema_statements; }

boost::system::result<std::shared_ptr<evidence::evidence_store>, store::db_error> open_sql_store(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker) {
    if (!db || !worker) throw std::invalid_argument("open_sql_store: a database and a worker are required");
    auto r = store::create_schema(*db, evidence_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<evidence::evidence_store>(std::make_shared<sql_store>(std::move(db), std::move(worker)));
}

}  // namespace candor::state
