// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The replicas' notice feed (`mcp::shared_notices`) in a SQL database: SQLite for the processes
/// of one host, PostgreSQL for replicas.
///
/// One table, created if missing: `candor_notices(seq, origin, kind, subject, detail, at)`.
/// Publications take turns (on PostgreSQL under a transaction's advisory lock), so sequence
/// numbers are given in commit order and a reader that has seen `seq` never finds an older one
/// later; one replica's are written in the order it made them. Each publication drops notices older than `retention` and all but the newest
/// `max_rows`; the newest row always stays, so that numbering goes on. Every statement runs on
/// the worker.
///
/// @code
/// auto notices = state::sql_notice_feed::open(db, worker).value();
/// server.set_shared_notices(notices);
/// @endcode

#include <candor/mcp/shared_notices.hpp>
#include <candor/offload/worker.hpp>
#include <candor/store/database.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <string_view>

namespace candor::state {

struct notice_feed_options {
    /// A notice older than this is dropped at the next publication (readers poll far more often).
    std::chrono::seconds retention{60};
    /// At most this many notices are kept.
    std::int64_t max_rows = 10'000;
    /// At most this many publications wait for the worker; one more is dropped (at most once: a
    /// flood of notices, e.g. cancellations of unknown requests, costs no unbounded memory).
    std::size_t max_pending = 1'000;
};

class sql_notice_feed final : public mcp::shared_notices {
public:
    /// The table, as statements that SQLite and PostgreSQL both run (`IF NOT EXISTS`).
    static std::span<const std::string_view> schema() noexcept;

    /// Create the table if it is missing (on the calling thread: call it at startup).
    /// @param worker the threads that run the statements (never an I/O thread)
    static boost::system::result<std::shared_ptr<sql_notice_feed>, store::db_error> open(
        std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker,
        notice_feed_options options = {});

    void publish(std::string origin, mcp::notice n) override;
    boost::asio::awaitable<boost::system::result<mcp::notice_batch, store::db_error>> read(
        std::optional<std::int64_t> after, std::string origin, std::size_t max,
        std::chrono::system_clock::time_point since) override;

private:
    sql_notice_feed(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker,
                    notice_feed_options options)
        : db_(std::move(db)), worker_(std::move(worker)), publishing_(worker_->executor()), options_(options) {}

    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<offload::worker> worker_;
    /// One publication at a time, in the order they were made: this replica's notices are read
    /// in the order it raised them.
    boost::asio::strand<boost::asio::any_io_executor> publishing_;
    std::shared_ptr<std::atomic<std::size_t>> pending_ = std::make_shared<std::atomic<std::size_t>>(0);
    notice_feed_options options_;
};

}  // namespace candor::state
