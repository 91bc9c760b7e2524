// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/offload/worker.hpp>
#include <candor/state/sql_plan_ledger.hpp>

#include <array>

namespace candor::state {

namespace {

// The key of the advisory lock around the ledger's table creation on PostgreSQL (any fixed
// 64-bit number; this one spells "candorPL").
constexpr std::int64_t plan_ledger_lock = 0x63616E646F72504C;

constexpr std::array<std::string_view, 2> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_plan_use (nonce TEXT PRIMARY KEY, expiry BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS candor_plan_use_expiry ON candor_plan_use (expiry)",
};

std::int64_t unix_seconds(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

std::span<const std::string_view> sql_plan_ledger::schema() noexcept { return schema_statements; }

sql_plan_ledger::sql_plan_ledger(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker,
                                 sql_plan_ledger_options opts)
    : db_(std::move(db)), worker_(std::move(worker)), opts_(opts) {}

boost::system::result<std::shared_ptr<sql_plan_ledger>, store::db_error> sql_plan_ledger::open(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker, sql_plan_ledger_options opts) {
    auto r = store::create_schema(*db, plan_ledger_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_plan_ledger>(new sql_plan_ledger(std::move(db), std::move(worker), opts));
}

boost::system::result<validation::plan_verdict, store::db_error> sql_plan_ledger::record(
    store::sql_database& tx, const validation::plan_use& use, std::chrono::system_clock::time_point now) const {
    const store::sql_value at[] = {unix_seconds(now)};
    if (auto r = tx.execute("DELETE FROM candor_plan_use WHERE expiry <= ?", at); !r) return r.error();
    std::int64_t live = 0;
    auto counted = tx.query("SELECT count(*) FROM candor_plan_use", {}, [&](const store::sql_row& row) {
        if (const auto* n = std::get_if<std::int64_t>(&row.at(0))) live = *n;
        return false;
    });
    if (!counted) return counted.error();
    const store::sql_value entry[] = {use.nonce, unix_seconds(use.expiry)};
    // A used nonce changes nothing: `used`, even when the ledger is full.
    auto inserted =
        tx.execute("INSERT INTO candor_plan_use (nonce, expiry) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING", entry);
    if (!inserted) return inserted.error();
    if (*inserted == 0) return validation::plan_verdict::used;
    if (static_cast<std::uint64_t>(live) >= opts_.max_entries) {
        // Over the bound: take the row back; the caller's transaction goes on without it.
        const store::sql_value nonce[] = {use.nonce};
        if (auto d = tx.execute("DELETE FROM candor_plan_use WHERE nonce = ?", nonce); !d) return d.error();
        return validation::plan_verdict::full;
    }
    return validation::plan_verdict::fresh;
}

boost::asio::awaitable<boost::system::result<validation::plan_verdict, store::db_error>> sql_plan_ledger::consume(
    const validation::plan_use& use, std::chrono::system_clock::time_point now) {
    co_return co_await consume_with(
        use, now, [](store::sql_database&) -> boost::system::result<void, store::db_error> { return {}; });
}

boost::asio::awaitable<boost::system::result<validation::plan_verdict, store::db_error>> sql_plan_ledger::consume_with(
    const validation::plan_use& use, std::chrono::system_clock::time_point now, validation::ledger_work work) {
    co_return co_await worker_->run([&]() -> boost::system::result<validation::plan_verdict, store::db_error> {
        validation::plan_verdict verdict = validation::plan_verdict::fresh;
        auto r = db_->transaction([&](store::sql_database& tx) -> boost::system::result<void, store::db_error> {
            auto v = record(tx, use, now);
            if (!v) return v.error();
            verdict = *v;
            if (verdict != validation::plan_verdict::fresh) return {};  // nothing was written
            return work(tx);
        });
        if (!r) return r.error();
        return verdict;
    });
}

boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> sql_plan_ledger::size() {
    co_return co_await worker_->run([&]() -> boost::system::result<std::size_t, store::db_error> {
        std::size_t n = 0;
        auto r = db_->query("SELECT count(*) FROM candor_plan_use", {}, [&](const store::sql_row& row) {
            if (const auto* c = std::get_if<std::int64_t>(&row.at(0))) n = static_cast<std::size_t>(*c);
            return false;
        });
        if (!r) return r.error();
        return n;
    });
}

}  // namespace candor::state
