// SPDX-License-Identifier: BSL-1.0
// The framework's state migrations: frozen steps, and a database the previous release left
// (tests/data/postgres/state-previous-release.sql) migrates to what a new database gets, with
// its rows kept and the stores working on it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/state/open_url.hpp>

#include "postgres/test_support.hpp"

#include <candor/seal/key_ring.hpp>
#include <candor/state/sql_evidence_store.hpp>
#include <candor/state/sql_plan_ledger.hpp>
#include <candor/state/sql_repair_counts.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace {

namespace st = candor::store;
using namespace std::chrono_literals;

std::string fixture() {
    std::ifstream in(std::string(CANDOR_TEST_DATA_DIR) + "/postgres/state-previous-release.sql");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A new, empty database on the test server, and its URL.
std::string new_database(const std::string& name) {
    auto admin = candor::state::open_url(candor_test::server().url(), candor_test::pool_options()).value();
    if (!admin.db->execute("DROP DATABASE IF EXISTS " + name, {}) || !admin.db->execute("CREATE DATABASE " + name, {}))
        throw std::runtime_error("cannot create database " + name);
    auto url = candor_test::server().url();
    return url.replace(url.find("/postgres?"), 10, "/" + name + "?");
}

// Each table's columns and each index's definition: the schema as a set of lines.
std::set<std::string> schema_of(st::sql_database& db) {
    std::set<std::string> out;
    auto text = [](const st::sql_row& row, std::size_t i) { return std::get<std::string>(row.at(i)); };
    EXPECT_TRUE(
        db.query("SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
                 "WHERE table_schema = 'public' AND table_name LIKE 'candor_%'",
                 {}, [&](const st::sql_row& row) {
                     out.insert(text(row, 0) + "." + text(row, 1) + " " + text(row, 2) + " " + text(row, 3));
                     return true;
                 }));
    EXPECT_TRUE(db.query("SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename LIKE 'candor_%'",
                         {}, [&](const st::sql_row& row) {
                             out.insert(text(row, 0));
                             return true;
                         }));
    return out;
}

std::int64_t count(st::sql_database& db, const std::string& sql) {
    std::int64_t n = -1;
    EXPECT_TRUE(db.query(sql, {}, [&](const st::sql_row& row) {
        n = std::get<std::int64_t>(row.at(0));
        return false;
    }));
    return n;
}

}  // namespace

// A released step never changes: its text is pinned here. A new schema is a new step.
TEST(StateMigrations, ReleasedStepsAreFrozen) {
    const auto steps = candor::state::migrations();
    ASSERT_GE(steps.size(), 1u);
    for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].version, static_cast<int>(i) + 1);
    EXPECT_EQ(candor::seal::fingerprint("migration", steps[0].sql), "fda48b983fe1507eff63e5b2f5fbd830");
}

TEST(StateMigrations, ADatabaseThePreviousReleaseLeftMigratesAndKeepsItsRows) {
    const auto old_url = new_database("candor_previous_release");
    {
        candor_test::io_thread t;
        auto raw =
            candor::postgres::open_sql_database(std::make_shared<candor::postgres::pool>(t.io.get_executor(), [&] {
                auto o = candor_test::pool_options();
                o.conninfo = old_url;
                return o;
            }()));
        std::string statement;
        std::istringstream lines(fixture());
        for (std::string line; std::getline(lines, line);) {
            if (line.starts_with("--") || line.empty()) continue;
            statement += line;
            if (statement.ends_with(";")) {
                statement.pop_back();
                ASSERT_TRUE(raw->execute(statement, {})) << statement;
                statement.clear();
            }
        }
    }
    auto old = candor::state::open_url(old_url, candor_test::pool_options()).value();
    auto fresh = candor::state::open_url(new_database("candor_fresh_state"), candor_test::pool_options()).value();
    EXPECT_EQ(schema_of(*old.db), schema_of(*fresh.db));
    const auto steps = static_cast<std::int64_t>(candor::state::migrations().size());
    EXPECT_EQ(count(*old.db, "SELECT count(*) FROM candor_schema_migrations WHERE component = 'candor_state'"), steps);

    // The rows are kept, and the stores work on them.
    auto worker = std::make_shared<candor::offload::worker>();
    auto evidence = candor::state::open_sql_store(old.db, worker).value();
    const auto now = candor::seal::from_epoch_ms(4'000'000'000'000);
    EXPECT_EQ(evidence->uncovered("walk-old", std::vector<std::string>{"t1", "t2"}, now).value(),
              std::vector<std::string>{});
    auto ledger = candor::state::sql_plan_ledger::open(old.db, worker).value();
    boost::asio::io_context io;
    const auto verdict =
        candor_test::run(io, ledger->consume({"nonce-old", std::chrono::system_clock::time_point(4'102'444'800s)},
                                             std::chrono::system_clock::time_point(4'000'000'000s)));
    ASSERT_TRUE(verdict);
    EXPECT_EQ(*verdict, candor::validation::plan_verdict::used);
    auto counts = candor::state::sql_repair_counts::open(old.db, worker).value();
    const auto failures = candor_test::run(io, counts->failures("key-old", now, std::chrono::hours(24 * 365 * 100)));
    ASSERT_TRUE(failures);
    EXPECT_EQ(*failures, 2u);
}
