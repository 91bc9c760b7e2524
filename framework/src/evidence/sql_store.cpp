// SPDX-License-Identifier: BSL-1.0
#include <candor/evidence/sql_store.hpp>

#include <array>
#include <unordered_set>

namespace candor::evidence {

namespace {

// The key of the advisory lock around the tables' creation on PostgreSQL ("candorEV").
constexpr std::int64_t evidence_lock = 0x63616E646F724556;

constexpr std::array<std::string_view, 3> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_evidence_walk("
    "walk TEXT PRIMARY KEY, closed BIGINT NOT NULL, expiry_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS candor_evidence_id(walk TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(walk, id))",
    "CREATE INDEX IF NOT EXISTS candor_evidence_walk_expiry ON candor_evidence_walk(expiry_ms)",
};

void check(const boost::system::result<void, store::db_error>& r) {
    if (!r) throw store_failure("evidence store: " + r.error().message);
}
void check(const boost::system::result<std::int64_t, store::db_error>& r) {
    if (!r) throw store_failure("evidence store: " + r.error().message);
}

// "(CAST(? AS TEXT)), (?), …": the first row names the column's type for PostgreSQL, which
// otherwise cannot infer the type of a parameter in a VALUES list.
std::string value_rows(std::size_t n) {
    std::string out = "(CAST(? AS TEXT))";
    for (std::size_t i = 1; i < n; ++i) out += ", (?)";
    return out;
}

class sql_store final : public evidence_store {
public:
    sql_store(std::shared_ptr<store::sql_database> db, std::shared_ptr<store::worker> worker)
        : db_(std::move(db)), worker_(std::move(worker)) {}

    void record(std::string_view walk, std::span<const std::string> ids, wall_time open_until) override {
        open_walk(walk, to_epoch_ms(open_until));
        if (ids.empty()) return;
        // Only into an open walk: a closed walk's set is what its token vouches for.
        std::vector<store::sql_value> params;
        params.reserve(ids.size() + 1);
        for (const auto& id : ids) params.emplace_back(id);
        params.emplace_back(std::string(walk));
        check(db_->execute("INSERT INTO candor_evidence_id(walk, id) SELECT w.walk, v.column1 FROM (VALUES " +
                               value_rows(ids.size()) +
                               ") AS v, candor_evidence_walk w WHERE w.walk = ? AND w.closed = 0 "
                               "ON CONFLICT DO NOTHING",
                           params));
    }

    void close(std::string_view walk, wall_time expiry) override {
        const store::sql_value p[] = {std::string(walk), to_epoch_ms(expiry)};
        check(
            db_->execute("INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?, 1, ?) "
                         "ON CONFLICT(walk) DO UPDATE SET closed = 1, expiry_ms = excluded.expiry_ms",
                         p));
    }

    std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                      wall_time now) const override {
        bool live = false;
        const store::sql_value w[] = {std::string(walk), to_epoch_ms(now)};
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

    void purge(wall_time now) override {
        const store::sql_value p[] = {to_epoch_ms(now)};
        check(
            db_->execute("DELETE FROM candor_evidence_id WHERE walk IN "
                         "(SELECT walk FROM candor_evidence_walk WHERE expiry_ms <= ?)",
                         p));
        check(db_->execute("DELETE FROM candor_evidence_walk WHERE expiry_ms <= ?", p));
    }

    std::shared_ptr<store::worker> worker() const override { return worker_; }

private:
    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<store::worker> worker_;

    // Create the walk, or push an open walk's time further out; a closed walk keeps its own.
    void open_walk(std::string_view walk, std::int64_t until_ms) {
        const store::sql_value p[] = {std::string(walk), until_ms};
        check(
            db_->execute("INSERT INTO candor_evidence_walk(walk, closed, expiry_ms) VALUES(?, 0, ?) "
                         "ON CONFLICT(walk) DO UPDATE SET expiry_ms = excluded.expiry_ms "
                         "WHERE candor_evidence_walk.closed = 0 AND candor_evidence_walk.expiry_ms < "
                         "excluded.expiry_ms",
                         p));
    }
};

}  // namespace

std::span<const std::string_view> sql_store_schema() noexcept { return schema_statements; }

boost::system::result<std::shared_ptr<evidence_store>, store::db_error> open_sql_store(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<store::worker> worker) {
    if (!db || !worker) throw std::invalid_argument("open_sql_store: a database and a worker are required");
    auto r = store::create_schema(*db, evidence_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<evidence_store>(std::make_shared<sql_store>(std::move(db), std::move(worker)));
}

}  // namespace candor::evidence
