// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// One PostgreSQL connection, driven asynchronously through Asio on libpq's non-blocking API.
///
/// Connecting (`PQconnectStart` on a blocking-work executor, because it may resolve a host name;
/// then `PQconnectPoll` on the I/O thread), sending (`PQsendPrepare`, `PQsendQueryPrepared`,
/// `PQflush`) and reading (`PQconsumeInput`, `PQisBusy`, `PQgetResult`) never block: between
/// steps the coroutine waits on the connection's socket (`posix::stream_descriptor::async_wait`)
/// or on its deadline, whichever comes first. A query that misses its deadline is cancelled on
/// the server (`PQcancel`, which blocks, so it runs on the blocking-work executor; libpq 15 has
/// no non-blocking cancel) and its results are drained, so the connection can serve again; when
/// the server does not confirm the cancel within `cancel_grace`, the connection is marked broken.
///
/// Values travel only as bound parameters (text format); SQL text comes from the caller's own
/// code. Statements are prepared once per connection and reused (at most
/// `max_prepared_statements` per connection; past that, a statement runs unnamed).
///
/// A connection serves one query at a time; `pool` (pool.hpp) hands connections out.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

// libpq's handles, declared so that including this header does not need libpq-fe.h.
struct pg_conn;
struct pg_cancel;

namespace candor::postgres {

using clock = std::chrono::steady_clock;

/// One bound parameter or column value. Columns of types int2/int4/int8/oid/bool arrive as
/// integers, float4/float8 as doubles, everything else (numeric, text, timestamps, JSON) as text.
using value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using row = std::vector<value>;

/// What a statement returned.
struct result_set {
    std::vector<std::string> columns{};
    std::vector<row> rows{};
    /// Rows inserted, updated or deleted (`PQcmdTuples`); 0 for a query.
    std::int64_t affected = 0;
};

/// Why a call failed. Callers answer `unavailable` and `timed_out` with `SOURCE_UNAVAILABLE` (a
/// read-only source) or refuse the write; `rejected` is the statement's own fault (a constraint,
/// a serialization failure: see `sqlstate`).
struct error {
    enum class kind {
        unavailable,  ///< no connection could be made, or it broke
        timed_out,    ///< the deadline passed (the query was cancelled on the server)
        busy,         ///< no connection became free before the deadline (`pool_options::max_connections`)
        rejected,     ///< the server refused the statement
    };
    kind what = kind::unavailable;
    /// The five-character SQLSTATE of a `rejected` statement (e.g. `23505`, `40001`), else empty.
    std::string sqlstate{};
    /// For the server log only: libpq's message (it may name the host, never a parameter value).
    std::string message{};
};

/// The settings of one connection (the pool passes its own).
struct connection_options {
    /// A libpq connection string or URI (`postgres://user@host:5432/db`, `host=/tmp dbname=x`).
    std::string conninfo{};
    /// At most this many statements are prepared on one connection; more run unnamed.
    std::size_t max_prepared_statements = 256;
    /// How long the server has, after a deadline, to confirm a cancel before the connection is
    /// dropped as broken.
    std::chrono::milliseconds cancel_grace{1000};
};

class connection {
public:
    /// Connect, waiting at most until `deadline`.
    /// @param io the executor whose threads wait on the socket
    /// @param blocking an executor for the two libpq calls that may block (`PQconnectStart`'s
    ///        host name lookup, `PQcancel`); never an I/O thread's
    /// @return the connection, or `unavailable` (refused, unreachable, authentication failed,
    ///         or still not ready at `deadline`)
    static boost::asio::awaitable<boost::system::result<std::unique_ptr<connection>, error>> connect(
        boost::asio::any_io_executor io, boost::asio::any_io_executor blocking, connection_options options,
        clock::time_point deadline);

    ~connection();
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    /// Run one statement with `params` bound as `$1`, `$2`, … .
    /// @return its rows and count, or an error; a statement that completed on the server just
    ///         as its deadline passed returns its result (its effect is real)
    boost::asio::awaitable<boost::system::result<result_set, error>> query(std::string_view sql,
                                                                           std::span<const value> params,
                                                                           clock::time_point deadline);

    /// Run a script of one or more statements without parameters (the simple query protocol:
    /// schema migrations, `BEGIN`/`COMMIT`). Never for text built from input.
    /// @return the last statement's result, or the first error
    boost::asio::awaitable<boost::system::result<result_set, error>> execute_script(std::string_view sql,
                                                                                    clock::time_point deadline);

    /// False once the connection broke or a cancel went unconfirmed; such a connection is never
    /// used again.
    bool usable() const noexcept;

    /// `usable`, after reading what the server sent while the connection was idle (without
    /// waiting): a server that restarted closed it, and it is found broken here rather than by
    /// the next statement.
    bool still_open() noexcept;

    /// True when no transaction is open (a connection handed back inside one is not reused).
    bool idle() const noexcept;

    /// Network round trips this connection made for statements (a first use of a statement
    /// costs two: prepare, then execute).
    std::uint64_t round_trips() const noexcept { return round_trips_; }

private:
    connection(boost::asio::any_io_executor io, boost::asio::any_io_executor blocking, connection_options options,
               pg_conn* conn);

    enum class outcome { ready, timed_out, failed };
    boost::asio::awaitable<outcome> wait(bool for_write, clock::time_point deadline);
    boost::asio::awaitable<boost::system::result<void, error>> flush(clock::time_point deadline);
    boost::asio::awaitable<boost::system::result<result_set, error>> collect(clock::time_point deadline);
    boost::asio::awaitable<void> cancel_on_server();
    boost::system::result<void, error> attach_socket();
    error broken(std::string_view what);

    boost::asio::any_io_executor io_;
    boost::asio::any_io_executor blocking_;
    connection_options options_;
    pg_conn* conn_ = nullptr;
    pg_cancel* cancel_ = nullptr;
    boost::asio::posix::stream_descriptor socket_;
    std::unordered_map<std::string, std::string> prepared_;  // SQL text -> statement name
    std::uint64_t round_trips_ = 0;
    bool broken_ = false;
};

/// The code a caller reports for a failure it cannot recover from (`SOURCE_UNAVAILABLE` for
/// `unavailable`, `busy` and `timed_out`; empty for `rejected`, which is the caller's to map).
std::string_view code_of(const error& e) noexcept;

}  // namespace candor::postgres
