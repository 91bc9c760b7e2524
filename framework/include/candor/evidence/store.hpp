// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The evidence store: which ids a walk over a pinned snapshot delivered.
///
/// A snapshot token names a walk; the store holds the walk's exact id set, so that an
/// evidence-gated action can check, before it runs, that every id it is asked to touch was
/// delivered by that (complete) walk. Implementations: in memory (one process, tests; here) and
/// SQLite (survives restarts, shared by processes on one host; sqlite_store.hpp, component
/// sqlite), and any `store::sql_database` (sql_store.hpp, component sqlite: SQLite or a
/// PostgreSQL that replicas share).
///
/// The interface is synchronous and each call is short (an insert batch or one indexed
/// lookup per id); implementations are thread-safe. A store whose calls wait on a database
/// names the `worker()` they run on, and callers on an I/O thread go through `call_store`, so
/// that a slow database delays only its own call and a deadline still answers on time.

#include <candor/offload/worker.hpp>
#include <candor/seal/key_ring.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace candor::evidence {

class evidence_store {
public:
    virtual ~evidence_store() = default;

    /// Add delivered ids to an open walk (created on first use). Repeating an id is harmless
    /// (a page fetched twice with the same cursor delivers the same ids).
    /// @param open_until the open walk is dropped by `purge` after this time unless another
    ///        page extends it: a walk whose cursor expired can never be continued, so an
    ///        abandoned walk does not stay forever (collections pass now + the cursor TTL)
    virtual void record(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until) = 0;

    /// The walk ended: keep its set until `expiry`, after which it is gone.
    virtual void close(std::string_view walk, seal::wall_time expiry) = 0;

    /// What a collection does after each page of a pinned walk: `record` the page's ids, then,
    /// on the walk's last page (`closing` set), `close` it with that expiry. A store on a remote
    /// database overrides it to make one round trip of both.
    virtual void record_page(std::string_view walk, std::span<const std::string> ids, seal::wall_time open_until,
                             std::optional<seal::wall_time> closing) {
        record(walk, ids, open_until);
        if (closing) close(walk, *closing);
    }

    /// The ids of `ids` that the closed walk did not deliver (in the order given).
    /// @return the uncovered ids (empty: all covered), or nothing when the walk is unknown,
    ///         not closed, or expired at `now`
    /// @complexity one lookup per id
    virtual std::optional<std::vector<std::string>> uncovered(std::string_view walk, std::span<const std::string> ids,
                                                              seal::wall_time now) const = 0;

    /// Drop every walk, closed or abandoned, whose time is up at `now` (closed: its expiry;
    /// open: its `open_until`).
    virtual void purge(seal::wall_time now) = 0;

    /// The threads this store's calls block on, or none (the calls never wait: run them inline).
    virtual std::shared_ptr<offload::worker> worker() const { return nullptr; }
};

/// A store's database failed (thrown by the stores on a database; `call_store` returns it as
/// a value).
class store_failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Run `fn()` (a call of the store) where the store wants it: inline when it has no worker, else
/// on its worker, waiting cancellably (`offload::worker::run_cancellable`: a deadline or a cancelled
/// call ends the wait at once). `fn` owns what it uses (captures by value). Pass a named lambda.
/// @return what `fn` returned, or nothing when the store failed (`std::exception` from `fn`)
/// @throws boost::system::system_error `operation_aborted` when the wait was cancelled
template <class F>
boost::asio::awaitable<std::optional<std::invoke_result_t<F&>>> call_store(const evidence_store& s, F fn) {
    using R = std::invoke_result_t<F&>;
    std::optional<R> out;
    try {
        if (auto w = s.worker()) out.emplace(co_await w->run_cancellable(std::move(fn)));
        else out.emplace(fn());
    } catch (const boost::system::system_error& e) {
        if (e.code() == boost::asio::error::operation_aborted) throw;  // the caller's deadline, not the store
        out.reset();
    } catch (const std::exception&) {
        out.reset();
    }
    co_return out;
}

/// An in-process store (a hash set per walk).
std::shared_ptr<evidence_store> make_memory_store();

}  // namespace candor::evidence
