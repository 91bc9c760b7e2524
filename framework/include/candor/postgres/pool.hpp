// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A bounded pool of PostgreSQL connections (connection.hpp), shared by the calls of a server.
///
/// At most `max_connections` connections exist; a call that finds none free waits for one until
/// its deadline (at most `max_waiters` calls wait; past that a call is refused at once, `busy`).
/// A connection that broke, or that comes back inside an open transaction, is closed and not
/// reused; the next call that needs one connects anew. Connecting fails fast when the server is
/// unreachable (`unavailable`), and is bounded by `connect_timeout` and the call's deadline.
///
/// @code
/// postgres::pool db(io.get_executor(), {.conninfo = "postgres://candor@/state?host=/run/postgresql"});
/// auto r = co_await db.query("SELECT id FROM tickets WHERE status = $1", params, deadline);
/// auto t = co_await db.transaction([&](postgres::lease& tx) -> asio::awaitable<result<void, error>> { ... }, deadline);
/// @endcode
///
/// Thread-safe: calls may come from any thread; the pool's lock is held only to take or give
/// back a connection, never across a query.

#include <candor/postgres/connection.hpp>

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>

namespace candor::postgres {

struct pool_options {
    /// A libpq connection string or URI.
    std::string conninfo{};
    /// Connections open at once, at most.
    std::size_t max_connections = 8;
    /// Calls waiting for a free connection, at most; the next is refused (`busy`).
    std::size_t max_waiters = 1024;
    /// A new connection must be ready within this (and within the call's deadline).
    std::chrono::milliseconds connect_timeout{5000};
    /// The deadline of a call that gives none.
    std::chrono::milliseconds statement_timeout{5000};
    /// See `connection_options`.
    std::size_t max_prepared_statements = 256;
    /// See `connection_options`.
    std::chrono::milliseconds cancel_grace{1000};
};

class pool;

/// One connection taken from the pool for a few statements (a transaction); given back when
/// the lease ends.
class lease {
public:
    lease(lease&& other) noexcept;
    lease& operator=(lease&&) = delete;
    ~lease();

    /// Run one statement on the leased connection (see `connection::query`).
    boost::asio::awaitable<boost::system::result<result_set, error>> query(std::string_view sql,
                                                                           std::span<const value> params,
                                                                           clock::time_point deadline) {
        return conn_->query(sql, params, deadline);
    }
    /// Run a script without parameters (see `connection::execute_script`).
    boost::asio::awaitable<boost::system::result<result_set, error>> execute_script(std::string_view sql,
                                                                                    clock::time_point deadline) {
        return conn_->execute_script(sql, deadline);
    }
    connection& get() noexcept { return *conn_; }

private:
    friend class pool;
    lease(pool& owner, std::unique_ptr<connection> conn)
        : owner_(&owner), conn_(std::move(conn)), trips_at_start_(conn_->round_trips()) {}
    pool* owner_;
    std::unique_ptr<connection> conn_;
    std::uint64_t trips_at_start_;
};

class pool {
public:
    /// @param io the executor whose threads drive the connections' sockets
    pool(boost::asio::any_io_executor io, pool_options options);
    /// Closes the idle connections; no lease may outlive the pool.
    ~pool();
    pool(const pool&) = delete;
    pool& operator=(const pool&) = delete;

    /// Take a connection: an idle one, a new one while fewer than `max_connections` exist, else
    /// wait for one until `deadline`.
    /// @return the lease, `unavailable` (cannot connect) or `busy` (none free in time, or too
    ///         many waiting)
    boost::asio::awaitable<boost::system::result<lease, error>> acquire(clock::time_point deadline);

    /// Run one statement on any connection (one round trip once the statement is prepared).
    boost::asio::awaitable<boost::system::result<result_set, error>> query(std::string_view sql,
                                                                           std::span<const value> params,
                                                                           clock::time_point deadline);
    /// As above, with the deadline `statement_timeout` from now.
    boost::asio::awaitable<boost::system::result<result_set, error>> query(std::string_view sql,
                                                                           std::span<const value> params);

    using work_fn = std::function<boost::asio::awaitable<boost::system::result<void, error>>(lease&)>;
    /// Run `work` inside one transaction on one connection: committed when `work` succeeds,
    /// rolled back when it fails, throws or misses `deadline`.
    /// @param isolation e.g. "READ COMMITTED" (the default), "REPEATABLE READ", "SERIALIZABLE"
    boost::asio::awaitable<boost::system::result<void, error>> transaction(
        const work_fn& work, clock::time_point deadline, std::string_view isolation = "READ COMMITTED");

    /// A connection of the pool's settings that the pool neither counts nor hands out: the
    /// caller owns it for as long as it likes (a held read view keeps one per view), and closes
    /// it by destroying it, on the pool's executor, before the pool ends.
    /// @return the connection, or `unavailable`
    boost::asio::awaitable<boost::system::result<std::unique_ptr<connection>, error>> connect_dedicated(
        clock::time_point deadline);

    /// Connections open now (idle and leased).
    std::size_t size() const;
    /// Connections idle now.
    std::size_t idle() const;
    /// Connections closed because they broke (or came back inside a transaction), since start.
    std::uint64_t dropped() const noexcept { return dropped_.load(); }
    /// Statement round trips made by all connections, since start (benchmarks, tests).
    std::uint64_t round_trips() const noexcept { return round_trips_.load(); }

    const pool_options& options() const noexcept { return options_; }
    /// The executor that drives the connections' sockets.
    const boost::asio::any_io_executor& executor() const noexcept { return io_; }

private:
    friend class lease;
    struct waiter;
    void give_back(std::unique_ptr<connection> conn);

    boost::asio::any_io_executor io_;
    pool_options options_;
    // PQconnectStart (host name lookup) and PQcancel block: they run here, never on io_.
    boost::asio::thread_pool blocking_{1};
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<connection>> idle_;
    std::deque<std::shared_ptr<waiter>> waiters_;
    std::size_t open_ = 0;  // idle + leased + connecting
    std::atomic<std::uint64_t> dropped_{0};
    std::atomic<std::uint64_t> round_trips_{0};
};

}  // namespace candor::postgres
