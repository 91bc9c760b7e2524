// SPDX-License-Identifier: BSL-1.0
#pragma once
// The helpdesk's own flags (the standard ones, --http, --sealing-keys, --state and the
// operators' flags come from the framework's command line).

#include "tools.hpp"

#include <candor/app/command_line.hpp>

#include <string>
#include <vector>

namespace helpdesk {

struct command_line {
    std::string db_path = default_db_path();
    long seed_tickets = 10'000;
    settings config;

    /// $XDG_DATA_HOME/candor/helpdesk.db, else ~/.local/share/candor/helpdesk.db, else ./helpdesk.db.
    static std::string default_db_path();
};

/// The server's description for --help.
std::string summary();

/// --db, --seed-tickets, --slow-source, --fail-source, --token-ttl, --kb-stale-after, recorded
/// into `cli` (which outlives the command line's parsing).
std::vector<candor::app::extra_option> flags(command_line& cli);

}  // namespace helpdesk
