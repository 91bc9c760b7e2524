// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The server's state, opened in one call: `--state URL` (or `CANDOR_STATE_URL`) names where a
/// server keeps what its replicas share — evidence of complete walks, executed plan tokens,
/// repair counts, tasks, notices, the HTTP sessions' records and SSE events (component `state`).
///
///     SERVER --http 0.0.0.0:8080 --state postgres://candor@db.internal/candor
///
/// A `postgres://` or `postgresql://` URL opens a pool on PostgreSQL and migrates the state
/// tables (`state::open_url`); anything else is a SQLite file, for the processes of one host.
/// Without either, the server says where (`open_state`'s fallback: the helpdesk keeps its state
/// in its own database). The flag wins over the environment. A URL with a password is logged
/// without it.
///
/// @code
/// auto http = std::make_shared<app::http_command_line>();
/// auto keys = std::make_shared<keys::command_line>();
/// auto state = std::make_shared<state::command_line>(http);
/// opts.extensions = {http, keys, state};
/// opts.prepare = [&] {
///     auto st = state->open_state("/var/lib/books/state.db");  // when no URL is given
///     if (!st) return app::refuse("state: " + st.error().message);
///     paging.keys = keys->ring();
///     paging.evidence = st->evidence;
///     ...
/// };
/// @endcode

#include <candor/app/command_line.hpp>
#include <candor/evidence/store.hpp>
#include <candor/http/command_line.hpp>
#include <candor/mcp/shared_notices.hpp>
#include <candor/mcp/shared_tasks.hpp>
#include <candor/offload/worker.hpp>
#include <candor/state/open_url.hpp>
#include <candor/state/sql_plan_ledger.hpp>
#include <candor/transport/event_log.hpp>
#include <candor/transport/session_records.hpp>
#include <candor/validation/repair_budget.hpp>

#include <memory>
#include <optional>
#include <string>

namespace candor::state {

/// What a server keeps in its state database, each store made and its tables created.
struct server_state {
    opened_database database{};
    /// Runs the stores' statements off the I/O threads: four threads on PostgreSQL (its pool
    /// serves several at once), one on SQLite (one connection).
    std::shared_ptr<offload::worker> worker{};
    std::shared_ptr<evidence::evidence_store> evidence{};
    /// Executed plan tokens (`candor_plan_use`), for approval gates whose actions do not write
    /// this database (an action that does records its plan in its own transaction instead).
    std::shared_ptr<sql_plan_ledger> plans{};
    /// For `validation::repair_budget_options::shared`.
    std::shared_ptr<validation::shared_repair_counts> repair_counts{};
    /// For `server::set_shared_tasks`: tasks that any replica answers for.
    std::shared_ptr<mcp::shared_task_table> tasks{};
    /// For `server::set_shared_notices`: list changes, resource updates and cancellations that
    /// reach every replica.
    std::shared_ptr<mcp::shared_notices> notices{};
    std::shared_ptr<transport::session_records> sessions{};
    std::shared_ptr<transport::event_log> events{};
};

class command_line final : public app::command_line_extension {
public:
    /// @param http the binary's `--http`, whose sessions and SSE events `open_state` keeps in
    ///        the state (so that a session or a stream moves between replicas); null: none
    explicit command_line(std::shared_ptr<app::http_command_line> http = nullptr) : http_(std::move(http)) {}

    std::vector<app::extra_option> flags() override;
    std::string help() const override;
    std::string check(bool serving) override;

    /// The URL the command line or the environment named (empty: neither).
    const std::string& url() const noexcept { return url_; }

    /// Open the state's database once (later calls return the same): the URL named, else
    /// `fallback` (a URL or SQLite path; empty: nothing to open).
    /// @return the database, or why it could not be opened (for the server log)
    boost::system::result<state::opened_database, store::db_error> open(const std::string& fallback);

    /// Open the state (the URL named, else `fallback`) and every store in it, and hand the HTTP
    /// transport its sessions' records and event log. Call it from `app_options::prepare`.
    /// @return the state, or why it could not be opened (the message names the store)
    boost::system::result<server_state, store::db_error> open_state(const std::string& fallback);

    /// The same over a database the server opened already (its own data), used when no URL is
    /// named: one connection for both, and an action's plan recorded in its own transaction.
    boost::system::result<server_state, store::db_error> open_state(const opened_database& fallback);

    /// The threads that run the state's blocking statements (more for PostgreSQL, whose pool
    /// serves several at once; one for SQLite's single connection). Valid after `open`.
    std::shared_ptr<offload::worker> worker() const { return worker_; }

private:
    boost::system::result<server_state, store::db_error> make_stores(opened_database db);

    std::shared_ptr<app::http_command_line> http_;
    std::string url_;
    std::optional<state::opened_database> opened_;
    std::shared_ptr<offload::worker> worker_;
};

}  // namespace candor::state
