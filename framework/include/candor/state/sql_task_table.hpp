// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The replicas' shared task table (`mcp::shared_task_table`) in a SQL database: SQLite for the
/// processes of one host, PostgreSQL for replicas.
///
/// One table, created if missing: `candor_tasks(id, owner, status, version, record, holder,
/// lease_until, expires, mail, ended_seen)` — `record` the task as a client may see it (JSON,
/// never the tool's arguments), `mail` the answers other replicas took for its holder. Every
/// statement runs on the worker; a publication is queued there and never awaited. Rows past
/// their expiry are deleted when a replica that runs tasks renews its leases.
///
/// @code
/// auto tasks = state::sql_task_table::open(db, worker).value();
/// server.set_shared_tasks(tasks);
/// @endcode

#include <candor/mcp/shared_tasks.hpp>
#include <candor/offload/worker.hpp>
#include <candor/store/database.hpp>

#include <memory>
#include <span>
#include <string_view>

namespace candor::state {

class sql_task_table final : public mcp::shared_task_table {
public:
    /// The table, as statements that SQLite and PostgreSQL both run (`IF NOT EXISTS`).
    static std::span<const std::string_view> schema() noexcept;

    /// Create the table if it is missing (on the calling thread: call it at startup).
    /// @param worker the threads that run the statements (never an I/O thread)
    static boost::system::result<std::shared_ptr<sql_task_table>, store::db_error> open(
        std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker);

    void publish(mcp::task_record r, std::uint64_t version, std::string holder, time_point lease_until) override;
    boost::asio::awaitable<boost::system::result<bool, store::db_error>> publish_now(mcp::task_record r,
                                                                                     std::uint64_t version,
                                                                                     std::string holder,
                                                                                     time_point lease_until) override;
    boost::asio::awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> find(
        std::string id, time_point now) override;
    boost::asio::awaitable<boost::system::result<std::optional<mcp::shared_task>, store::db_error>> modify(
        std::string id, time_point now, std::function<bool(mcp::shared_task&)> change,
        boost::json::object answers) override;
    boost::asio::awaitable<boost::system::result<std::vector<mcp::task_mail>, store::db_error>> renew(
        std::string holder, time_point lease_until, time_point now) override;
    boost::asio::awaitable<boost::system::result<mcp::live_tasks, store::db_error>> count_live(std::string owner,
                                                                                               time_point now) override;

private:
    sql_task_table(std::shared_ptr<store::sql_database> db, std::shared_ptr<offload::worker> worker)
        : db_(std::move(db)), worker_(std::move(worker)) {}

    std::shared_ptr<store::sql_database> db_;
    std::shared_ptr<offload::worker> worker_;
};

}  // namespace candor::state
