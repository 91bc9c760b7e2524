// SPDX-License-Identifier: BSL-1.0
#include <candor/postgres/pool.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <array>
#include <exception>

namespace candor::postgres {

namespace asio = boost::asio;

// A call waiting for a connection: woken by `give_back` (which hands it a connection, or the
// right to open one in the place of a dropped one) or by its deadline.
struct pool::waiter {
    explicit waiter(asio::any_io_executor ex, clock::time_point deadline) : timer(std::move(ex), deadline) {}
    asio::steady_timer timer;
    std::unique_ptr<connection> handed;
    bool may_open = false;
};

lease::lease(lease&& other) noexcept
    : owner_(other.owner_), conn_(std::move(other.conn_)), trips_at_start_(other.trips_at_start_) {}

lease::~lease() {
    if (!conn_) return;
    owner_->round_trips_ += conn_->round_trips() - trips_at_start_;
    owner_->give_back(std::move(conn_));
}

pool::pool(asio::any_io_executor io, pool_options options) : io_(std::move(io)), options_(std::move(options)) {}

pool::~pool() {
    {
        std::lock_guard lock(mutex_);
        idle_.clear();
    }
    blocking_.join();
}

std::size_t pool::size() const {
    std::lock_guard lock(mutex_);
    return open_;
}

std::size_t pool::idle() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
}

void pool::give_back(std::unique_ptr<connection> conn) {
    const bool reusable = conn->usable() && conn->idle();
    std::shared_ptr<waiter> woken;
    {
        std::lock_guard lock(mutex_);
        if (!waiters_.empty()) {
            woken = std::move(waiters_.front());
            waiters_.pop_front();
        }
        if (reusable) {
            if (woken) woken->handed = std::move(conn);
            else idle_.push_back(std::move(conn));
        } else {
            ++dropped_;
            // The dropped connection's place goes to the waiter, which opens a new one.
            if (woken) woken->may_open = true;
            else --open_;
        }
    }
    // Closed outside the lock (PQfinish sends a goodbye message on a non-blocking socket).
    conn.reset();
    if (woken) asio::post(woken->timer.get_executor(), [woken] { woken->timer.cancel(); });
}

asio::awaitable<boost::system::result<lease, error>> pool::acquire(clock::time_point deadline) {
    const auto ex = co_await asio::this_coro::executor;
    for (;;) {
        std::unique_ptr<connection> reused;
        std::shared_ptr<waiter> wait;
        bool open_new = false;
        {
            std::lock_guard lock(mutex_);
            if (!idle_.empty()) {
                reused = std::move(idle_.back());
                idle_.pop_back();
            } else if (open_ < options_.max_connections) {
                ++open_;
                open_new = true;
            } else if (waiters_.size() >= options_.max_waiters) {
                co_return error{error::kind::busy, {}, "too many calls wait for a connection"};
            } else {
                wait = std::make_shared<waiter>(ex, deadline);
                waiters_.push_back(wait);
            }
        }
        if (reused) {
            if (reused->still_open()) co_return lease(*this, std::move(reused));
            {
                std::lock_guard lock(mutex_);
                --open_;
                ++dropped_;
            }
            continue;  // a connection that broke while idle: take another
        }
        if (wait) {
            (void)co_await wait->timer.async_wait(asio::as_tuple(asio::use_awaitable));
            std::lock_guard lock(mutex_);
            if (wait->handed) co_return lease(*this, std::move(wait->handed));
            if (!wait->may_open) {
                waiters_.erase(std::find(waiters_.begin(), waiters_.end(), wait));
                co_return error{error::kind::busy, {}, "no connection became free before the deadline"};
            }
            open_new = true;  // the place of a dropped connection, already counted in open_
        }
        if (open_new) {
            const auto connect_by = std::min(deadline, clock::now() + options_.connect_timeout);
            // A named local, not a temporary in the co_await expression: GCC 12 destroys such
            // a temporary twice.
            connection_options settings{options_.conninfo, options_.max_prepared_statements, options_.cancel_grace};
            auto c = co_await connection::connect(io_, blocking_.get_executor(), std::move(settings), connect_by);
            if (c) co_return lease(*this, std::move(*c));
            // Give the place back (to a waiter, which tries in turn, or to the count).
            std::shared_ptr<waiter> woken;
            {
                std::lock_guard lock(mutex_);
                if (!waiters_.empty()) {
                    woken = std::move(waiters_.front());
                    waiters_.pop_front();
                    woken->may_open = true;
                } else {
                    --open_;
                }
            }
            if (woken) asio::post(woken->timer.get_executor(), [woken] { woken->timer.cancel(); });
            co_return c.error();
        }
    }
}

asio::awaitable<boost::system::result<result_set, error>> pool::query(std::string_view sql,
                                                                      std::span<const value> params,
                                                                      clock::time_point deadline) {
    auto l = co_await acquire(deadline);
    if (!l) co_return l.error();
    co_return co_await l->query(sql, params, deadline);
}

asio::awaitable<boost::system::result<result_set, error>> pool::query(std::string_view sql,
                                                                      std::span<const value> params) {
    return query(sql, params, clock::now() + options_.statement_timeout);
}

asio::awaitable<boost::system::result<std::unique_ptr<connection>, error>> pool::connect_dedicated(
    clock::time_point deadline) {
    const auto connect_by = std::min(deadline, clock::now() + options_.connect_timeout);
    connection_options settings{options_.conninfo, options_.max_prepared_statements, options_.cancel_grace};
    co_return co_await connection::connect(io_, blocking_.get_executor(), std::move(settings), connect_by);
}

asio::awaitable<boost::system::result<void, error>> pool::transaction(const work_fn& work, clock::time_point deadline,
                                                                      std::string_view isolation) {
    static constexpr std::array<std::string_view, 4> levels{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE",
                                                            "READ UNCOMMITTED"};
    if (std::find(levels.begin(), levels.end(), isolation) == levels.end())
        co_return error{error::kind::rejected, "22023", "unknown isolation level"};
    auto l = co_await acquire(deadline);
    if (!l) co_return l.error();
    const std::string begin = "BEGIN ISOLATION LEVEL " + std::string(isolation);
    if (auto b = co_await l->execute_script(begin, deadline); !b) co_return b.error();

    boost::system::result<void, error> r = error{error::kind::rejected, {}, "not run"};
    std::exception_ptr thrown;
    try {
        r = co_await work(*l);
    } catch (...) {
        thrown = std::current_exception();
    }
    if (!thrown && r) {
        auto c = co_await l->execute_script("COMMIT", deadline);
        if (!c) co_return c.error();
        boost::system::result<void, error> ok;  // named: see migrations.cpp
        co_return ok;
    }
    // A rollback gets its own short deadline (the call's may be what failed). Should it fail,
    // the lease comes back inside the transaction and the pool closes the connection, which
    // rolls it back on the server all the same.
    (void)co_await l->execute_script("ROLLBACK", clock::now() + options_.cancel_grace);
    if (thrown) std::rethrow_exception(thrown);
    co_return r;
}

}  // namespace candor::postgres
