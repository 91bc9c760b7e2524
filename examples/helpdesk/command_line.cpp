// SPDX-License-Identifier: BSL-1.0
#include "command_line.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>

namespace helpdesk {

namespace {

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

std::string command_line::default_db_path() {
    namespace fs = std::filesystem;
    fs::path dir;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) dir = fs::path(x) / "candor";
    else if (const char* h = std::getenv("HOME"); h && *h) dir = fs::path(h) / ".local" / "share" / "candor";
    else return "helpdesk.db";
    return (dir / "helpdesk.db").string();
}

std::string summary() {
    return "Candor's helpdesk demo over an embedded SQLite database or PostgreSQL (--db): search_tickets,\n"
           "list_service_accounts, find_unowned_accounts, archive_service_accounts (evidence-gated),\n"
           "search_everywhere, reindex_knowledge_base (a task), read_article, create_order_draft.\n"
           "Over --stdio the caller is $CANDOR_PRINCIPAL (default admin); over --http, the principal of the\n"
           "bearer token (--tokens; no token: anonymous, who sees no service accounts).\n"
           "Cursors and snapshot tokens are sealed with the keys of --sealing-keys FILE (or the\n"
           "environment); without keys, with a random key that dies with the process.";
}

std::vector<candor::app::extra_option> flags(command_line& cli) {
    return {
        {"--db", "PATH|URL",
         "SQLite database (default " + command_line::default_db_path() +
             "), or a postgres:// or postgresql:// URL; created and seeded on first run",
         [&cli](std::string_view v) {
             cli.db_path = std::string(v);
             return !cli.db_path.empty();
         }},
        {"--seed-tickets", "N", "tickets to seed into a new database (default 10000)",
         [&cli](std::string_view v) {
             if (positive(v, 10'000'000, cli.seed_tickets)) return true;
             std::cerr << "error: --seed-tickets expects 0..10000000\n";
             return false;
         }},
        {"--slow-source", "NAME", "search_everywhere: NAME (tickets, knowledge_base, chat) answers after 5 s",
         [&cli](std::string_view v) {
             cli.config.slow_source = std::string(v);
             return true;
         }},
        {"--fail-source", "NAME", "search_everywhere: NAME fails at once",
         [&cli](std::string_view v) {
             cli.config.fail_source = std::string(v);
             return true;
         }},
        {"--token-ttl", "SECONDS", "lifetime of snapshot tokens (default 900)",
         [&cli](std::string_view v) {
             long s = 0;
             if (!positive(v, 86'400, s) || s == 0) {
                 std::cerr << "error: --token-ttl expects 1..86400\n";
                 return false;
             }
             cli.config.token_ttl = std::chrono::seconds(s);
             return true;
         }},
        {"--kb-stale-after", "SECONDS", "the knowledge base is STALE_INDEX after this age (default 3600)",
         [&cli](std::string_view v) {
             long s = 0;
             if (!positive(v, 10'000'000, s)) {
                 std::cerr << "error: --kb-stale-after expects 0..10000000\n";
                 return false;
             }
             cli.config.kb_stale_after = std::chrono::seconds(s);
             return true;
         }},
        {"--reindex-seconds", "N", "how long reindex_knowledge_base takes (default 5)",
         [&cli](std::string_view v) {
             long s = 0;
             if (!positive(v, 86'400, s)) {
                 std::cerr << "error: --reindex-seconds expects 0..86400\n";
                 return false;
             }
             cli.config.reindex_duration = std::chrono::seconds(s);
             return true;
         }},
    };
}

}  // namespace helpdesk
