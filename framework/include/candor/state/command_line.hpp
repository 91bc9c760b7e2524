// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// `--state URL` (or `CANDOR_STATE_URL`): where a server keeps the state its replicas share —
/// evidence of complete walks, executed plan tokens, repair counts (component postgres, which
/// also opens SQLite).
///
///     SERVER --http 0.0.0.0:8080 --state postgres://candor@db.internal/candor
///
/// A `postgres://` or `postgresql://` URL opens a pool on PostgreSQL and migrates the state
/// tables (`state::open_url`); anything else is a SQLite file, for the processes of one host.
/// Without either, the server decides (`open`'s fallback: the helpdesk keeps its state in its
/// own database). The flag wins over the environment. A URL with a password is logged without it.
///
/// @code
/// auto state = std::make_shared<state::command_line>();
/// opts.extensions = {http, state};
/// opts.prepare = [&] {
///     auto db = state->open("/var/lib/helpdesk/state.db");  // the default when no URL is given
///     ...
/// };
/// @endcode

#include <candor/app/command_line.hpp>
#include <candor/offload/worker.hpp>
#include <candor/state/open_url.hpp>

#include <memory>
#include <optional>
#include <string>

namespace candor::state {

class command_line final : public app::command_line_extension {
public:
    std::vector<app::extra_option> flags() override;
    std::string help() const override;
    std::string check(bool serving) override;

    /// The URL the command line or the environment named (empty: neither).
    const std::string& url() const noexcept { return url_; }

    /// Open the state's database once (later calls return the same): the URL named, else
    /// `fallback` (a URL or SQLite path; empty: nothing to open).
    /// @return the database, or why it could not be opened (for the server log)
    boost::system::result<state::opened_database, store::db_error> open(const std::string& fallback);

    /// The threads that run the state's blocking statements (more for PostgreSQL, whose pool
    /// serves several at once; one for SQLite's single connection). Valid after `open`.
    std::shared_ptr<offload::worker> worker() const { return worker_; }

private:
    std::string url_;
    std::optional<state::opened_database> opened_;
    std::shared_ptr<offload::worker> worker_;
};

}  // namespace candor::state
