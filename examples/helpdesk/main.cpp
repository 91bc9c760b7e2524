// SPDX-License-Identifier: BSL-1.0
// helpdesk: Candor's demo server over an embedded SQLite database — tickets, service
// accounts, a knowledge base and a chat log; searchable, pageable, inventoried, and an
// evidence-gated archive.
//   helpdesk --stdio                      serve one client (principal: $CANDOR_PRINCIPAL, default admin)
//   helpdesk --http 127.0.0.1:8080 --tokens tokens.txt
//   helpdesk --db /tmp/h.db --seed-tickets 1000 --stdio
//   helpdesk --db postgresql://candor@/helpdesk?host=/run/postgresql --stdio
//   helpdesk --db postgresql://candor@db/helpdesk --http 0.0.0.0:8080    (one of N replicas; docs/deployment.md)
//   helpdesk --state postgresql://candor@db/state --http …              (shared state apart from the data)
#include "command_line.hpp"
#include "data.hpp"
#include "orders.hpp"
#include "tools.hpp"

#include <candor/app/command_line.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/ops/command_line.hpp>
#include <candor/state/command_line.hpp>
#include <candor/state/open_url.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
    candor::mcp::server srv({.name = "helpdesk", .version = "1.0.0"});

    helpdesk::command_line cli;
    candor::app::app_options opts;
    opts.summary = helpdesk::summary();
    opts.options = helpdesk::flags(cli);
    const char* who = std::getenv("CANDOR_PRINCIPAL");
    opts.stdio_caller = candor::mcp::principal{who && *who ? who : "admin"};

    auto http = std::make_shared<candor::app::http_command_line>();
    auto keys = std::make_shared<candor::keys::command_line>();
    auto state = std::make_shared<candor::state::command_line>(http);
    opts.prepare = [&]() -> bool {
        // The server's log has the operator's format (--log-format) by now.
        const auto fail = [&](const std::string& why) {
            srv.options().log(candor::mcp::log_level::error, why);
            return false;
        };
        for (const auto& name : {cli.config.slow_source, cli.config.fail_source}) {
            if (!name.empty() && name != "tickets" && name != "knowledge_base" && name != "chat")
                return fail("sources are tickets, knowledge_base and chat, not '" + name + "'");
        }
        // The demo's data: a SQLite file (default) or PostgreSQL (--db postgres://…), which the
        // replicas of one deployment share (docs/deployment.md).
        if (!candor::state::is_postgres_url(cli.db_path)) {
            std::error_code ec;
            const auto parent = std::filesystem::path(cli.db_path).parent_path();
            if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        }
        candor::postgres::pool_options pg;
        // Seeding holds the setup lock for seconds, and the other replicas' setup waits for it
        // in one statement; pages and calls end at their own deadlines whatever this says.
        pg.statement_timeout = std::chrono::seconds(60);
        const auto shown = candor::state::redacted_url(cli.db_path);
        auto data = candor::state::open_url(cli.db_path, pg);
        if (!data) return fail("cannot open database '" + shown + "': " + data.error().message);
        if (auto r = helpdesk::open_and_seed(*data->db, static_cast<int>(cli.seed_tickets)); !r)
            return fail("cannot prepare database '" + shown + "': " + r.error().message);
        if (auto r = helpdesk::prepare_orders(*data->db); !r)
            return fail("cannot prepare the order tables in '" + shown + "': " + r.error().message);
        // The shared state (evidence of walks, repair counts, HTTP sessions and SSE events):
        // --state, else the data's own database. Executed plans stay with the data: a plan's use
        // commits in the archive's own transaction.
        auto st = state->open_state(*data);
        if (!st) return fail(st.error().message);
        srv.options().log(candor::mcp::log_level::info,
                          "helpdesk: database " + shown + ", state " + st->database.description);
        // Tasks (reindex_knowledge_base, search_everywhere) that any replica answers for, and
        // notices (list changes, resource updates, cancellations) that reach every replica.
        srv.set_shared_tasks(st->tasks);
        srv.set_shared_notices(st->notices);
        candor::validation::repair_budget_options repairs;
        repairs.shared = st->repair_counts;
        // The data's statements on the state's threads when they share a database, else on their own.
        auto worker =
            st->database.db == data->db ? st->worker : std::make_shared<candor::offload::worker>(data->pool ? 4 : 1);
        if (auto r = helpdesk::add_tools(srv, {data->db,
                                               keys->ring(),
                                               st->evidence,
                                               cli.config,
                                               worker,
                                               {},
                                               std::make_shared<candor::validation::repair_budget>(repairs),
                                               {}});
            !r)
            return fail("cannot prepare the plan ledger in '" + shown + "': " + r.error().message);
        return true;
    };
    opts.extensions = {http, keys, std::make_shared<candor::ops::command_line>(http), state};
    return candor::app::run(srv, argc, argv, opts);
}
