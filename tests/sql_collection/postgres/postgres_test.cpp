// SPDX-License-Identifier: BSL-1.0
// SQL collections on PostgreSQL 15 (a temporary server, tests/postgres/temporary_server.hpp):
// the collection tests of collection_test.cpp on it, and what only PostgreSQL has to prove —
// its guard triggers, create_table from several replicas at once, a walk that stays one
// snapshot while another connection writes, and the filter language meaning the same on both
// engines. The database has an ICU default collation ('en-US', which orders 'a' before 'B'),
// so text that were not compared bytewise would show.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/postgres/sql_database.hpp>
#include <candor/sql_collection/collection.hpp>

#include "postgres/test_support.hpp"
#include "sql_collection/support.hpp"

#include <candor/state/open_url.hpp>

#include <boost/asio/executor_work_guard.hpp>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <future>
#include <optional>
#include <set>
#include <thread>

using namespace candor::test;
using namespace candor::test::sql;

namespace {

namespace pq = candor::postgres;
namespace st = candor::store;

// The pools' I/O thread: one for the binary, as long as the process lives.
using candor_test::io_thread;
io_thread& pool_thread() {
    static io_thread t;
    return t;
}

// The tests' database, created once: ICU-collated, unlike the server's default.
const std::string& database() {
    static const std::string conninfo = [] {
        auto& server = candor_test::server();
        if (!server.psql("CREATE DATABASE candor_icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' "
                         "LOCALE 'C.UTF-8'"))
            throw std::runtime_error("cannot create the ICU-collated test database");
        return server.conninfo() + " dbname=candor_icu";
    }();
    return conninfo;
}

std::shared_ptr<sc::sql_database> open(const std::string& conninfo) {
    pq::pool_options o;
    o.conninfo = conninfo;
    o.max_connections = 4;
    return candor::postgres::open_sql_database(std::make_shared<pq::pool>(pool_thread().io.get_executor(), o));
}

// One schema of the test database per backend: an empty database for each test.
class postgres_backend final : public backend {
public:
    postgres_backend() {
        static std::atomic<int> schemas{0};
        schema_ = "t" + std::to_string(++schemas);
        open(database())->execute("CREATE SCHEMA " + schema_, {}).value();
    }
    std::shared_ptr<sc::sql_database> connect() override {
        return open(database() + " options='-csearch_path=" + schema_ + "'");
    }

private:
    std::string schema_;
};

backend_kind postgres_kind() {
    return {"postgres", [] { return std::unique_ptr<backend>(std::make_unique<postgres_backend>()); }};
}

// The message a refused write fails with, or "" when it was not refused.
std::string refusal(sc::sql_database& db, const std::string& sql) {
    auto r = db.execute(sql, {});
    return r ? std::string() : r.error().message;
}

std::vector<std::string> ids_of(const boost::json::array& items) {
    std::vector<std::string> out;
    for (const auto& i : items) out.emplace_back(i.at("id").as_string());
    return out;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Postgres, SqlCollection, testing::Values(postgres_kind()), backend_name);

TEST(SqlCollectionPostgres, TheGuardRefusesPlainWritesWithTheSameMessageAsOnSqlite) {
    postgres_backend pg_db;
    sqlite_backend lite_db;
    fixture pg_fx(pg_db);
    fixture lite_fx(lite_db);
    gen g{std::mt19937(1)};
    ASSERT_TRUE(sc::insert_rows(*pg_fx.db, items_table(), {g.row(1)}));
    const std::string insert =
        "INSERT INTO items(id, grp, n, x, flag, owner, day, candor_from) "
        "VALUES('r-09999', 'g', 1, 1.0, 0, NULL, '2026-01-01', 0)";
    const std::string expected =
        "candor: table items is versioned for pinned snapshots; write it through candor::sql_collection "
        "(insert_rows, update_row, delete_row), never with a plain INSERT";
    const auto on_pg = refusal(*pg_db.connect(), insert);
    const auto on_sqlite = refusal(*lite_db.connect(), insert);
    EXPECT_NE(on_pg.find(expected), std::string::npos) << on_pg;
    EXPECT_NE(on_sqlite.find(expected), std::string::npos) << on_sqlite;
    // TRUNCATE fires no row trigger; a statement trigger refuses it too.
    const auto truncate = refusal(*pg_db.connect(), "TRUNCATE items");
    EXPECT_NE(truncate.find("never with a plain TRUNCATE"), std::string::npos) << truncate;
    EXPECT_NE(refusal(*pg_db.connect(), "UPDATE items SET n = 5").find("never with a plain UPDATE"), std::string::npos);
    EXPECT_NE(refusal(*pg_db.connect(), "DELETE FROM items").find("never with a plain DELETE"), std::string::npos);
    // Nothing changed, and the library still writes.
    ASSERT_TRUE(sc::update_row(*pg_db.connect(), items_table(), boost::json::value(row_id(1)), {{"n", 77}}));
    const auto [items, complete] = pg_fx.walk(10);
    EXPECT_TRUE(complete);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].at("n"), 77);
}

TEST(SqlCollectionPostgres, CreateTableRunsAtOnceFromSeveralReplicas) {
    // Replicas start together against one empty database: each calls create_table on its own
    // pool at the same moment. Without the advisory lock, concurrent CREATE TABLE IF NOT EXISTS
    // of one name fails in one of them (pg_type's unique index).
    constexpr int replicas = 4;
    for (int round = 0; round < 8; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        postgres_backend b;
        std::vector<std::shared_ptr<sc::sql_database>> pools;
        for (int i = 0; i < replicas; ++i) pools.push_back(b.connect());
        // Connected first, so that the statements, not the connecting, run together.
        for (auto& p : pools) ASSERT_TRUE(p->query("SELECT 1", {}, [](const sc::sql_row&) { return true; }));
        std::barrier start(replicas);
        std::vector<std::string> failures(replicas);
        std::vector<std::thread> threads;
        for (int i = 0; i < replicas; ++i) {
            threads.emplace_back([&, i] {
                start.arrive_and_wait();
                if (auto r = sc::create_table(*pools[static_cast<std::size_t>(i)], items_table()); !r)
                    failures[static_cast<std::size_t>(i)] = r.error().message;
            });
        }
        for (auto& t : threads) t.join();
        for (const auto& f : failures) EXPECT_EQ(f, "");
        // One table, one sequence row, one writer row: it works.
        gen g{std::mt19937(static_cast<unsigned>(round))};
        ASSERT_TRUE(sc::insert_rows(*pools[0], items_table(), {g.row(1), g.row(2)}));
        EXPECT_EQ(sc::current_sequence(*pools[1], items_table()).value(), 1);
    }
}

TEST(SqlCollectionPostgres, AWalkStaysOneSnapshotWhileAnotherConnectionWrites) {
    // The writer sets `n` of every row to k and adds one row with n = k, in one transaction
    // (k = 1, 2, …). So a walk that reads one snapshot sees one value of n on every item, and
    // exactly 30 + k items; a walk that mixed two snapshots would not.
    postgres_backend b;
    fixture fx(b);
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 30; ++i) {
        boost::json::object r{{"id", row_id(i)},  {"grp", "a"},         {"n", 0}, {"x", 0.5}, {"flag", false},
                              {"owner", nullptr}, {"day", "2026-01-01"}};
        rows.push_back(std::move(r));
    }
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), rows));

    std::atomic<bool> stop{false};
    std::atomic<int> written{0};
    std::string writer_failure;
    std::thread writer([&, db = b.connect()] {
        std::vector<std::string> ids;
        for (int i = 1; i <= 30; ++i) ids.push_back(row_id(i));
        for (int k = 1; !stop && k < 400; ++k) {
            auto r = db->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
                for (const auto& id : ids)
                    if (auto u = sc::update_row(tx, items_table(), boost::json::value(id), {{"n", k}}); !u)
                        return u.error();
                boost::json::object fresh{
                    {"id", row_id(1000 + k)}, {"grp", "b"},         {"n", k}, {"x", 1.5}, {"flag", true},
                    {"owner", "u1"},          {"day", "2026-02-01"}};
                return sc::insert_rows(tx, items_table(), {fresh});
            });
            if (!r) {
                writer_failure = r.error().message;
                return;
            }
            ids.push_back(row_id(1000 + k));
            written = k;
        }
    });

    int walks_across_writes = 0;
    for (int w = 0; w < 300 && walks_across_writes < 3; ++w) {
        const int before = written;
        const auto [items, complete] = fx.walk(2);
        const int after = written;
        walks_across_writes += after > before;
        ASSERT_TRUE(complete);
        ASSERT_FALSE(items.empty());
        const auto n = items[0].at("n").as_int64();
        std::set<std::string> ids;
        for (const auto& i : items) {
            EXPECT_EQ(i.at("n").as_int64(), n) << "a walk mixed two snapshots";
            ids.insert(std::string(i.at("id").as_string()));
        }
        EXPECT_EQ(ids.size(), items.size());
        EXPECT_EQ(items.size(), static_cast<std::size_t>(30 + n));
        EXPECT_GE(n, before);
    }
    stop = true;
    writer.join();
    EXPECT_EQ(writer_failure, "");
    EXPECT_EQ(walks_across_writes, 3) << "the writer seldom wrote during a walk: the test proved little";
}

TEST(SqlCollectionPostgres, TheFilterLanguageMeansTheSameOnBothEngines) {
    postgres_backend pg_db;
    sqlite_backend lite_db;
    fixture pg_fx(pg_db);
    fixture lite_fx(lite_db);
    // Text in mixed case, punctuation and non-ASCII (the ICU collation would order these
    // otherwise than bytes do), nulls, numbers, booleans, and random rows.
    std::vector<boost::json::object> rows;
    const char* texts[] = {"a", "B", "b", "A", "_x", "-y", "\xC3\xA4", "Z", "ab", "Ab", "aB"};
    int i = 0;
    for (const char* t : texts) {
        ++i;
        boost::json::object r{{"id", std::string(t) + "-" + std::to_string(i)},
                              {"grp", t},
                              {"n", i % 4},
                              {"x", i * 0.25},
                              {"flag", i % 2 == 0},
                              {"day", "2026-01-1" + std::to_string(i % 10)}};
        r["owner"] = i % 3 == 0 ? boost::json::value(nullptr) : boost::json::value(i % 3 == 1 ? "U1" : "u1");
        rows.push_back(std::move(r));
    }
    gen g{std::mt19937(42)};
    for (int k = 1; k <= 60; ++k) rows.push_back(g.row(k));
    ASSERT_TRUE(sc::insert_rows(*pg_fx.db, items_table(), rows));
    ASSERT_TRUE(sc::insert_rows(*lite_fx.db, items_table(), rows));

    const char* fixed[] = {
        R"({})",
        R"({"grp": "b"})",
        R"({"grp": "B"})",
        R"({"grp": {"lt": "a"}})",
        R"({"grp": {"gte": "B", "lte": "b"}})",
        R"({"grp": {"gte": "A", "lt": "B"}})",  // the prefix "A", as a range: case-sensitive
        R"({"grp": {"gte": "a", "lt": "b"}})",  // the prefix "a"
        R"({"grp": {"gt": "Z"}})",
        R"({"grp": {"in": ["a", "A", "\u00e4"]}})",
        R"({"grp": {"in": []}})",
        R"({"grp": {"ne": "a"}})",
        R"({"owner": null})",
        R"({"owner": {"ne": null}})",
        R"({"owner": {"ne": "u1"}})",
        R"({"owner": "U1"})",
        R"({"owner": {"lt": "u"}})",
        R"({"owner": {"in": ["u1", "u2"]}})",
        R"({"id": {"gt": "a"}})",
        R"({"x": {"gte": 1.5}})",
        R"({"x": {"lt": 2}})",
        R"({"n": {"ne": 2}})",
        R"({"flag": true})",
        R"({"flag": {"ne": false}})",
        R"({"day": {"lt": "2026-01-15"}})",
        R"({"or": [{"owner": null}, {"grp": {"lt": "B"}}]})",
        R"({"and": [{"owner": {"ne": "U1"}}, {"flag": false}]})",
    };
    std::vector<boost::json::object> filters;
    for (const char* f : fixed) filters.push_back(boost::json::parse(f).as_object());
    for (int k = 0; k < 80; ++k) filters.push_back(g.filter(2));

    int nonempty = 0;
    for (const auto& f : filters) {
        SCOPED_TRACE(boost::json::serialize(f));
        std::vector<std::string> expected;  // bytewise key order, as compare_keys has it
        for (const auto& r : rows)
            if (matches(r, f)) expected.emplace_back(r.at("id").as_string());
        std::sort(expected.begin(), expected.end());
        const boost::json::object query{{"filter", f}};
        const auto [on_pg, pg_complete] = pg_fx.walk(7, {}, query);
        const auto [on_sqlite, sqlite_complete] = lite_fx.walk(7, {}, query);
        EXPECT_TRUE(pg_complete);
        EXPECT_TRUE(sqlite_complete);
        EXPECT_EQ(ids_of(on_pg), expected);
        EXPECT_EQ(on_pg, on_sqlite);  // the same items, values and all, in the same order
        nonempty += !expected.empty();
    }
    EXPECT_GT(nonempty, 40);
}

TEST(SqlCollectionPostgres, AReCheckAndItsWriteAreOneStepAcrossConnections) {
    // Two replicas act on the same row at once, each writing only if the row still holds what
    // its check wants (n == 0). A holds the table's writer lock while B's update_current
    // starts; B must wait for A's commit and then read A's version (so it writes nothing), not
    // read the old version first and write over A's afterwards.
    postgres_backend b;
    fixture fx(b);
    gen g{std::mt19937(7)};
    auto row = g.row(1);
    row["n"] = 0;
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {row}));
    auto replica_a = b.connect();
    auto replica_b = b.connect();
    auto monitor = b.connect();
    const boost::json::value key(row_id(1));

    std::promise<void> a_holds_the_lock;
    std::optional<std::int64_t> b_saw;
    std::string b_failure;
    std::thread other([&] {
        a_holds_the_lock.get_future().wait();
        auto r = sc::update_current(
            *replica_b, items_table(), key,
            [&](const std::optional<boost::json::object>& current) -> std::optional<boost::json::object> {
                if (current) b_saw = current->at("n").as_int64();
                if (!current || current->at("n").as_int64() != 0) return std::nullopt;
                return boost::json::object{{"n", 2}};
            });
        if (!r) b_failure = r.error().message;
        else if (*r) b_failure = "B wrote over A's version";
    });
    auto a = replica_a->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        auto w = sc::update_current(
            tx, items_table(), key,
            [](const std::optional<boost::json::object>& current) -> std::optional<boost::json::object> {
                if (!current || current->at("n").as_int64() != 0) return std::nullopt;
                return boost::json::object{{"n", 1}};
            });
        if (!w) return w.error();
        EXPECT_TRUE(*w);
        a_holds_the_lock.set_value();
        // Commit only once B waits on a lock: the event itself, read from the server. The bound
        // only keeps a broken server from hanging the test.
        for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
             std::chrono::steady_clock::now() < give_up;) {
            std::int64_t waiting = 0;
            auto q = monitor->query(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = "
                "current_database()",
                {}, [&](const sc::sql_row& r) {
                    waiting = std::get<std::int64_t>(r.at(0));
                    return false;
                });
            if (!q) return q.error();
            if (waiting > 0) return {};
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return sc::db_error{"B never waited for A's lock"};
    });
    other.join();
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(b_failure, "");
    ASSERT_TRUE(b_saw.has_value());
    EXPECT_EQ(*b_saw, 1) << "B's check read the version A replaced";
    // One write happened: the row's current version is A's, and it has two versions in all.
    auto current = sc::read_current(*fx.db, items_table(), key);
    ASSERT_TRUE(current && *current);
    EXPECT_EQ((**current).at("n").as_int64(), 1);
    std::int64_t versions = 0;
    const sc::sql_value id[] = {row_id(1)};
    ASSERT_TRUE(fx.db->query("SELECT count(*) FROM items WHERE id = ?", id, [&](const sc::sql_row& r) {
        versions = std::get<std::int64_t>(r.at(0));
        return false;
    }));
    EXPECT_EQ(versions, 2);
}
