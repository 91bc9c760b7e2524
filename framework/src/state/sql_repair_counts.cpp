// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/offload/worker.hpp>
#include <candor/state/sql_repair_counts.hpp>

#include <array>

namespace candor::state {

namespace {

using count_result = boost::system::result<std::size_t, store::db_error>;

// The key of the advisory lock around the table's creation on PostgreSQL ("candorRC").
constexpr std::int64_t repair_counts_lock = 0x63616E646F725243;

constexpr std::array<std::string_view, 2> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_repair_counts("
    "repair_key TEXT PRIMARY KEY, failures BIGINT NOT NULL, last_ms BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS candor_repair_counts_last ON candor_repair_counts(last_ms)",
};

std::int64_t epoch_ms(validation::shared_repair_counts::wall_time t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// One statement that returns one count (or none: 0).
count_result one_count(store::sql_database& db, std::string_view sql, std::span<const store::sql_value> params) {
    std::size_t n = 0;
    auto r = db.query(sql, params, [&](const store::sql_row& row) {
        if (const auto* i = std::get_if<std::int64_t>(&row.at(0)); i && *i > 0) n = static_cast<std::size_t>(*i);
        return false;
    });
    if (!r) return r.error();
    return n;
}

// Rows whose last failure is at or before `since_ms` (their window has passed).
boost::system::result<std::int64_t, store::db_error> purge_before(store::sql_database& db, std::int64_t since_ms) {
    const store::sql_value p[] = {since_ms};
    return db.execute("DELETE FROM candor_repair_counts WHERE last_ms <= ?", p);
}

// The work on the worker; a cancelled wait (the call's deadline) propagates.
boost::asio::awaitable<count_result> on_worker(offload::worker& w, std::shared_ptr<store::sql_database> db,
                                               std::string sql, std::vector<store::sql_value> params) {
    auto work = [db = std::move(db), sql = std::move(sql), params = std::move(params)] {
        return one_count(*db, sql, params);
    };
    auto r = co_await w.run_cancellable(std::move(work));
    co_return r;
}

}  // namespace

std::span<const std::string_view> sql_repair_counts::schema() noexcept { return schema_statements; }

boost::system::result<std::shared_ptr<sql_repair_counts>, store::db_error> sql_repair_counts::open(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker) {
    if (!db || !worker) throw std::invalid_argument("sql_repair_counts: a database and a worker are required");
    auto r = store::create_schema(*db, repair_counts_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_repair_counts>(new sql_repair_counts(std::move(db), std::move(worker)));
}

boost::asio::awaitable<count_result> sql_repair_counts::add_failure(std::string key, wall_time now,
                                                                    std::chrono::seconds window) {
    const std::int64_t now_ms = epoch_ms(now);
    const std::int64_t window_ms = std::chrono::duration_cast<std::chrono::milliseconds>(window).count();
    const std::int64_t since_ms = now_ms - window_ms;
    // Now and then (at most once a window per process) the rows whose window passed go too.
    std::int64_t last = last_purge_ms_.load(std::memory_order_relaxed);
    if (now_ms - last >= window_ms && last_purge_ms_.compare_exchange_strong(last, now_ms, std::memory_order_relaxed)) {
        auto purge = [db = db_, since_ms] { return purge_before(*db, since_ms); };
        (void)co_await worker_->run_cancellable(std::move(purge));
    }
    std::string sql =
        "INSERT INTO candor_repair_counts(repair_key, failures, last_ms) VALUES(?, 1, ?) "
        "ON CONFLICT(repair_key) DO UPDATE SET failures = CASE WHEN candor_repair_counts.last_ms <= ? THEN 1 "
        "ELSE candor_repair_counts.failures + 1 END, last_ms = excluded.last_ms RETURNING failures";
    std::vector<store::sql_value> params{std::move(key), now_ms, since_ms};
    auto r = co_await on_worker(*worker_, db_, std::move(sql), std::move(params));
    co_return r;
}

boost::asio::awaitable<count_result> sql_repair_counts::failures(std::string key, wall_time now,
                                                                 std::chrono::seconds window) {
    const std::int64_t since_ms = epoch_ms(now) - std::chrono::duration_cast<std::chrono::milliseconds>(window).count();
    std::string sql = "SELECT failures FROM candor_repair_counts WHERE repair_key = ? AND last_ms > ?";
    std::vector<store::sql_value> params{std::move(key), since_ms};
    auto r = co_await on_worker(*worker_, db_, std::move(sql), std::move(params));
    co_return r;
}

boost::asio::awaitable<count_result> sql_repair_counts::clear(std::string key, wall_time now,
                                                              std::chrono::seconds window) {
    const std::int64_t since_ms = epoch_ms(now) - std::chrono::duration_cast<std::chrono::milliseconds>(window).count();
    // The count it had within the window (a row past its window counted nothing).
    std::string sql =
        "DELETE FROM candor_repair_counts WHERE repair_key = ? RETURNING CASE WHEN last_ms > ? THEN failures ELSE 0 "
        "END";
    std::vector<store::sql_value> params{std::move(key), since_ms};
    auto r = co_await on_worker(*worker_, db_, std::move(sql), std::move(params));
    co_return r;
}

}  // namespace candor::state
