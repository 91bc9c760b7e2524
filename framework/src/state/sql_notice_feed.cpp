// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/state/sql_notice_feed.hpp>

#include <boost/asio/post.hpp>

#include <array>
#include <stdexcept>

namespace candor::state {

namespace {

// The key of the advisory lock around the table's creation and every publication on PostgreSQL
// ("candorNF").
constexpr std::int64_t notice_feed_lock = 0x63616E646F724E46;

constexpr std::array<std::string_view, 1> schema_statements = {
    "CREATE TABLE IF NOT EXISTS candor_notices("
    "seq BIGINT PRIMARY KEY, origin TEXT NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL, "
    "detail TEXT NOT NULL, at BIGINT NOT NULL)",
};

std::int64_t ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string_view kind_name(mcp::notice::kind k) {
    switch (k) {
        case mcp::notice::kind::list_changed: return "list_changed";
        case mcp::notice::kind::resource_updated: return "resource_updated";
        case mcp::notice::kind::cancelled: return "cancelled";
    }
    return "list_changed";
}

std::optional<mcp::notice::kind> kind_of(std::string_view name) {
    if (name == "list_changed") return mcp::notice::kind::list_changed;
    if (name == "resource_updated") return mcp::notice::kind::resource_updated;
    if (name == "cancelled") return mcp::notice::kind::cancelled;
    return std::nullopt;  // written by a later version: not for this one
}

boost::system::result<std::int64_t, store::db_error> last_seq(store::sql_database& db) {
    std::int64_t last = 0;
    auto r = db.query("SELECT COALESCE(MAX(seq), 0) FROM candor_notices", {}, [&](const store::sql_row& cols) {
        if (const auto* v = std::get_if<std::int64_t>(&cols.at(0))) last = *v;
        return false;
    });
    if (!r) return r.error();
    return last;
}

}  // namespace

std::span<const std::string_view> sql_notice_feed::schema() noexcept { return schema_statements; }

boost::system::result<std::shared_ptr<sql_notice_feed>, store::db_error> sql_notice_feed::open(
    std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker, notice_feed_options options) {
    if (!db || !worker) throw std::invalid_argument("sql_notice_feed: a database and a worker are required");
    auto r = store::create_schema(*db, notice_feed_lock, schema_statements);
    if (!r) return r.error();
    return std::shared_ptr<sql_notice_feed>(new sql_notice_feed(std::move(db), std::move(worker), options));
}

void sql_notice_feed::publish(std::string origin, mcp::notice n) {
    // The worker runs it when it can; nothing waits for it (at most once: a failure loses it,
    // and so does a queue that is full).
    if (pending_->fetch_add(1) >= options_.max_pending) {
        pending_->fetch_sub(1);
        return;
    }
    boost::asio::post(publishing_, [db = db_, options = options_, origin = std::move(origin), n = std::move(n),
                                    pending = pending_]() {
        pending->fetch_sub(1);
        const auto now = ms(std::chrono::system_clock::now());
        (void)db->transaction([&](store::sql_database& tx) -> boost::system::result<void, store::db_error> {
            // Publications take turns, so numbers are given in commit order.
            if (auto locked = store::lock_for_setup(tx, notice_feed_lock); !locked) return locked.error();
            const store::sql_value old[] = {now - std::chrono::milliseconds(options.retention).count(),
                                            options.max_rows};
            if (auto r = tx.execute("DELETE FROM candor_notices WHERE seq < (SELECT MAX(seq) FROM candor_notices) AND "
                                    "(at < ? OR seq <= (SELECT MAX(seq) FROM candor_notices) + 1 - ?)",
                                    old);
                !r)
                return r.error();
            const store::sql_value row[] = {origin, std::string(kind_name(n.what)), n.subject, n.detail, now};
            if (auto r = tx.execute("INSERT INTO candor_notices(seq, origin, kind, subject, detail, at) "
                                    "SELECT COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM candor_notices",
                                    row);
                !r)
                return r.error();
            return {};
        });
    });
}

boost::asio::awaitable<boost::system::result<mcp::notice_batch, store::db_error>> sql_notice_feed::read(
    std::optional<std::int64_t> after, std::string origin, std::size_t max,
    std::chrono::system_clock::time_point since) {
    using out = boost::system::result<mcp::notice_batch, store::db_error>;
    auto work = [db = db_, after, origin = std::move(origin), max, since_ms = ms(since)]() mutable -> out {
        mcp::notice_batch batch;
        if (!after) {
            // A new reader: from the last notice published before it began.
            const store::sql_value p[] = {since_ms};
            after = 0;
            auto r = db->query("SELECT COALESCE(MAX(seq), 0) FROM candor_notices WHERE at < ?", p,
                               [&](const store::sql_row& cols) {
                                   if (const auto* v = std::get_if<std::int64_t>(&cols.at(0))) after = *v;
                                   return false;
                               });
            if (!r) return r.error();
        }
        batch.last = *after;
        std::size_t rows = 0;
        const store::sql_value p[] = {*after, static_cast<std::int64_t>(max)};
        auto r = db->query(
            "SELECT seq, origin, kind, subject, detail FROM candor_notices WHERE seq > ? ORDER BY seq "
            "LIMIT ?",
            p, [&](const store::sql_row& cols) {
                ++rows;
                const auto* seq = std::get_if<std::int64_t>(&cols.at(0));
                const auto* from = std::get_if<std::string>(&cols.at(1));
                const auto* kind = std::get_if<std::string>(&cols.at(2));
                const auto* subject = std::get_if<std::string>(&cols.at(3));
                const auto* detail = std::get_if<std::string>(&cols.at(4));
                if (seq) batch.last = *seq;
                if (!seq || !from || !kind || !subject || !detail || *from == origin) return true;
                if (auto k = kind_of(*kind)) batch.notices.push_back({*k, *subject, *detail});
                return true;
            });
        if (!r) return r.error();
        if (rows == 0) {
            // Nothing newer. A feed whose numbers went back (the table was emptied) is read from
            // its end again, not waited on until it catches up.
            auto last = last_seq(*db);
            if (!last) return last.error();
            if (*last < *after) batch.last = *last;
        }
        return batch;
    };
    auto r = co_await worker_->run_cancellable(std::move(work));
    co_return r;
}

}  // namespace candor::state
