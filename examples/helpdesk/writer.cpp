// SPDX-License-Identifier: BSL-1.0
// helpdesk-writer: another program that keeps changing the helpdesk's customers with plain SQL
// — inserts, renames and deletes — while agents walk them with search_customers. It knows
// nothing of Candor's layout: the table is a plain table, and every walk still reads one
// snapshot of it.
//
//   helpdesk-writer --db PATH_OR_URL [--changes N] [--every-ms M]
//   helpdesk-writer --db PATH_OR_URL --rename ID      rename one customer, then stop
//
// Each round inserts a customer (cust-w<k>), renames a seeded one and deletes the customer it
// inserted the round before last. It prints "writing" when it starts and how many changes it
// made when it stops (after N rounds, default 300, or at SIGINT/SIGTERM).
#include "data.hpp"

#include <candor/state/open_url.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <thread>

namespace {

std::atomic<bool> stop{false};

void on_signal(int) { stop = true; }

bool number(const char* text, long max, long& out) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!text[0] || *end || v < 0 || v > max) return false;
    out = v;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string db_url, rename;
    long changes = 300, every_ms = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--db" && v) db_url = argv[++i];
        else if (a == "--changes" && v && number(v, 10'000'000, changes)) ++i;
        else if (a == "--every-ms" && v && number(v, 60'000, every_ms)) ++i;
        else if (a == "--rename" && v) rename = argv[++i];
        else {
            std::cerr << "usage: helpdesk-writer --db PATH_OR_URL [--changes N] [--every-ms M] | --rename ID\n";
            return 2;
        }
    }
    if (db_url.empty()) {
        std::cerr << "error: --db is required (the helpdesk's database)\n";
        return 2;
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    auto opened = candor::state::open_url(db_url);
    if (!opened) {
        std::cerr << "error: cannot open the database: " << opened.error().message << "\n";
        return 1;
    }
    auto& db = *opened->db;
    if (!rename.empty()) {
        const candor::store::sql_value id[] = {rename};
        auto r = db.execute("UPDATE customers SET name = name || ' (renamed)' WHERE id = ?", id);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return 1;
        }
        std::cout << (*r == 1 ? "renamed " + rename : "no customer " + rename) << "\n";
        return *r == 1 ? 0 : 1;
    }
    std::mt19937 rng(std::random_device{}());
    const char* regions[] = {"amer", "apac", "emea"};
    long made = 0;
    std::cout << "writing" << std::endl;  // a caller may wait for this line
    for (long round = 1; round <= changes && !stop; ++round) {
        const std::string id = "cust-w" + std::to_string(round);
        const candor::store::sql_value inserted[] = {
            id, "Newco " + std::to_string(round), std::string(regions[rng() % 3]), helpdesk::day_after_new_year(330)};
        const candor::store::sql_value renamed[] = {"Renamed " + std::to_string(round),
                                                    "cust-" + std::to_string(11 + rng() % 1'990)};
        const candor::store::sql_value deleted[] = {"cust-w" + std::to_string(round - 2)};
        auto r = db.transaction(
            [&](candor::store::sql_database& tx) -> boost::system::result<void, candor::store::db_error> {
                if (auto w =
                        tx.execute("INSERT INTO customers(id, may_order, name, region, since) VALUES(?, 1, ?, ?, ?) "
                                   "ON CONFLICT (id) DO NOTHING",
                                   inserted);
                    !w)
                    return w.error();
                if (auto w = tx.execute("UPDATE customers SET name = ? WHERE id = ?", renamed); !w) return w.error();
                if (auto w = tx.execute("DELETE FROM customers WHERE id = ?", deleted); !w) return w.error();
                return {};
            });
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return 1;
        }
        made += 3;
        std::this_thread::sleep_for(std::chrono::milliseconds(every_ms));
    }
    std::cout << made << " changes\n";
    return 0;
}
