// SPDX-License-Identifier: BSL-1.0
#include <candor/postgres/connection.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <libpq-fe.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace candor::postgres {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

std::string_view code_of(const error& e) noexcept {
    return e.what == error::kind::rejected ? std::string_view{} : std::string_view{"SOURCE_UNAVAILABLE"};
}

namespace {

// Run a blocking libpq call on the blocking-work executor; the awaiting coroutine resumes on
// its own executor.
template <class F>
asio::awaitable<std::invoke_result_t<F&>> off_thread(asio::any_io_executor blocking, F fn) {
    using R = std::invoke_result_t<F&>;
    auto out = co_await asio::co_spawn(
        blocking, [&fn]() -> asio::awaitable<std::optional<R>> { co_return std::optional<R>(fn()); },
        asio::use_awaitable);
    co_return std::move(*out);
}

std::string message_of(const pg_conn* c) {
    std::string m = c ? PQerrorMessage(c) : "out of memory";
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return m;
}

// OIDs of the built-in types read as numbers (catalog/pg_type.h, stable across versions).
constexpr unsigned oid_bool = 16, oid_int8 = 20, oid_int2 = 21, oid_int4 = 23, oid_oid = 26, oid_float4 = 700,
                   oid_float8 = 701;

value column_value(const PGresult* r, int row_index, int col, unsigned type) {
    if (PQgetisnull(r, row_index, col)) return nullptr;
    const char* text = PQgetvalue(r, row_index, col);
    const auto length = static_cast<std::size_t>(PQgetlength(r, row_index, col));
    switch (type) {
        case oid_bool: return std::int64_t{text[0] == 't' ? 1 : 0};
        case oid_int2:
        case oid_int4:
        case oid_int8:
        case oid_oid: {
            std::int64_t v = 0;
            std::from_chars(text, text + length, v);
            return v;
        }
        case oid_float4:
        case oid_float8: return std::strtod(text, nullptr);  // also "NaN", "Infinity"
        default: return std::string(text, length);
    }
}

// SQLSTATE classes that mean the connection, not the statement, failed: 08 (connection
// exception), 57P01..57P03 (server shutting down, crash, cannot connect now).
bool connection_failure(std::string_view state) {
    return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03";
}

}  // namespace

connection::connection(asio::any_io_executor io, asio::any_io_executor blocking, connection_options options,
                       pg_conn* conn)
    : io_(std::move(io)), blocking_(std::move(blocking)), options_(std::move(options)), conn_(conn), socket_(io_) {}

connection::~connection() {
    // The descriptor belongs to libpq: release it before PQfinish closes it.
    if (socket_.is_open()) (void)socket_.release();
    if (cancel_) PQfreeCancel(cancel_);
    if (conn_) PQfinish(conn_);
}

bool connection::usable() const noexcept { return !broken_ && conn_ && PQstatus(conn_) == CONNECTION_OK; }

bool connection::still_open() noexcept {
    // Twice: a server that shut down sent a last message before it closed, and the first read
    // takes that message only; the second meets the end of the stream.
    for (int i = 0; i < 2 && usable(); ++i)
        if (PQconsumeInput(conn_) == 0) broken_ = true;
    return usable();
}

bool connection::idle() const noexcept { return conn_ && PQtransactionStatus(conn_) == PQTRANS_IDLE; }

error connection::broken(std::string_view what) {
    broken_ = true;
    return error{error::kind::unavailable, {}, std::string(what) + ": " + message_of(conn_)};
}

boost::system::result<void, error> connection::attach_socket() {
    const int fd = PQsocket(conn_);
    if (fd < 0) return broken("no socket");
    if (socket_.is_open() && socket_.native_handle() == fd) return {};
    if (socket_.is_open()) (void)socket_.release();
    boost::system::error_code ec;
    socket_.assign(fd, ec);
    if (ec) return broken("cannot watch the socket");
    return {};
}

asio::awaitable<connection::outcome> connection::wait(bool for_write, clock::time_point deadline) {
    if (clock::now() >= deadline) co_return outcome::timed_out;
    asio::steady_timer timer(co_await asio::this_coro::executor, deadline);
    const auto type =
        for_write ? asio::posix::stream_descriptor::wait_write : asio::posix::stream_descriptor::wait_read;
    auto which = co_await (socket_.async_wait(type, asio::as_tuple(asio::use_awaitable)) ||
                           timer.async_wait(asio::as_tuple(asio::use_awaitable)));
    if (which.index() == 1) co_return outcome::timed_out;
    auto [ec] = std::get<0>(which);
    co_return ec ? outcome::failed : outcome::ready;
}

asio::awaitable<boost::system::result<std::unique_ptr<connection>, error>> connection::connect(
    asio::any_io_executor io, asio::any_io_executor blocking, connection_options options, clock::time_point deadline) {
    // PQconnectStart resolves a host name synchronously: not on an I/O thread.
    pg_conn* raw = co_await off_thread(blocking, [&] { return PQconnectStart(options.conninfo.c_str()); });
    if (!raw) co_return error{error::kind::unavailable, {}, "out of memory"};
    std::unique_ptr<connection> c(new connection(io, blocking, std::move(options), raw));
    if (PQstatus(raw) == CONNECTION_BAD) co_return c->broken("connect");
    // Server notices (warnings, the shutdown notice) would go to stderr unasked: drop them.
    PQsetNoticeProcessor(
        raw, [](void*, const char*) {}, nullptr);
    PostgresPollingStatusType poll = PGRES_POLLING_WRITING;
    while (poll != PGRES_POLLING_OK) {
        if (poll == PGRES_POLLING_FAILED) co_return c->broken("connect");
        // libpq may move to another socket (the next host of a list): watch the current one.
        if (auto a = c->attach_socket(); !a) co_return a.error();
        auto w = co_await c->wait(poll == PGRES_POLLING_WRITING, deadline);
        if (w == outcome::timed_out) {
            c->broken_ = true;
            co_return error{error::kind::unavailable, {}, "connect: no answer before the deadline"};
        }
        if (w == outcome::failed) co_return c->broken("connect");
        poll = PQconnectPoll(raw);
    }
    if (auto a = c->attach_socket(); !a) co_return a.error();
    if (PQsetnonblocking(raw, 1) != 0) co_return c->broken("non-blocking mode");
    c->cancel_ = PQgetCancel(raw);
    if (!c->cancel_) co_return c->broken("cancel handle");
    co_return std::move(c);
}

asio::awaitable<boost::system::result<void, error>> connection::flush(clock::time_point deadline) {
    for (;;) {
        const int f = PQflush(conn_);
        if (f == 0) {
            boost::system::result<void, error> ok;  // named: see migrations.cpp
            co_return ok;
        }
        if (f < 0) co_return broken("send");
        // Output is pending: wait until the socket takes more. The server may be writing to us
        // meanwhile; consume what it sent so that neither side stalls.
        auto w = co_await wait(true, deadline);
        if (w == outcome::timed_out) {
            // Nothing reached the server whole: the connection is in an unknown state.
            broken_ = true;
            co_return error{error::kind::timed_out, {}, "send: deadline"};
        }
        if (w == outcome::failed || PQconsumeInput(conn_) == 0) co_return broken("send");
    }
}

asio::awaitable<void> connection::cancel_on_server() {
    pg_cancel* handle = cancel_;
    const bool sent = co_await off_thread(blocking_, [handle] {
        std::array<char, 256> buffer{};
        return PQcancel(handle, buffer.data(), static_cast<int>(buffer.size())) == 1;
    });
    if (!sent) broken_ = true;
}

asio::awaitable<boost::system::result<result_set, error>> connection::collect(clock::time_point deadline) {
    ++round_trips_;
    std::optional<result_set> out;
    std::optional<error> failure;
    bool cancelled = false;
    auto limit = deadline;
    for (;;) {
        if (PQconsumeInput(conn_) == 0) co_return broken("receive");
        while (!PQisBusy(conn_)) {
            PGresult* r = PQgetResult(conn_);
            if (!r) {
                if (failure) co_return *failure;
                if (!out) co_return error{error::kind::rejected, {}, "no result"};
                co_return std::move(*out);
            }
            switch (PQresultStatus(r)) {
                case PGRES_TUPLES_OK:
                case PGRES_COMMAND_OK: {
                    result_set rs;
                    const int columns = PQnfields(r);
                    const int rows = PQntuples(r);
                    rs.columns.reserve(static_cast<std::size_t>(columns));
                    std::vector<unsigned> types(static_cast<std::size_t>(columns));
                    for (int c = 0; c < columns; ++c) {
                        rs.columns.emplace_back(PQfname(r, c));
                        types[static_cast<std::size_t>(c)] = PQftype(r, c);
                    }
                    rs.rows.reserve(static_cast<std::size_t>(rows));
                    for (int i = 0; i < rows; ++i) {
                        row& cells = rs.rows.emplace_back();
                        cells.reserve(static_cast<std::size_t>(columns));
                        for (int c = 0; c < columns; ++c)
                            cells.push_back(column_value(r, i, c, types[static_cast<std::size_t>(c)]));
                    }
                    const char* n = PQcmdTuples(r);
                    if (n && *n) std::from_chars(n, n + std::strlen(n), rs.affected);
                    out = std::move(rs);
                    break;
                }
                default: {
                    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
                    std::string sqlstate = state ? state : "";
                    std::string message = PQresultErrorMessage(r);
                    while (!message.empty() && message.back() == '\n') message.pop_back();
                    if (cancelled && sqlstate == "57014") {
                        failure = error{error::kind::timed_out, {}, "cancelled at the deadline"};
                    } else if (connection_failure(sqlstate) || PQstatus(conn_) == CONNECTION_BAD) {
                        broken_ = true;
                        failure = error{error::kind::unavailable, sqlstate, message};
                    } else {
                        failure = error{error::kind::rejected, sqlstate, message};
                    }
                    break;
                }
            }
            PQclear(r);
        }
        auto w = co_await wait(false, limit);
        if (w == outcome::failed) co_return broken("receive");
        if (w == outcome::timed_out) {
            if (cancelled) {
                // The server did not confirm the cancel: the connection cannot be trusted.
                broken_ = true;
                co_return error{error::kind::timed_out, {}, "cancel not confirmed"};
            }
            cancelled = true;
            co_await cancel_on_server();
            if (broken_) co_return error{error::kind::timed_out, {}, "cancel could not be sent"};
            limit = clock::now() + options_.cancel_grace;
        }
    }
}

asio::awaitable<boost::system::result<result_set, error>> connection::query(std::string_view sql,
                                                                            std::span<const value> params,
                                                                            clock::time_point deadline) {
    if (!usable()) co_return error{error::kind::unavailable, {}, "connection is broken"};
    // Parameters in text format: libpq reads each as a NUL-terminated string.
    std::vector<std::string> texts(params.size());
    std::vector<const char*> pointers(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
        const auto& p = params[i];
        if (std::holds_alternative<std::nullptr_t>(p)) continue;
        if (auto* n = std::get_if<std::int64_t>(&p)) {
            texts[i] = std::to_string(*n);
        } else if (auto* d = std::get_if<double>(&p)) {
            std::array<char, 32> buffer{};
            auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), *d);
            texts[i].assign(buffer.data(), ec == std::errc{} ? end : buffer.data());
        } else {
            texts[i] = std::get<std::string>(p);
            if (texts[i].find('\0') != std::string::npos)
                co_return error{error::kind::rejected, "22021", "a text parameter holds a NUL character"};
        }
        pointers[i] = texts[i].c_str();
    }
    const int count = static_cast<int>(params.size());
    const std::string text(sql);

    auto found = prepared_.find(text);
    const char* name = nullptr;
    if (found != prepared_.end()) {
        name = found->second.c_str();
    } else if (prepared_.size() < options_.max_prepared_statements) {
        std::string fresh = "candor_" + std::to_string(prepared_.size() + 1);
        if (!PQsendPrepare(conn_, fresh.c_str(), text.c_str(), count, nullptr)) co_return broken("prepare");
        if (auto f = co_await flush(deadline); !f) co_return f.error();
        auto p = co_await collect(deadline);
        if (!p) co_return p.error();
        name = prepared_.emplace(text, std::move(fresh)).first->second.c_str();
    }
    const int sent = name
                         ? PQsendQueryPrepared(conn_, name, count, pointers.data(), nullptr, nullptr, 0)
                         : PQsendQueryParams(conn_, text.c_str(), count, nullptr, pointers.data(), nullptr, nullptr, 0);
    if (!sent) co_return broken("send");
    if (auto f = co_await flush(deadline); !f) co_return f.error();
    co_return co_await collect(deadline);
}

asio::awaitable<boost::system::result<result_set, error>> connection::execute_script(std::string_view sql,
                                                                                     clock::time_point deadline) {
    if (!usable()) co_return error{error::kind::unavailable, {}, "connection is broken"};
    const std::string text(sql);
    if (!PQsendQuery(conn_, text.c_str())) co_return broken("send");
    if (auto f = co_await flush(deadline); !f) co_return f.error();
    co_return co_await collect(deadline);
}

}  // namespace candor::postgres
