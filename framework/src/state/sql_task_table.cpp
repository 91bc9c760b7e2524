// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/json/intake.hpp>
#include <candor/state/sql_task_table.hpp>

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <array>

namespace candor::state {

namespace {

// The key of the advisory lock around the table's creation on PostgreSQL ("candorTK").
constexpr std::int64_t task_table_lock = 0x63616E646F72544B;

constexpr std::array<std::string_view, 3> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_tasks("
    "id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL, version BIGINT NOT NULL, record TEXT NOT NULL, "
    "holder TEXT NOT NULL, lease_until BIGINT NOT NULL, expires BIGINT, mail TEXT NOT NULL DEFAULT '{}', "
    "ended_seen BIGINT NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS candor_tasks_holder ON candor_tasks(holder)",
    "CREATE INDEX IF NOT EXISTS candor_tasks_expires ON candor_tasks(expires)",
};

std::int64_t ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::optional<std::int64_t> expiry_of(const mcp::task_record& r) {
    if (r.expires) return ms(*r.expires);
    return std::nullopt;
}

store::sql_value nullable(std::optional<std::int64_t> v) {
    return v ? store::sql_value(*v) : store::sql_value(nullptr);
}

// A JSON object the table wrote (a record, a mailbox): none if it does not read as one.
std::optional<boost::json::object> object_of(const std::string& text) {
    json::limits lim;
    lim.max_bytes = 64u << 20;
    lim.max_depth = json::depth_ceiling;
    auto doc = json::parse(text, lim);
    if (!doc || !doc->root().is_object()) return std::nullopt;
    return json::detach(doc->root()).as_object();
}

struct row {
    mcp::shared_task task;
    std::int64_t version = 0;
    std::int64_t lease_ms = 0;
    boost::json::object mail;
};

using found_row = boost::system::result<std::optional<row>, store::db_error>;

found_row read_row(store::sql_database& db, const std::string& id, std::int64_t now_ms) {
    std::optional<row> out;
    bool broken = false;
    const store::sql_value p[] = {id, now_ms};
    auto r = db.query(
        "SELECT record, holder, lease_until, version, mail FROM candor_tasks WHERE id = ? AND "
        "(expires IS NULL OR expires > ?)",
        p, [&](const store::sql_row& cols) {
            const auto* record = std::get_if<std::string>(&cols.at(0));
            const auto* holder = std::get_if<std::string>(&cols.at(1));
            const auto* lease = std::get_if<std::int64_t>(&cols.at(2));
            const auto* version = std::get_if<std::int64_t>(&cols.at(3));
            const auto* mail = std::get_if<std::string>(&cols.at(4));
            auto o = record ? object_of(*record) : std::nullopt;
            auto rec = o ? mcp::record_from_json(*o) : std::nullopt;
            auto m = mail ? object_of(*mail) : std::nullopt;
            if (!rec || !holder || !lease || !version || !m) {
                broken = true;
                return false;
            }
            row x;
            x.task.record = std::move(*rec);
            x.task.holder = *holder;
            x.task.lease_until = std::chrono::system_clock::time_point(std::chrono::milliseconds(*lease));
            x.version = *version;
            x.lease_ms = *lease;
            x.mail = std::move(*m);
            out = std::move(x);
            return false;
        });
    if (!r) return r.error();
    if (broken) return store::db_error{"candor_tasks holds a row this version cannot read (task " + id + ")"};
    return out;
}

// Write `r` as its holder sees it: a new row, or a newer version of a row that is not terminal.
// @return whether it was written
boost::system::result<bool, store::db_error> upsert(store::sql_database& db, const mcp::task_record& r,
                                                    std::uint64_t version, const std::string& holder,
                                                    std::chrono::system_clock::time_point lease_until) {
    const store::sql_value p[] = {r.id,
                                  r.owner,
                                  std::string(mcp::to_string(r.status)),
                                  static_cast<std::int64_t>(version),
                                  boost::json::serialize(mcp::record_to_json(r)),
                                  holder,
                                  ms(lease_until),
                                  nullable(expiry_of(r))};
    auto done = db.execute(
        "INSERT INTO candor_tasks(id, owner, status, version, record, holder, lease_until, expires) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, "
        "version = excluded.version, record = excluded.record, lease_until = excluded.lease_until, "
        "expires = excluded.expires WHERE candor_tasks.version < excluded.version AND candor_tasks.status IN "
        "('working', 'input_required')",
        p);
    if (!done) return done.error();
    return *done == 1;
}

}  // namespace

std::span<const std::string_view> sql_task_table::schema() noexcept { return schema_statements; }

boost::system::result<std::shared_ptr<sql_task_table>, store::db_error> sql_task_table::open(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker) {
    if (!db || !worker) throw std::invalid_argument("sql_task_table: a database and a worker are required");
    auto r = store::create_schema(*db, task_table_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_task_table>(new sql_task_table(std::move(db), std::move(worker)));
}

void sql_task_table::publish(mcp::task_record r, std::uint64_t version, std::string holder, time_point lease_until) {
    // The worker runs it when it can; nothing waits for it. A failure shows as a lease that is
    // not renewed either (the renewal's failure is logged).
    boost::asio::post(worker_->executor(), [db = db_, r = std::move(r), version, holder = std::move(holder),
                                            lease_until]() { (void)upsert(*db, r, version, holder, lease_until); });
}

boost::asio::awaitable<boost::system::result<bool, store::db_error>> sql_task_table::publish_now(
    mcp::task_record r, std::uint64_t version, std::string holder, time_point lease_until) {
    auto work = [db = db_, r = std::move(r), version, holder = std::move(holder), lease_until]() {
        return upsert(*db, r, version, holder, lease_until);
    };
    auto done = co_await worker_->run_cancellable(std::move(work));
    co_return done;
}

boost::asio::awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> sql_task_table::find(
    std::string id, time_point now) {
    auto work = [db = db_, id = std::move(id), now_ms = ms(now)]() { return read_row(*db, id, now_ms); };
    auto r = co_await worker_->run_cancellable(std::move(work));
    if (!r) co_return r.error();
    if (!*r) co_return std::optional<mcp::shared_task>();
    co_return std::optional<mcp::shared_task>(std::move((*r)->task));
}

boost::asio::awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> sql_task_table::modify(
    std::string id, time_point now, std::function<bool(mcp::shared_task&)> change, boost::json::object answers) {
    using out = boost::system::result<std::optional<mcp::shared_task>, store::db_error>;
    auto work = [db = db_, id = std::move(id), now_ms = ms(now), change = std::move(change),
                 answers = std::move(answers)]() -> out {
        // Compare and set on the row's version (and lease): a change made meanwhile by another
        // replica, or a renewal, makes this one read the row again.
        for (int attempt = 0; attempt < 16; ++attempt) {
            auto found = read_row(*db, id, now_ms);
            if (!found) return found.error();
            if (!*found) return std::optional<mcp::shared_task>();
            auto& x = **found;
            if (!change(x.task)) return std::optional<mcp::shared_task>(std::move(x.task));
            for (const auto& [key, value] : answers) x.mail[key] = value;
            const store::sql_value p[] = {std::string(mcp::to_string(x.task.record.status)),
                                          boost::json::serialize(mcp::record_to_json(x.task.record)),
                                          nullable(expiry_of(x.task.record)),
                                          boost::json::serialize(x.mail),
                                          id,
                                          x.version,
                                          x.lease_ms};
            auto written = db->execute(
                "UPDATE candor_tasks SET status = ?, record = ?, version = version + 1, expires = ?, mail = ? "
                "WHERE id = ? AND version = ? AND lease_until = ?",
                p);
            if (!written) return written.error();
            if (*written == 1) return std::optional<mcp::shared_task>(std::move(x.task));
        }
        return store::db_error{"candor_tasks: task " + id + " kept changing; try again"};
    };
    auto r = co_await worker_->run_cancellable(std::move(work));
    co_return r;
}

boost::asio::awaitable<boost::system::result<std::vector<mcp::task_mail>, store::db_error>> sql_task_table::renew(
    std::string holder, time_point lease_until, time_point now) {
    using out = boost::system::result<std::vector<mcp::task_mail>, store::db_error>;
    auto work = [db = db_, holder = std::move(holder), lease_ms = ms(lease_until), now_ms = ms(now)]() -> out {
        const store::sql_value renew[] = {lease_ms, holder};
        if (auto r = db->execute(
                "UPDATE candor_tasks SET lease_until = ? WHERE holder = ? AND status IN ('working', 'input_required')",
                renew);
            !r)
            return r.error();
        const store::sql_value purge[] = {now_ms};
        if (auto r = db->execute("DELETE FROM candor_tasks WHERE expires IS NOT NULL AND expires <= ?", purge); !r)
            return r.error();
        struct waiting {
            std::string id;
            std::string status;
            std::string mail;
            std::int64_t version = 0;
        };
        std::vector<waiting> found;
        const store::sql_value mine[] = {holder};
        auto q = db->query(
            "SELECT id, status, mail, version FROM candor_tasks WHERE holder = ? AND (mail <> '{}' OR "
            "(status NOT IN ('working', 'input_required') AND ended_seen = 0))",
            mine, [&](const store::sql_row& cols) {
                const auto* id = std::get_if<std::string>(&cols.at(0));
                const auto* status = std::get_if<std::string>(&cols.at(1));
                const auto* mail = std::get_if<std::string>(&cols.at(2));
                const auto* version = std::get_if<std::int64_t>(&cols.at(3));
                if (id && status && mail && version) found.push_back({*id, *status, *mail, *version});
                return true;
            });
        if (!q) return q.error();
        std::vector<mcp::task_mail> mail;
        for (auto& w : found) {
            // Taken once: cleared only if the row is still what was read.
            const store::sql_value p[] = {w.id, w.version};
            auto taken = db->execute(
                "UPDATE candor_tasks SET mail = '{}', ended_seen = CASE WHEN status IN ('working', 'input_required') "
                "THEN 0 ELSE 1 END WHERE id = ? AND version = ?",
                p);
            if (!taken) return taken.error();
            if (*taken != 1) continue;  // changed meanwhile: read again next time
            mcp::task_mail m;
            m.id = std::move(w.id);
            m.status = mcp::task_status_from(w.status).value_or(mcp::task_status::working);
            if (auto o = object_of(w.mail)) m.answers = std::move(*o);
            mail.push_back(std::move(m));
        }
        return mail;
    };
    auto r = co_await worker_->run_cancellable(std::move(work));
    co_return r;
}

boost::asio::awaitable<boost::system::result<mcp::live_tasks, store::db_error>> sql_task_table::count_live(
    std::string owner, time_point now) {
    using out = boost::system::result<mcp::live_tasks, store::db_error>;
    auto work = [db = db_, owner = std::move(owner), now_ms = ms(now)]() -> out {
        mcp::live_tasks live;
        const store::sql_value p[] = {owner, now_ms};
        auto r = db->query(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN owner = ? THEN 1 ELSE 0 END), 0) FROM candor_tasks WHERE "
            "status IN ('working', 'input_required') AND lease_until > ?",
            p, [&](const store::sql_row& cols) {
                const auto* total = std::get_if<std::int64_t>(&cols.at(0));
                const auto* mine = std::get_if<std::int64_t>(&cols.at(1));
                if (total) live.total = static_cast<std::size_t>(*total);
                if (mine) live.of_owner = static_cast<std::size_t>(*mine);
                return false;
            });
        if (!r) return r.error();
        return live;
    };
    auto r = co_await worker_->run_cancellable(std::move(work));
    co_return r;
}

}  // namespace candor::state
