// SPDX-License-Identifier: BSL-1.0
#include "data.hpp"

#include <candor/seal/key_ring.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace helpdesk {

namespace {

using sc::field_type;

constexpr std::array<const char*, 3> statuses{"open", "pending", "closed"};
constexpr std::array<const char*, 2> teams{"team-a", "team-b"};

std::string padded(const char* prefix, int n, int width) {
    char b[32];
    std::snprintf(b, sizeof b, "%s%0*d", prefix, width, n);
    return b;
}

struct article {
    const char* title;
    const char* body;
};

// A small knowledge base; its text mentions words the demo searches for.
constexpr article articles[] = {
    {"Reset a password",
     "Open the account portal, choose Reset password, and follow the mail. Tickets about passwords go to dept-1."},
    {"Printer troubleshooting",
     "Most printer tickets are paper jams or drivers. Restart the printer before opening a ticket."},
    {"VPN setup", "Install the VPN client, import the profile, sign in with your badge number."},
    {"Service account ownership", "Every service account needs an owner. Unowned accounts are archived after review."},
    {"Archiving service accounts",
     "Archive only accounts from a complete inventory; archived accounts stop authenticating."},
    {"Escalating a ticket", "Raise the priority to 5 and add the on-call team as a watcher."},
    {"Onboarding checklist", "Laptop, badge, VPN, mail, printer access."},
    {"Mail quota", "Mailboxes hold 50 GB; archive old mail to stay under the quota."},
    {"Laptop replacement",
     "Laptops are replaced after four years or after a hardware ticket is closed as unrepairable."},
    {"Security incident", "Report phishing to security; never forward the mail."},
};

// What a ticket's description is made of (a report, then what was tried and seen).
constexpr const char* report_lines[] = {
    "The user reports that the problem started after the last update and happens several times a day.",
    "Restarting the machine helps for an hour or so, then the problem comes back.",
    "Colleagues on the same floor see the same behaviour; people working from home do not.",
    "The error message reads: \"The operation could not be completed (code 0x80070005)\".",
    "Steps tried so far: cleared the cache, signed out and in again, checked the cables.",
    "The user needs this fixed before the end of the week for the quarterly report.",
    "Attached: a screenshot of the error and the output of the diagnostics tool.",
    "Asked the user to keep the machine on so that the on-call team can connect to it.",
};

// The key of the advisory lock of the helpdesk's setup (any fixed 64-bit number; this one
// spells "candorHD").
constexpr std::int64_t setup_lock = 0x63616E646F724844;

}  // namespace

boost::system::result<void, sc::db_error> lock_for_setup(sc::sql_database& tx) {
    return candor::store::lock_for_setup(tx, setup_lock);
}

const sc::table_spec& tickets_table() {
    static const sc::table_spec t{"tickets",
                                  {{"id", field_type::text, false, "T-000001 …"},
                                   {"department", field_type::text, false, "dept-0 … dept-7"},
                                   {"status", field_type::text, false, "open, pending or closed"},
                                   {"priority", field_type::integer, false, "1 (low) … 5 (urgent)"},
                                   {"title", field_type::text, false, ""},
                                   {"created_at", field_type::date, false, "YYYY-MM-DD"},
                                   {"description", field_type::text, false, "the report, 200 B to 3 KB"}},
                                  "id"};
    return t;
}

const sc::table_spec& accounts_table() {
    static const sc::table_spec t{"service_accounts",
                                  {{"id", field_type::text, false, "svc-001 …"},
                                   {"team", field_type::text, false, "team-a or team-b"},
                                   {"owner", field_type::text, true, "null when nobody owns it"},
                                   {"last_used", field_type::date, false, "YYYY-MM-DD"},
                                   {"archived", field_type::boolean, false, ""}},
                                  "id"};
    return t;
}

std::string ticket_description(int n) {
    const std::size_t target = 200 + static_cast<std::size_t>(n) * 7'919 % 2'800;  // 200 B … 3 KB
    std::string d = "Ticket " + std::to_string(n) + ", reported in dept-" + std::to_string(n % 8) + ".";
    for (std::size_t line = static_cast<std::size_t>(n); d.size() < target; ++line)
        d += std::string(" ") + report_lines[line % std::size(report_lines)];
    d.resize(target);  // the lines are ASCII: any length is a whole text
    return d;
}

std::string day_after_new_year(int days) {
    using namespace std::chrono;
    const year_month_day d{sys_days{year{2026} / January / 1} + std::chrono::days{days}};
    char b[16];
    std::snprintf(b, sizeof b, "%04d-%02u-%02u", static_cast<int>(d.year()), static_cast<unsigned>(d.month()),
                  static_cast<unsigned>(d.day()));
    return b;
}

namespace {

// The seed data (inside open_and_seed's transaction).
boost::system::result<void, sc::db_error> seed(sc::sql_database& tx, int tickets) {
    std::vector<boost::json::object> rows;
    rows.reserve(static_cast<std::size_t>(tickets));
    for (int i = 1; i <= tickets; ++i) {
        rows.push_back({{"id", padded("T-", i, 6)},
                        {"department", "dept-" + std::to_string(i % 8)},
                        {"status", statuses[static_cast<std::size_t>((i * 7) % 3)]},
                        {"priority", 1 + i % 5},
                        {"title", "Ticket " + std::to_string(i)},
                        {"created_at", day_after_new_year(i % 300)},
                        {"description", ticket_description(i)}});
    }
    if (auto r = sc::insert_rows(tx, tickets_table(), rows); !r) return r;
    rows.clear();
    for (int j = 1; j <= 500; ++j) {
        boost::json::object a{{"id", padded("svc-", j, 3)},
                              {"team", teams[static_cast<std::size_t>(j % 2)]},
                              {"last_used", day_after_new_year(j % 300)},
                              {"archived", false}};
        a["owner"] = j % 7 == 0 ? boost::json::value(nullptr) : boost::json::value("user-" + std::to_string(j % 40));
        rows.push_back(std::move(a));
    }
    if (auto r = sc::insert_rows(tx, accounts_table(), rows); !r) return r;

    int k = 1;
    for (const auto& a : articles) {
        // Bodies of 2 to 40 KB: the article's text, then numbered sections (read_article reads
        // them in parts when a body is larger than a result may be).
        std::string body = a.body;
        const std::size_t target = 2'000 + static_cast<std::size_t>(k * 7'919) % 38'000;
        for (int section = 1; body.size() < target; ++section)
            body += "\n\nSection " + std::to_string(section) + ". " + std::string(a.title) + ": " + a.body +
                    " See the other sections of this article for the details of each step.";
        const sc::sql_value p[] = {padded("kb-", k++, 3), std::string(a.title), std::move(body)};
        if (auto r = tx.execute("INSERT INTO kb_articles(id, title, body) VALUES(?, ?, ?)", p); !r) return r.error();
    }
    for (int m = 1; m <= 200; ++m) {
        const std::string text = m % 4 == 0   ? "printer on floor " + std::to_string(m % 5) + " is jammed again"
                                 : m % 4 == 1 ? "can someone look at Ticket " + std::to_string(m * 37) + "?"
                                 : m % 4 == 2 ? "VPN drops every hour since Monday"
                                              : "who owns svc-" + padded("", m % 500 + 1, 3) + "?";
        const sc::sql_value p[] = {padded("msg-", m, 4), std::string(m % 2 ? "#helpdesk" : "#ops"),
                                   "user-" + std::to_string(m % 40), text, day_after_new_year(m % 300)};
        if (auto r = tx.execute("INSERT INTO chat_messages(id, channel, author, text, at) VALUES(?, ?, ?, ?, ?)", p);
            !r)
            return r.error();
    }
    const sc::sql_value refreshed[] = {std::to_string(candor::seal::to_epoch_ms(std::chrono::system_clock::now()))};
    if (auto r = tx.execute("INSERT INTO helpdesk_meta(key, value) VALUES('kb_refreshed_at', ?)", refreshed); !r)
        return r.error();
    if (auto r = tx.execute("INSERT INTO helpdesk_meta(key, value) VALUES('seeded', '1')", {}); !r) return r.error();
    return {};
}

}  // namespace

boost::system::result<void, sc::db_error> open_and_seed(sc::sql_database& db, int tickets) {
    return db.transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        if (auto r = lock_for_setup(tx); !r) return r;
        if (auto r = sc::create_table(tx, tickets_table()); !r) return r;
        // A database seeded before tickets had descriptions gets them (every version, so that
        // a walk pinned before reads one value on every page).
        auto described =
            sc::add_missing_fields(tx, tickets_table(), [](const sc::field&, const boost::json::object& t) {
                const auto& id = t.at("id").as_string();  // "T-000123"
                return boost::json::value(ticket_description(std::atoi(id.c_str() + 2)));
            });
        if (!described) return described.error();
        if (auto r = sc::create_table(tx, accounts_table()); !r) return r;
        const char* plain[] = {
            "CREATE TABLE IF NOT EXISTS helpdesk_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS kb_articles(id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)",
            // reindex_knowledge_base's index, and one row per run that finished (finished_at in
            // epoch milliseconds; task_id NULL when the run was answered in its request).
            "CREATE TABLE IF NOT EXISTS kb_index(word TEXT NOT NULL, article_id TEXT NOT NULL, PRIMARY KEY(word, "
            "article_id))",
            "CREATE TABLE IF NOT EXISTS kb_index_runs(task_id TEXT, finished_at BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS chat_messages(id TEXT PRIMARY KEY, channel TEXT NOT NULL, author TEXT NOT "
            "NULL, text TEXT NOT NULL, at TEXT NOT NULL)",
        };
        for (const char* s : plain)
            if (auto r = tx.execute(s, {}); !r) return r.error();

        bool seeded = false;
        if (auto r = tx.query("SELECT 1 FROM helpdesk_meta WHERE key = 'seeded'", {},
                              [&](const sc::sql_row&) { return !(seeded = true); });
            !r)
            return r;
        if (seeded) return {};
        return seed(tx, tickets);
    });
}

boost::system::result<std::chrono::system_clock::time_point, sc::db_error> kb_refreshed_at(sc::sql_database& db) {
    std::int64_t ms = 0;
    auto r = db.query("SELECT value FROM helpdesk_meta WHERE key = 'kb_refreshed_at'", {}, [&](const sc::sql_row& row) {
        if (const auto* s = std::get_if<std::string>(&row[0])) ms = std::stoll(*s);
        return false;
    });
    if (!r) return r.error();
    return candor::seal::from_epoch_ms(ms);
}

std::optional<boost::json::value> account_visibility(const candor::mcp::principal& p) {
    if (p.id == "admin") return std::nullopt;
    if (p.id.starts_with("team-")) return boost::json::value(boost::json::object{{"team", p.id}});
    return boost::json::value(boost::json::object{{"id", boost::json::object{{"in", boost::json::array{}}}}});
}

bool may_see_team(const candor::mcp::principal& p, std::string_view team) { return p.id == "admin" || p.id == team; }

}  // namespace helpdesk
