// SPDX-License-Identifier: BSL-1.0
#pragma once
// What the PostgreSQL tests share: one temporary server per test binary (initdb costs a second
// or two), a pool's options for it, and a way to run a coroutine to completion.

#include <candor/offload/worker.hpp>
#include <candor/postgres/pool.hpp>
#include <candor/postgres/sql_database.hpp>
#include <candor/state/open_url.hpp>

#include "postgres/temporary_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <thread>

namespace candor_test {

inline temporary_server& server() {
    static temporary_server s;
    return s;
}

inline candor::postgres::pool_options pool_options() {
    candor::postgres::pool_options o;
    o.conninfo = server().conninfo();
    return o;
}

// A pool's I/O thread, apart from the test's thread (which plays an offload::worker thread).
struct io_thread {
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard{io.get_executor()};
    std::thread thread{[this] { io.run(); }};
    ~io_thread() {
        guard.reset();
        io.stop();
        thread.join();
    }
};

// A `store::sql_database` on a pool of its own (its own connections, as a replica has) whose
// I/O runs on `t`.
inline std::shared_ptr<candor::store::sql_database> open_database(io_thread& t) {
    return candor::postgres::open_sql_database(
        std::make_shared<candor::postgres::pool>(t.io.get_executor(), pool_options()));
}

// Run a coroutine to completion on `io` (on the test's thread) and return its value.
template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> a) {
    auto f = boost::asio::co_spawn(io, std::move(a), boost::asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

}  // namespace candor_test
