// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/state/open_url.hpp>

#include "migrations.hpp"

#include <candor/postgres/sql_database.hpp>
#include <candor/sqlite/sql_database.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <optional>
#include <thread>

namespace candor::state {

namespace asio = boost::asio;
namespace pg = candor::postgres;
using store::db_error;

std::span<const postgres::migration> migrations() noexcept { return detail::state_migrations; }

bool is_postgres_url(std::string_view url) noexcept {
    return url.starts_with("postgres://") || url.starts_with("postgresql://");
}

std::string redacted_url(std::string_view url) {
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos) return std::string(url);
    const auto rest = scheme + 3;
    const auto at = url.find('@', rest);
    const auto slash = url.find('/', rest);
    if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at)) return std::string(url);
    const auto colon = url.find(':', rest);
    if (colon == std::string_view::npos || colon > at) return std::string(url);
    return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

namespace {

// A pool and the thread that drives its sockets, for the life of the process's stores.
struct pool_runtime {
    explicit pool_runtime(pg::pool_options options) : guard(asio::make_work_guard(io)), thread([this] { io.run(); }) {
        pool.emplace(io.get_executor(), std::move(options));
    }
    ~pool_runtime() {
        pool.reset();  // closes the idle connections
        guard.reset();
        io.stop();
        thread.join();
    }
    pool_runtime(const pool_runtime&) = delete;
    pool_runtime& operator=(const pool_runtime&) = delete;

    asio::io_context io;
    asio::executor_work_guard<asio::io_context::executor_type> guard;
    std::thread thread;
    std::optional<pg::pool> pool;
};

}  // namespace

boost::system::result<opened_database, store::db_error> open_url(const std::string& url,
                                                                 postgres::pool_options options) {
    if (!is_postgres_url(url)) {
        auto db = sqlite::open_sql_database(url);
        if (!db) return db.error();
        opened_database out;
        out.db = std::move(*db);
        out.description = "sqlite:" + url;
        return out;
    }
    options.conninfo = url;
    const auto wait = options.connect_timeout + options.statement_timeout;
    auto runtime = std::make_shared<pool_runtime>(std::move(options));
    // The pool, kept alive by (and with) its runtime.
    std::shared_ptr<pg::pool> pool(runtime, &*runtime->pool);

    // The coroutine borrows the pool: its frame ends on the pool's own thread after the future is
    // set, and an owner there could be the last one (when the migration failed), whose release
    // would join that thread from itself. This function holds the pool until the future is set.
    auto migrate = [borrowed = pool.get(),
                    deadline = pg::clock::now() + wait]() -> asio::awaitable<boost::system::result<int, pg::error>> {
        co_return co_await pg::migrate(*borrowed, "candor_state", migrations(), deadline);
    };
    auto f = asio::co_spawn(runtime->io, migrate, asio::use_future);
    auto migrated = f.get();
    if (!migrated) return pg::to_db_error(migrated.error());
    opened_database out;
    out.db = pg::open_sql_database(pool);
    out.pool = std::move(pool);
    out.description = redacted_url(url);
    return out;
}

}  // namespace candor::state
