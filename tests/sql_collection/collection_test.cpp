// SPDX-License-Identifier: BSL-1.0
// SQL collections end to end, in process: pages against a brute-force filter over random data
// (seeded property test), writes between pages (pinned snapshots), visibility per principal,
// hostile values, on a real database: each test runs on every backend its binary instantiates
// (SQLite in sqlite_backend_test.cpp; PostgreSQL as well in postgres/).
//
// Reproduce a failing case with CANDOR_PROPERTY_SEED=<seed printed in the failure>.
#include <candor/sql_collection/collection.hpp>

#include "sql_collection/support.hpp"

#include <boost/describe/class.hpp>

#include <atomic>
#include <map>
#include <set>
#include <thread>

using namespace candor::test;
using namespace candor::test::sql;

TEST_P(SqlCollection, WalksEqualTheBruteForceFilterOverTheirSnapshotDespiteWritesBetweenPages) {
    int walks_with_items = 0, walks_with_writes = 0;
    for (unsigned c = 0; c < case_count(); ++c) {
        const unsigned seed = first_seed() + c;
        SCOPED_TRACE("CANDOR_PROPERTY_SEED=" + std::to_string(seed));
        gen g{std::mt19937(seed)};
        auto fresh = GetParam().make();  // an empty database for each case
        fixture fx(*fresh);
        std::map<std::string, boost::json::object> rows;
        const int n = static_cast<int>(g.pick(120));
        std::vector<boost::json::object> batch;
        for (int i = 1; i <= n; ++i) {
            auto r = g.row(i);
            rows[std::string(r["id"].as_string())] = r;
            batch.push_back(std::move(r));
        }
        ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), batch));

        const auto f = g.filter(2);
        std::vector<std::string> expected;  // the snapshot at the first page, filtered, in key order
        for (const auto& [id, r] : rows)
            if (matches(r, f)) expected.push_back(id);

        const std::size_t size = 1 + g.pick(12);
        std::optional<std::string> cursor;
        std::vector<std::string> delivered;
        int next_id = n + 1;
        bool wrote = false;
        for (int pages = 0;; ++pages) {
            ASSERT_LT(pages, 200);
            auto p = fx.serve({{"filter", f}}, cursor, size);
            const auto env = ce::seal(p.result, "list_items").value();
            ASSERT_EQ(at(env, "status"), p.ended ? "complete" : "partial") << boost::json::serialize(env);
            for (const auto& item : env.at("data").as_array()) delivered.emplace_back(item.at("id").as_string());
            if (p.ended) {
                ASSERT_TRUE(has(env, "snapshot_token"));
                auto claims = ev::open_snapshot_token(*fx.keys, std::string(at(env, "snapshot_token").as_string()));
                ASSERT_TRUE(claims);
                EXPECT_TRUE(claims->complete);
                auto missing = fx.store->uncovered(claims->walk, expected, std::chrono::system_clock::now());
                ASSERT_TRUE(missing);
                EXPECT_TRUE(missing->empty());
                break;
            }
            ASSERT_EQ(reason_codes(env), std::vector<std::string>{"MORE_PAGES_AVAILABLE"});
            ASSERT_TRUE(p.next_cursor);
            cursor = p.next_cursor;
            // Writes between pages: updates (also of rows ahead and behind), deletes-by-update,
            // inserts. The pinned walk must not see any of them.
            for (unsigned w = g.pick(4); w > 0; --w) {
                wrote = true;
                if (g.pick(2) || rows.empty()) {
                    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {g.row(next_id++)}));
                } else {
                    auto it = rows.begin();
                    std::advance(it, g.pick(static_cast<unsigned>(rows.size())));
                    boost::json::object changes{
                        {"grp", g.value_for("grp")}, {"n", g.value_for("n")}, {"owner", g.value_for("owner")}};
                    auto ok =
                        fx.db->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
                            auto r = sc::update_row(tx, items_table(), boost::json::value(it->first), changes);
                            if (!r) return r.error();
                            return {};
                        });
                    ASSERT_TRUE(ok);
                }
            }
        }
        EXPECT_EQ(delivered, expected) << "filter " << boost::json::serialize(f) << " page size " << size;
        walks_with_items += !expected.empty();
        walks_with_writes += wrote;
    }
    // The cases reached what they claim to test.
    EXPECT_GT(walks_with_items, 20);
    EXPECT_GT(walks_with_writes, 10);
}

TEST_P(SqlCollection, NewWalkSeesWritesAndUpdatedValues) {
    fixture fx(*backend_);
    gen g{std::mt19937(7)};
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {g.row(1), g.row(2)}));
    auto ok = fx.db->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        auto r = sc::update_row(tx, items_table(), boost::json::value(row_id(2)), {{"owner", nullptr}, {"n", 42}});
        if (!r) return r.error();
        EXPECT_TRUE(*r);
        return {};
    });
    ASSERT_TRUE(ok);
    auto p = fx.serve({{"filter", {{"n", 42}}}}, std::nullopt, 10);
    const auto env = ce::seal(p.result, "list_items").value();
    ASSERT_EQ(env.at("data").as_array().size(), 1u);
    EXPECT_EQ(at(env.at("data").as_array()[0], "owner"), nullptr);
    auto current = sc::read_current(*fx.db, items_table(), boost::json::value(row_id(2)));
    ASSERT_TRUE(current && *current);
    EXPECT_EQ((**current).at("n"), 42);
}

TEST_P(SqlCollection, VisibilityRestrictsRowsAndSaysSoOnEveryPage) {
    fixture fx(*backend_, [](const mcp::principal& p) -> std::optional<boost::json::value> {
        if (p.id == "admin") return std::nullopt;
        return boost::json::value(boost::json::object{{"grp", p.id}});
    });
    std::vector<boost::json::object> batch;
    for (int i = 1; i <= 30; ++i) {
        boost::json::object r{{"id", row_id(i)},    {"grp", i % 3 == 0 ? "b" : "a"},
                              {"n", i % 10},        {"x", 1.0},
                              {"flag", false},      {"owner", nullptr},
                              {"day", "2026-01-01"}};
        batch.push_back(std::move(r));
    }
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), batch));

    auto walk = [&](const std::string& who, const boost::json::object& filter, std::vector<std::string>& codes) {
        std::vector<std::string> ids;
        std::optional<std::string> cursor;
        for (;;) {
            auto p = fx.serve({{"filter", filter}}, cursor, 4, who);
            const auto env = ce::seal(p.result, "list_items").value();
            for (const auto& c : reason_codes(env)) codes.push_back(c);
            for (const auto& item : env.at("data").as_array()) ids.emplace_back(item.at("id").as_string());
            if (!p.next_cursor) {
                if (has(env, "snapshot_token")) {
                    auto claims = ev::open_snapshot_token(*fx.keys, std::string(at(env, "snapshot_token").as_string()));
                    codes.push_back(claims && claims->complete ? "TOKEN_COMPLETE" : "TOKEN_INCOMPLETE");
                }
                return ids;
            }
            cursor = p.next_cursor;
        }
    };
    std::vector<std::string> codes;
    auto ids = walk("a", {}, codes);
    EXPECT_EQ(ids.size(), 20u);
    EXPECT_EQ(std::count(codes.begin(), codes.end(), "VISIBILITY_RESTRICTED"), 5);  // every one of 5 pages
    EXPECT_EQ(codes.back(), "TOKEN_INCOMPLETE");

    // Nothing hidden in the requested scope: no restriction, a complete token.
    codes.clear();
    ids = walk("a", {{"grp", "a"}}, codes);
    EXPECT_EQ(ids.size(), 20u);
    EXPECT_EQ(std::count(codes.begin(), codes.end(), "VISIBILITY_RESTRICTED"), 0);
    EXPECT_EQ(codes.back(), "TOKEN_COMPLETE");

    // An empty page can still be restricted: "nothing seen" is not "nothing exists".
    codes.clear();
    ids = walk("a", {{"grp", "b"}}, codes);
    EXPECT_TRUE(ids.empty());
    EXPECT_EQ(codes.front(), "VISIBILITY_RESTRICTED");

    codes.clear();
    ids = walk("admin", {}, codes);
    EXPECT_EQ(ids.size(), 30u);
    EXPECT_EQ(codes.back(), "TOKEN_COMPLETE");
}

TEST_P(SqlCollection, FilterIssuesAreAnErrorEnvelopeBeforeAnythingIsRead) {
    fixture fx(*backend_);
    auto p =
        fx.serve({{"filter", {{"and", boost::json::array{boost::json::object{{"colour", "red"}}}}}}}, std::nullopt, 5);
    const auto env = ce::seal(p.result, "list_items").value();
    EXPECT_EQ(at(env, "status"), "error");
    EXPECT_EQ(first_error_code(env), "FILTER_UNKNOWN_FIELD");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "path"), "/filter/and/0/colour");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "repairable"), true);
}

struct items_query {
    std::optional<std::string> grp;
    std::optional<bool> flag;
};
BOOST_DESCRIBE_STRUCT(items_query, (), (grp, flag))

TEST_P(SqlCollection, ATypedQueryReplacesTheFilterArgument) {
    fixture fx(*backend_);
    sc::collection_spec spec;
    spec.table = items_table();
    pg::collection_options o;
    o.keys = fx.keys;
    o.evidence = fx.store;
    std::size_t converted = 0;
    fx.tool = sc::make_collection<items_query>(
        fx.db, std::move(spec), mcp::tool_info("list_items", "Items."), o,
        [&converted](const items_query& q) -> boost::json::value {
            ++converted;
            boost::json::object f;
            if (q.grp) f["grp"] = *q.grp;
            if (q.flag) f["flag"] = *q.flag;
            return f;
        },
        "items-query/1");

    // The input schema is the struct's contract plus the paging arguments, without `filter`.
    const auto& schema = fx.tool->info().input_schema;
    const auto& props = schema.at("properties").as_object();
    EXPECT_TRUE(props.contains("grp"));
    EXPECT_TRUE(props.contains("flag"));
    EXPECT_TRUE(props.contains("cursor"));
    EXPECT_TRUE(props.contains("page_size"));
    EXPECT_FALSE(props.contains("filter"));
    EXPECT_EQ(schema.at("additionalProperties"), false);

    gen g{std::mt19937(5)};
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 60; ++i) rows.push_back(g.row(i));
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), rows));
    const std::string grp(rows[0].at("grp").as_string());
    std::size_t expected = 0;
    for (const auto& r : rows) expected += r.at("grp").as_string() == grp && r.at("flag") == true;
    ASSERT_GT(expected, 0u) << "the seed gives rows that match";

    // A walk of the typed query sees exactly the rows the query's filter selects.
    std::size_t seen = 0;
    std::optional<std::string> cursor;
    for (int pages = 0; pages < 100; ++pages) {
        auto p = fx.serve({{"grp", grp}, {"flag", true}}, cursor, 7);
        const auto env = ce::seal(p.result, "list_items").value();
        for (const auto& item : env.at("data").as_array()) {
            EXPECT_EQ(at(item, "grp").as_string(), grp);
            EXPECT_EQ(at(item, "flag"), true);
            ++seen;
        }
        if (p.ended) {
            EXPECT_EQ(at(env, "complete"), true);
            break;
        }
        cursor = p.next_cursor;
    }
    EXPECT_EQ(seen, expected);
    EXPECT_GT(converted, 0u);
}

TEST_P(SqlCollection, HostileValuesMatchOnlyThemselves) {
    fixture fx(*backend_);
    gen g{std::mt19937(3)};
    auto plain = g.row(1);
    auto hostile = g.row(2);
    hostile["owner"] = "u1' OR 1=1 --";
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {plain, hostile}));
    auto count = [&](boost::json::value owner) {
        auto p = fx.serve({{"filter", {{"owner", owner}}}}, std::nullopt, 10);
        const auto env = ce::seal(p.result, "list_items").value();
        EXPECT_EQ(at(env, "status"), "complete") << boost::json::serialize(env);
        return env.at("data").as_array().size();
    };
    EXPECT_EQ(count(boost::json::string("' OR 1=1 --")), 0u);
    EXPECT_EQ(count(boost::json::string("x' OR '1'='1")), 0u);
    EXPECT_EQ(count(boost::json::string("u1' OR")), 0u);         // a prefix is another value
    EXPECT_EQ(count(boost::json::string("u1' OR 1=1 --")), 1u);  // the exact text matches
    EXPECT_EQ(count(boost::json::string("\"; DROP TABLE items; --")), 0u);
    // The table is intact.
    auto p = fx.serve({}, std::nullopt, 10);
    EXPECT_EQ(at(ce::seal(p.result, "list_items").value(), "data").as_array().size(), 2u);
}

TEST_P(SqlCollection, NulBytesAreDataWhereTheDatabaseStoresThem) {
    fixture fx(*backend_);
    gen g{std::mt19937(3)};
    auto with_nul = g.row(2);
    with_nul["owner"] = std::string("u1\0' OR 1=1 --", 14);
    auto stored = sc::insert_rows(*fx.db, items_table(), {g.row(1), with_nul});
    if (fx.db->dialect() == candor::store::sql_dialect::postgres) {
        // PostgreSQL's text holds no NUL: the write is refused, and nothing of it stays.
        EXPECT_FALSE(stored);
        EXPECT_TRUE(fx.walk(10).first.empty());
        return;
    }
    ASSERT_TRUE(stored);
    auto count = [&](boost::json::value owner) {
        auto p = fx.serve({{"filter", {{"owner", owner}}}}, std::nullopt, 10);
        const auto env = ce::seal(p.result, "list_items").value();
        EXPECT_EQ(at(env, "status"), "complete") << boost::json::serialize(env);
        return env.at("data").as_array().size();
    };
    EXPECT_EQ(count(boost::json::string(std::string("u1\0", 3))), 0u);  // a prefix with NUL is another value
    EXPECT_EQ(count(boost::json::string(std::string("u1\0' OR 1=1 --", 14))), 1u);  // the exact bytes match
    EXPECT_EQ(count(boost::json::string(std::string(256, '\0'))), 0u);
}

TEST_P(SqlCollection, WritesThatBypassTheVersioningAreRefusedSoAWalkStaysOneSnapshot) {
    fixture fx(*backend_);
    gen g{std::mt19937(11)};
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 40; ++i) rows.push_back(g.row(i));
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), rows));
    const auto [before, before_complete] = fx.walk(40);
    ASSERT_TRUE(before_complete);
    ASSERT_EQ(before.size(), 40u);

    // Another program writes the same database behind the tool's back, between the walk's pages.
    auto other = backend_->connect();
    const char* bypasses[] = {
        "UPDATE items SET n = n + 1000 WHERE id = 'r-00015'",
        "DELETE FROM items WHERE id = 'r-00020'",
        "INSERT INTO items(id, grp, n, x, flag, owner, day, candor_from) "
        "VALUES('r-00025x', 'g', 1, 1.0, 0, NULL, '2026-01-01', 0)",
        "UPDATE items SET candor_to = 1 WHERE id = 'r-00030'",
        "DELETE FROM items",
    };
    // A versioned writer on its own connection (another process using the library) may write.
    auto library = backend_->connect();
    std::size_t refused = 0;
    const auto [during, complete] = fx.walk(7, [&] {
        for (const char* sql : bypasses) {
            auto r = other->execute(sql, {});
            if (!r && r.error().message.find("versioned") != std::string::npos) ++refused;
        }
        ASSERT_TRUE(sc::update_row(*library, items_table(), boost::json::value("r-00016"), {{"n", 5000}}));
        ASSERT_TRUE(sc::delete_row(*library, items_table(), boost::json::value("r-00017")));
    });
    EXPECT_EQ(refused, 5u * 5u);  // every bypass, after each of the five pages before the last
    EXPECT_TRUE(complete);
    EXPECT_EQ(during, before) << "the walk claims complete over data it did not see as one snapshot";

    // A new walk sees the versioned writes, and only those.
    const auto [after, after_complete] = fx.walk(40);
    EXPECT_TRUE(after_complete);
    ASSERT_EQ(after.size(), 39u);
    for (const auto& item : after) {
        EXPECT_NE(item.at("id"), "r-00017");
        if (item.at("id") == "r-00016") {
            EXPECT_EQ(item.at("n"), 5000);
        }
        if (item.at("id") == "r-00015") {
            EXPECT_EQ(item.at("n"), before[14].at("n"));
        }
    }
}

TEST_P(SqlCollection, APageStopsWaitingForABusyDatabaseAtItsDeadline) {
    fixture fx(*backend_);
    gen g{std::mt19937(9)};
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {g.row(1), g.row(2), g.row(3)}));
    auto first = fx.serve({}, std::nullopt, 1);
    ASSERT_TRUE(first.next_cursor);
    // The source's worker is busy (a statement of another call that takes long): the page
    // stops waiting at its deadline and says so, with no rows (without the race it would wait
    // and deliver the next row); nothing of the walk is lost.
    std::atomic<bool> release{false};
    boost::asio::post(fx.worker->executor(), [&release] {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    // Released from elsewhere: the test's io_context runs until the abandoned read is back.
    std::thread releaser([&release] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        release = true;
    });
    auto late =
        fx.serve({}, first.next_cursor, 1, "alice", std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
    releaser.join();
    const auto env = ce::seal(late.result, "list_items").value();
    EXPECT_EQ(reason_codes(env), std::vector<std::string>{"TIME_BUDGET_EXCEEDED"}) << boost::json::serialize(env);
    EXPECT_TRUE(env.at("data").as_array().empty());
    ASSERT_TRUE(late.next_cursor);
    // The walk goes on from where it stopped.
    std::vector<std::string> ids;
    const auto first_env = ce::seal(first.result, "list_items").value();
    for (const auto& item : first_env.at("data").as_array()) ids.emplace_back(item.at("id").as_string());
    auto cursor = late.next_cursor;
    bool complete = false;
    for (int pages = 0; pages < 10 && cursor; ++pages) {
        auto p = fx.serve({}, cursor, 1);
        const auto e = ce::seal(p.result, "list_items").value();
        for (const auto& item : e.at("data").as_array()) ids.emplace_back(item.at("id").as_string());
        if (p.ended) {
            complete = at(e, "complete") == true;
            break;
        }
        cursor = p.next_cursor;
    }
    EXPECT_EQ(ids, (std::vector<std::string>{row_id(1), row_id(2), row_id(3)}));
    EXPECT_TRUE(complete);
}

TEST_P(SqlCollection, DeleteRowEndsARowForNewWalksOnly) {
    fixture fx(*backend_);
    gen g{std::mt19937(3)};
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {g.row(1), g.row(2), g.row(3)}));
    bool deleted = false;
    const auto [during, complete] = fx.walk(1, [&] {
        if (deleted) return;
        deleted = true;
        auto r = sc::delete_row(*fx.db, items_table(), boost::json::value(row_id(3)));
        ASSERT_TRUE(r);
        EXPECT_TRUE(*r);
    });
    EXPECT_TRUE(complete);
    EXPECT_EQ(during.size(), 3u);  // the walk's snapshot still holds row 3
    EXPECT_EQ(fx.walk(10).first.size(), 2u);
    auto again = sc::delete_row(*fx.db, items_table(), boost::json::value(row_id(3)));
    ASSERT_TRUE(again);
    EXPECT_FALSE(*again);
    auto current = sc::read_current(*fx.db, items_table(), boost::json::value(row_id(3)));
    ASSERT_TRUE(current);
    EXPECT_FALSE(*current);
}

TEST_P(SqlCollection, VersionedWritesJoinTheCallersTransaction) {
    fixture fx(*backend_);
    gen g{std::mt19937(5)};
    // Rolled back with the caller's transaction: neither the insert nor the update remains.
    auto failed = fx.db->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        EXPECT_TRUE(sc::insert_rows(tx, items_table(), {g.row(1)}));
        EXPECT_TRUE(sc::update_row(tx, items_table(), boost::json::value(row_id(1)), {{"n", 7}}));
        return sc::db_error{"changed my mind"};
    });
    EXPECT_FALSE(failed);
    EXPECT_TRUE(fx.walk(10).first.empty());
    // Committed with it.
    ASSERT_TRUE(fx.db->transaction([&](sc::sql_database& tx) -> boost::system::result<void, sc::db_error> {
        EXPECT_TRUE(sc::insert_rows(tx, items_table(), {g.row(1)}));
        EXPECT_TRUE(sc::update_row(tx, items_table(), boost::json::value(row_id(1)), {{"n", 7}}));
        return {};
    }));
    const auto [items, complete] = fx.walk(10);
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].at("n"), 7);
}

// A page is one statement for its rows — the first page's pin and a caller's hidden rows folded
// in — and one call to keep its ids as evidence (one statement on PostgreSQL, one in-process
// transaction on SQLite), whether the walk starts, goes on or ends.
TEST_P(SqlCollection, APageIsOneStatementAndOneCallToKeepItsEvidence) {
    fixture fx(
        *backend_,
        [](const mcp::principal& p) -> std::optional<boost::json::value> {
            if (p.id == "admin") return std::nullopt;
            return boost::json::value(boost::json::object{{"grp", p.id}});
        },
        true);
    std::vector<boost::json::object> batch;
    for (int i = 1; i <= 10; ++i)
        batch.push_back({{"id", row_id(i)},
                         {"grp", i % 3 == 0 ? "b" : "a"},
                         {"n", i},
                         {"x", 1.0},
                         {"flag", false},
                         {"owner", nullptr},
                         {"day", "2026-01-01"}});
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), batch));
    (void)fx.serve({}, std::nullopt, 50, "admin");  // the first page after start purges old walks

    for (const std::string who : {"a", "admin"}) {
        SCOPED_TRACE(who);
        std::vector<int> calls;  // per page
        std::vector<std::string> codes, ids;
        std::optional<std::string> cursor;
        for (int pages = 0; pages < 10; ++pages) {
            const int before = fx.counted->calls;
            auto p = fx.serve({}, cursor, 3, who);
            calls.push_back(fx.counted->calls - before);
            const auto env = ce::seal(p.result, "list_items").value();
            for (const auto& c : reason_codes(env)) codes.push_back(c);
            for (const auto& item : env.at("data").as_array()) ids.emplace_back(item.at("id").as_string());
            if (!p.next_cursor) {
                EXPECT_TRUE(has(env, "snapshot_token"));
                break;
            }
            cursor = p.next_cursor;
        }
        EXPECT_EQ(calls, std::vector<int>(calls.size(), 2));
        EXPECT_EQ(ids.size(), who == "a" ? 7u : 10u);
        EXPECT_EQ(calls.size(), who == "a" ? 3u : 4u);  // 3 items a page, the look-ahead item says when to stop
        EXPECT_EQ(std::count(codes.begin(), codes.end(), "VISIBILITY_RESTRICTED"), who == "a" ? 3 : 0);
    }
}

// A table an older spec created gets the fields a newer spec adds, on every version of every
// row, and then serves walks and writes as any table of the newer spec.
TEST_P(SqlCollection, AFieldAddedLaterIsFilledOnEveryVersionOfEveryRow) {
    auto db = backend_->connect();
    auto older = items_table();
    older.fields.pop_back();  // without "day"
    ASSERT_TRUE(sc::create_table(*db, older));
    gen g{std::mt19937(11)};
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 5; ++i) {
        auto r = g.row(i);
        r.erase("day");
        rows.push_back(std::move(r));
    }
    ASSERT_TRUE(sc::insert_rows(*db, older, rows));
    ASSERT_TRUE(sc::update_row(*db, older, boost::json::value(row_id(2)), {{"n", 99}}));  // a second version

    std::vector<std::string> seen;  // the rows the fill was asked for
    auto fill = [&](const sc::field& f, const boost::json::object& row) {
        EXPECT_EQ(f.name, "day");
        EXPECT_FALSE(row.contains("day"));
        seen.emplace_back(row.at("id").as_string());
        return boost::json::value("2026-0" + std::string(1, row.at("id").as_string().back()) + "-01");
    };
    auto added = sc::add_missing_fields(*db, items_table(), fill);
    ASSERT_TRUE(added) << added.error().message;
    EXPECT_EQ(*added, std::vector<std::string>{"day"});
    EXPECT_EQ(seen.size(), 6u);  // five rows, one of them in two versions
    std::int64_t unfilled = -1;
    ASSERT_TRUE(db->query("SELECT count(*) FROM items WHERE day IS NULL", {}, [&](const sc::sql_row& r) {
        unfilled = std::get<std::int64_t>(r[0]);
        return false;
    }));
    EXPECT_EQ(unfilled, 0);
    // Again: nothing to add, nothing filled.
    seen.clear();
    auto again = sc::add_missing_fields(*db, items_table(), fill);
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->empty());
    EXPECT_TRUE(seen.empty());
    // The table now serves the newer spec: plain writes stay refused, versioned ones work.
    EXPECT_FALSE(db->execute("UPDATE items SET day = '2027-01-01'", {}));
    fixture fx(*backend_);
    ASSERT_TRUE(sc::insert_rows(*fx.db, items_table(), {g.row(6)}));
    const auto [items, complete] = fx.walk(10);
    EXPECT_TRUE(complete);
    ASSERT_EQ(items.size(), 6u);
    EXPECT_EQ(items[1].at("day"), "2026-02-01");
    EXPECT_EQ(items[1].at("n"), 99);
    // A fill without a value for a field that may not hold null changes nothing.
    auto newest = items_table();
    newest.fields.push_back({"label", sc::field_type::text, false, ""});
    auto refused = sc::add_missing_fields(
        *db, newest, [](const sc::field&, const boost::json::object&) { return boost::json::value(nullptr); });
    EXPECT_FALSE(refused);
    auto kept = sc::add_missing_fields(
        *db, newest, [](const sc::field&, const boost::json::object&) { return boost::json::value("x"); });
    ASSERT_TRUE(kept) << kept.error().message;
    EXPECT_EQ(*kept, std::vector<std::string>{"label"});
}
