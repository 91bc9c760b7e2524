// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The plan ledger: which plan tokens were executed, so that one approval runs its action once —
/// across restarts and, with a shared database, across replicas.
///
/// Two ways to record a use:
/// - `consume_with(use, now, work)`: the use and the action's own writes in one transaction of
///   the ledger's database (`database()`), so that a crash before the commit leaves the token
///   unused and the action undone, and a commit leaves both done. This is what an action whose
///   data lives in that database uses.
/// - `consume(use, now)`: the use alone, recorded before the action runs. A crash between the
///   two leaves the token used and the action undone (fail closed: the user approves again).
///
/// Both are awaitable and run their database work off the I/O threads. The use is one atomic
/// conditional insert keyed by the token's nonce (`INSERT … ON CONFLICT DO NOTHING`: exactly one
/// of two concurrent uses changes a row), so a backend shared by several replicas keeps a token
/// single-use among all of them.
///
/// Implementations: `memory_plan_ledger` (in process; the default of `approval_gate`) and
/// `sql_plan_ledger` (validation/sql_plan_ledger.hpp, component sqlite: any
/// `store::sql_database`). The interface (`plan_ledger`) has no out-of-line code, so that a
/// backend in another component implements it without linking the validation library.

#include <candor/store/database.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace candor::validation {

/// One use of a plan token: its nonce (what makes it single-use) and its expiry (after which
/// the ledger may forget it: a later use fails as expired anyway).
struct plan_use {
    std::string nonce{};
    std::chrono::system_clock::time_point expiry{};
};

/// What the ledger said about a use.
enum class plan_verdict {
    fresh,  ///< recorded now: the action may run
    used,   ///< recorded before: refuse with `PLAN_TOKEN_USED`
    full,   ///< no room for another live token: refuse (fail closed) rather than forget one
};

/// The action's writes inside the ledger's transaction. A failure rolls back the use too.
using ledger_work = std::function<boost::system::result<void, store::db_error>(store::sql_database& tx)>;

class plan_ledger {
public:
    virtual ~plan_ledger() = default;

    /// Record the use on its own, before the action runs.
    /// @param now the wall clock (expired entries are forgotten first)
    /// @return the verdict, or the database's failure (then nothing was recorded)
    virtual boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> consume(
        const plan_use& use, std::chrono::system_clock::time_point now) = 0;

    /// Record the use and run `work` in one transaction of `database()`, off the I/O threads.
    /// `work` runs only when the verdict is `fresh`; when it fails, nothing of the transaction
    /// stays (the token is unused again) and its error is returned.
    /// @return the verdict (`fresh`: `work` ran and both were committed), or the failure
    virtual boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> consume_with(
        const plan_use& use, std::chrono::system_clock::time_point now, ledger_work work) = 0;

    /// The database whose transactions `consume_with` runs; the action's writes must go to it to
    /// be atomic with the use. Null for a ledger without one (`memory_plan_ledger`).
    virtual std::shared_ptr<store::sql_database> database() const noexcept = 0;

    /// Live entries (unexpired uses remembered), for tests and metrics.
    virtual boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> size() = 0;
};

/// The ledger in process memory: forgotten at a restart, and each replica keeps its own. Bounded
/// by `max_entries` live tokens. It has no database: `consume_with` records the use and then
/// runs `work` on nothing it could roll back with, so it refuses (a `db_error`), and callers
/// that act on a database of their own record with `consume` first.
class memory_plan_ledger final : public plan_ledger {
public:
    explicit memory_plan_ledger(std::size_t max_entries = 100'000);

    boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> consume(
        const plan_use& use, std::chrono::system_clock::time_point now) override;
    boost::asio::awaitable<boost::system::result<plan_verdict, store::db_error>> consume_with(
        const plan_use& use, std::chrono::system_clock::time_point now, ledger_work work) override;
    std::shared_ptr<store::sql_database> database() const noexcept override { return nullptr; }
    boost::asio::awaitable<boost::system::result<std::size_t, store::db_error>> size() override;

    /// The same as `consume`, synchronously (it never waits for anything).
    plan_verdict record(const plan_use& use, std::chrono::system_clock::time_point now);

private:
    std::size_t max_entries_;
    mutable std::mutex mutex_;
    std::map<std::string, std::chrono::system_clock::time_point> used_;
    std::multimap<std::chrono::system_clock::time_point, std::string> by_expiry_;
};

}  // namespace candor::validation
