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
#include "data.hpp"
#include "orders.hpp"
#include "tools.hpp"

#include <candor/app/command_line.hpp>
#include <candor/app/secret.hpp>
#include <candor/evidence/request_state.hpp>
#include <candor/http/command_line.hpp>
#include <candor/offload/worker.hpp>
#include <candor/ops/command_line.hpp>
#include <candor/state/command_line.hpp>
#include <candor/state/open_url.hpp>
#include <candor/state/sql_event_log.hpp>
#include <candor/state/sql_evidence_store.hpp>
#include <candor/state/sql_repair_counts.hpp>
#include <candor/state/sql_session_records.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

// $XDG_DATA_HOME/candor/helpdesk.db, else ~/.local/share/candor/helpdesk.db, else ./helpdesk.db.
std::string default_db_path() {
    namespace fs = std::filesystem;
    fs::path dir;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) dir = fs::path(x) / "candor";
    else if (const char* h = std::getenv("HOME"); h && *h) dir = fs::path(h) / ".local" / "share" / "candor";
    else return "helpdesk.db";
    return (dir / "helpdesk.db").string();
}

bool positive(std::string_view text, long max, long& out) {
    try {
        std::size_t used = 0;
        const long v = std::stol(std::string(text), &used);
        if (used != text.size() || v < 0 || v > max) return false;
        out = v;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

int main(int argc, char** argv) {
    candor::mcp::server srv({.name = "helpdesk", .version = "1.0.0"});

    std::string db_path = default_db_path();
    long seed_tickets = 10'000;
    helpdesk::settings config;

    candor::app::app_options opts;
    opts.summary =
        "Candor's helpdesk demo over an embedded SQLite database or PostgreSQL (--db): search_tickets,\n"
        "list_service_accounts, find_unowned_accounts, archive_service_accounts (evidence-gated),\n"
        "search_everywhere.\n"
        "Over --stdio the caller is $CANDOR_PRINCIPAL (default admin); over --http, the principal of the\n"
        "bearer token (--tokens; no token: anonymous, who sees no service accounts).\n"
        "Cursors and snapshot tokens are sealed with the keys ('id:HEX[,id:HEX…]') in the file named by\n"
        "$CANDOR_SEALING_KEYS_FILE, the systemd credential candor-sealing-keys or $CANDOR_SEALING_KEYS\n"
        "(one of them); without keys, with a random key that dies with the process.";
    opts.options = {
        {"--db", "PATH|URL",
         "SQLite database (default " + default_db_path() +
             "), or a postgres:// or postgresql:// URL; created and seeded on first run",
         [&](std::string_view v) {
             db_path = std::string(v);
             return !db_path.empty();
         }},
        {"--seed-tickets", "N", "tickets to seed into a new database (default 10000)",
         [&](std::string_view v) {
             if (positive(v, 10'000'000, seed_tickets)) return true;
             std::cerr << "error: --seed-tickets expects 0..10000000\n";
             return false;
         }},
        {"--slow-source", "NAME", "search_everywhere: NAME (tickets, knowledge_base, chat) answers after 5 s",
         [&](std::string_view v) {
             config.slow_source = std::string(v);
             return true;
         }},
        {"--fail-source", "NAME", "search_everywhere: NAME fails at once",
         [&](std::string_view v) {
             config.fail_source = std::string(v);
             return true;
         }},
        {"--token-ttl", "SECONDS", "lifetime of snapshot tokens (default 900)",
         [&](std::string_view v) {
             long s = 0;
             if (!positive(v, 86'400, s) || s == 0) {
                 std::cerr << "error: --token-ttl expects 1..86400\n";
                 return false;
             }
             config.token_ttl = std::chrono::seconds(s);
             return true;
         }},
        {"--kb-stale-after", "SECONDS", "the knowledge base is STALE_INDEX after this age (default 3600)",
         [&](std::string_view v) {
             long s = 0;
             if (!positive(v, 10'000'000, s)) {
                 std::cerr << "error: --kb-stale-after expects 0..10000000\n";
                 return false;
             }
             config.kb_stale_after = std::chrono::seconds(s);
             return true;
         }},
    };
    const char* who = std::getenv("CANDOR_PRINCIPAL");
    opts.stdio_caller = candor::mcp::principal{who && *who ? who : "admin"};

    auto http = std::make_shared<candor::app::http_command_line>();
    auto state = std::make_shared<candor::state::command_line>();
    opts.prepare = [&]() -> bool {
        // The server's log has the operator's format (--log-format) by now.
        const auto& log = srv.options().log;
        const auto fail = [&](const std::string& why) {
            log(candor::mcp::log_level::error, why);
            return false;
        };
        for (const auto& name : {config.slow_source, config.fail_source}) {
            if (!name.empty() && name != "tickets" && name != "knowledge_base" && name != "chat")
                return fail("sources are tickets, knowledge_base and chat, not '" + name + "'");
        }
        // The demo's data: a SQLite file (default) or PostgreSQL (--db postgres://…), which the
        // replicas of one deployment share (docs/deployment.md).
        if (!candor::state::is_postgres_url(db_path)) {
            std::error_code ec;
            const auto parent = std::filesystem::path(db_path).parent_path();
            if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        }
        candor::postgres::pool_options pg;
        // Seeding holds the setup lock for seconds, and the other replicas' setup waits for it
        // in one statement; pages and calls end at their own deadlines whatever this says.
        pg.statement_timeout = std::chrono::seconds(60);
        const auto shown = candor::state::redacted_url(db_path);
        auto data = candor::state::open_url(db_path, pg);
        if (!data) return fail("cannot open database '" + shown + "': " + data.error().message);
        auto db = data->db;
        if (auto r = helpdesk::open_and_seed(*db, static_cast<int>(seed_tickets)); !r)
            return fail("cannot prepare database '" + shown + "': " + r.error().message);
        if (auto r = helpdesk::prepare_orders(*db); !r)
            return fail("cannot prepare the order tables in '" + shown + "': " + r.error().message);
        // The shared state (evidence of walks, repair counts, HTTP sessions and SSE events): --state, else the
        // data's own database. Executed plans stay with the data: a plan's use commits in the
        // archive's own transaction.
        auto state_db = db;
        auto worker = std::make_shared<candor::offload::worker>(candor::state::is_postgres_url(db_path) ? 4 : 1);
        if (!state->url().empty()) {
            auto opened = state->open({});
            if (!opened)
                return fail("cannot open the state database '" + candor::state::redacted_url(state->url()) +
                            "': " + opened.error().message);
            state_db = opened->db;
            log(candor::mcp::log_level::info, "helpdesk: state " + opened->description);
        }
        auto store = candor::state::open_sql_store(state_db, worker);
        if (!store) return fail("cannot open the evidence store: " + store.error().message);
        auto counts = candor::state::sql_repair_counts::open(state_db, worker);
        if (!counts) return fail("cannot open the repair counts: " + counts.error().message);
        auto sessions = candor::state::sql_session_records::open(state_db);
        if (!sessions) return fail("cannot open the session records: " + sessions.error().message);
        http->http_options().shared_sessions = *sessions;
        http->http_options().shared_sessions_worker = worker;
        // The SSE event log beside them: a stream cut on one replica resumes on another.
        auto events = candor::state::sql_event_log::open(state_db);
        if (!events) return fail("cannot open the event log: " + events.error().message);
        http->http_options().event_log = *events;
        http->http_options().event_log_worker = worker;
        std::shared_ptr<const candor::seal::key_ring> keys;
        // A file or a systemd credential keeps the keys off the command line and out of the
        // environment (docs/operations.md, "Deploying").
        auto configured = candor::app::read_secret("CANDOR_SEALING_KEYS", "candor-sealing-keys");
        if (!configured)
            return fail("sealing keys: " + configured.error().where + ": " +
                        std::string(candor::app::to_string(configured.error().code)));
        if (const auto& secret = *configured) {
            auto ring = candor::seal::key_ring::from_config(secret->value);
            if (!ring)
                return fail("sealing keys from " + secret->source + ": " +
                            std::string(candor::seal::to_string(ring.error())));
            keys = std::make_shared<const candor::seal::key_ring>(std::move(*ring));
            log(candor::mcp::log_level::info, "sealing keys from " + secret->source);
        } else {
            keys = std::make_shared<const candor::seal::key_ring>(candor::seal::key_ring::ephemeral(
                [&](std::string_view m) { log(candor::mcp::log_level::warning, m); }));
        }
        log(candor::mcp::log_level::info, "helpdesk: database " + shown);
        // The same keys seal the request state of multi round-trip requests (2026-07-28).
        srv.set_request_state_sealer(candor::evidence::state_sealer_from(keys));
        candor::validation::repair_budget_options repairs;
        repairs.shared = *counts;
        if (auto r = helpdesk::add_tools(
                srv,
                {db, keys, *store, config, worker, {}, std::make_shared<candor::validation::repair_budget>(repairs)});
            !r) {
            std::cerr << "error: cannot prepare the plan ledger in '" << shown << "': " << r.error().message << "\n";
            return false;
        }
        return true;
    };
    opts.extensions = {http, std::make_shared<candor::ops::command_line>(http), state};
    return candor::app::run(srv, argc, argv, opts);
}
