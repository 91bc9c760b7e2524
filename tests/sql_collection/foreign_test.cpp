// SPDX-License-Identifier: BSL-1.0
// Tables Candor does not own: any program writes them with plain SQL, and a walk stays one
// snapshot through a held read view — or says SNAPSHOT_EXPIRED, or (best effort)
// SNAPSHOT_NOT_PINNED on every page; never a silently unpinned page. Run on every backend.
#include "sql_collection/support.hpp"

#include <candor/offload/worker.hpp>

#include <map>

using namespace candor::test;
using namespace candor::test::sql;

namespace {

// A collection `list_items` over the foreign table, on its own database connection (another
// replica, when two are made over one backend).
struct foreign_fixture {
    boost::asio::io_context ioc;
    std::shared_ptr<sc::sql_database> db;
    std::shared_ptr<candor::offload::worker> worker = std::make_shared<candor::offload::worker>();
    std::shared_ptr<sc::sql_source> source;
    std::shared_ptr<pg::collection_tool> tool;

    foreign_fixture(backend& b, std::shared_ptr<const candor::seal::key_ring> keys,
                    std::shared_ptr<ev::evidence_store> store, std::function<void(sc::collection_spec&)> tune = {})
        : db(b.connect()) {
        sc::collection_spec spec;
        spec.table = items_table();  // layout: detect (no sequence row: foreign)
        spec.worker = worker;
        if (tune) tune(spec);
        source = std::make_shared<sc::sql_source>(db, spec);
        pg::collection_options o;
        o.keys = std::move(keys);
        o.evidence = std::move(store);
        o.max_page_size = 50;
        o.item_schema = sc::item_schema(spec.table);
        tool = std::make_shared<pg::collection_tool>(mcp::tool_info("list_items", "Items."), pg::ordering{{"id"}},
                                                     source, o);
    }

    pg::page serve(std::optional<std::string> cursor, std::size_t size, const std::string& who = "alice") {
        pg::page_request r;
        r.cursor = std::move(cursor);
        r.page_size = size;
        r.caller = mcp::principal{who};
        return run(ioc, tool->serve(std::move(r)));
    }

    // Wait until the work handed to the worker so far (a view closed at a walk's end) is done.
    void settle() {
        run(ioc, worker->run([] { return 0; }));
    }
};

// Another program's connection to `b`'s database, which made the plain items table and wrote
// rows 1..n of `g` into it.
std::shared_ptr<sc::sql_database> plain_items(backend& b, gen& g, int n) {
    auto writer = b.connect();
    EXPECT_TRUE(writer->execute(foreign_items_ddl, {}));
    for (int i = 1; i <= n; ++i) insert_plainly(*writer, g.row(i));
    return writer;
}

std::vector<std::string> codes_of(const ce::envelope& e) {
    std::vector<std::string> out;
    for (const auto& r : e.incomplete_reasons) out.push_back(r.code);
    return out;
}

}  // namespace

TEST_P(SqlCollection, AForeignTableIsWalkedAsOneSnapshotWhileOtherProgramsWriteItWithPlainSql) {
    auto writer = backend_->connect();
    ASSERT_TRUE(writer->execute(foreign_items_ddl, {}));
    gen g{std::mt19937(21)};
    std::map<std::string, boost::json::object> before;  // the table when the walk starts
    for (int i = 1; i <= 40; ++i) {
        auto row = g.row(i);
        insert_plainly(*writer, row);
        row["x"] = row.at("x").to_number<double>();  // as the column gives it back
        before[std::string(row.at("id").as_string())] = row;
    }
    auto keys = test_keys();
    auto store = ev::make_memory_store();
    foreign_fixture fx(*backend_, keys, store);
    ASSERT_TRUE(fx.source->foreign());

    boost::json::array seen;
    std::optional<std::string> cursor;
    int written = 0;
    std::optional<ce::envelope> last;
    for (int page = 0; page < 100; ++page) {
        auto p = fx.serve(cursor, 3);
        ASSERT_NE(*p.result.status, ce::outcome::error) << first_error_code(ce::seal(p.result, "x").value());
        for (const auto& item : p.result.data->as_array()) seen.push_back(item);
        if (p.ended) {
            last = std::move(p.result);
            break;
        }
        EXPECT_EQ(codes_of(p.result), std::vector<std::string>{"MORE_PAGES_AVAILABLE"});
        cursor = p.next_cursor;
        // Between pages another program inserts, updates and deletes with plain SQL.
        ++written;
        insert_plainly(*writer, g.row(100 + written));
        const sc::sql_value n[] = {std::int64_t{1000 + written}, row_id(written * 3)};
        ASSERT_TRUE(writer->execute("UPDATE items SET n = ? WHERE id = ?", n));
        const sc::sql_value gone[] = {row_id(41 - written)};
        ASSERT_TRUE(writer->execute("DELETE FROM items WHERE id = ?", gone));
    }
    ASSERT_TRUE(last);
    EXPECT_GT(written, 5);
    // Exactly the rows, with exactly the values, of the table when the walk began.
    ASSERT_EQ(seen.size(), before.size());
    std::size_t i = 0;
    for (const auto& [id, row] : before) {
        EXPECT_EQ(seen[i].as_object(), row) << id;
        ++i;
    }
    EXPECT_EQ(*last->complete, true);
    auto claims = ev::open_snapshot_token(*keys, last->extensions.at("snapshot_token").as_string());
    ASSERT_TRUE(claims);
    EXPECT_TRUE(claims->complete);
    // The walk ended: its view was let go.
    fx.settle();
    EXPECT_EQ(fx.source->views()->held(), 0u);
    // A new walk sees the writes.
    std::size_t now = 0;
    ASSERT_TRUE(writer->query("SELECT count(*) FROM items", {}, [&](const sc::sql_row& r) {
        now = static_cast<std::size_t>(std::get<std::int64_t>(r[0]));
        return false;
    }));
    auto whole = fx.serve(std::nullopt, 50);
    EXPECT_EQ(whole.result.data->as_array().size(), now);
}

TEST_P(SqlCollection, AForeignWalkThatCannotHoldItsSnapshotSaysSoInsteadOfReadingAnother) {
    gen g{std::mt19937(22)};
    auto writer = plain_items(*backend_, g, 10);
    auto keys = test_keys();
    auto store = ev::make_memory_store();

    // One view at most: a second walk cannot be pinned while the first holds it.
    foreign_fixture one(*backend_, keys, store, [](sc::collection_spec& s) { s.views.max_held = 1; });
    auto first = one.serve(std::nullopt, 2);
    ASSERT_TRUE(first.next_cursor);
    auto second = one.serve(std::nullopt, 2);
    ASSERT_EQ(*second.result.status, ce::outcome::error);
    EXPECT_EQ(second.result.errors.at(0).code, "SNAPSHOT_EXPIRED");
    EXPECT_EQ(second.result.continuation->what, ce::continuation::kind::restart);
    // The first walk goes on.
    EXPECT_NE(*one.serve(first.next_cursor, 2).result.status, ce::outcome::error);

    // Best effort: the second walk reads the current rows and says so on every page, and its
    // token is not complete evidence.
    foreign_fixture loose(*backend_, keys, store, [](sc::collection_spec& s) {
        s.views.max_held = 1;
        s.pin = sc::pin_policy::best_effort;
    });
    ASSERT_TRUE(loose.serve(std::nullopt, 2).next_cursor);  // holds the one view
    std::optional<std::string> cursor;
    std::size_t pages = 0;
    for (; pages < 20; ++pages) {
        auto p = loose.serve(cursor, 4);
        ASSERT_NE(*p.result.status, ce::outcome::error);
        const auto codes = codes_of(p.result);
        EXPECT_NE(std::find(codes.begin(), codes.end(), "SNAPSHOT_NOT_PINNED"), codes.end());
        EXPECT_EQ(*p.result.complete, false);
        if (p.ended) {
            auto claims = ev::open_snapshot_token(*keys, p.result.extensions.at("snapshot_token").as_string());
            ASSERT_TRUE(claims);
            EXPECT_FALSE(claims->complete);
            break;
        }
        cursor = p.next_cursor;
    }
    EXPECT_EQ(pages, 2u);  // 10 rows, 4 a page

    // A view past its age: the walk's next page answers SNAPSHOT_EXPIRED.
    auto clock = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    foreign_fixture brief(*backend_, keys, store, [clock](sc::collection_spec& s) {
        s.views.max_age = std::chrono::seconds(60);
        s.views.clock = [clock] { return *clock; };
    });
    auto started = brief.serve(std::nullopt, 2);
    ASSERT_TRUE(started.next_cursor);
    *clock += std::chrono::seconds(59);
    auto still = brief.serve(started.next_cursor, 2);
    ASSERT_NE(*still.result.status, ce::outcome::error);
    *clock += std::chrono::seconds(1);
    auto later = brief.serve(still.next_cursor, 2);
    ASSERT_EQ(*later.result.status, ce::outcome::error);
    EXPECT_EQ(later.result.errors.at(0).code, "SNAPSHOT_EXPIRED");
}

// A walk continued through another replica (another connection and source over the same
// database): on PostgreSQL it imports the exported snapshot and stays exact; on SQLite the view
// is the first process's alone, so the other answers SNAPSHOT_EXPIRED. Once the view's holder
// is gone, every replica answers SNAPSHOT_EXPIRED.
TEST_P(SqlCollection, AForeignWalkGoesOnAtAnotherReplicaOnlyWhereItsSnapshotCanBeRead) {
    gen g{std::mt19937(23)};
    auto writer = plain_items(*backend_, g, 9);
    auto keys = test_keys();
    auto store = ev::make_memory_store();
    foreign_fixture a(*backend_, keys, store);
    foreign_fixture b(*backend_, keys, store);
    auto first = a.serve(std::nullopt, 3);
    ASSERT_TRUE(first.next_cursor);
    const sc::sql_value gone[] = {row_id(5)};
    ASSERT_TRUE(writer->execute("DELETE FROM items WHERE id = ?", gone));
    auto second = b.serve(first.next_cursor, 3);
    if (writer->dialect() == candor::store::sql_dialect::postgres) {
        ASSERT_NE(*second.result.status, ce::outcome::error);
        ASSERT_EQ(second.result.data->as_array().size(), 3u);
        EXPECT_EQ(second.result.data->as_array()[1].at("id"), boost::json::value(row_id(5)));  // of the snapshot
        ASSERT_TRUE(second.next_cursor);
        // The holder ends (its replica let go of it, or died): no replica reads the walk on.
        const auto& snapshot = second.state->snapshot;
        a.source->views()->close(snapshot);
        auto third = b.serve(second.next_cursor, 3);
        ASSERT_EQ(*third.result.status, ce::outcome::error);
        EXPECT_EQ(third.result.errors.at(0).code, "SNAPSHOT_EXPIRED");
    } else {
        ASSERT_EQ(*second.result.status, ce::outcome::error);
        EXPECT_EQ(second.result.errors.at(0).code, "SNAPSHOT_EXPIRED");
        // The replica that holds it reads on.
        EXPECT_NE(*a.serve(first.next_cursor, 3).result.status, ce::outcome::error);
    }
}

// A view is read like a table other programs write: its key declared in the spec, its rows
// pinned by the walk's held view however the tables under it change.
TEST_P(SqlCollection, AViewIsWalkedAsOneSnapshotOfTheTablesUnderIt) {
    auto writer = backend_->connect();
    ASSERT_TRUE(writer->execute(foreign_items_ddl, {}));
    ASSERT_TRUE(writer->execute("CREATE VIEW busy_items AS SELECT * FROM items WHERE n >= 3", {}));
    gen g{std::mt19937(24)};
    std::vector<std::string> expected;
    for (int i = 1; i <= 30; ++i) {
        auto row = g.row(i);
        insert_plainly(*writer, row);
        if (row.at("n").as_int64() >= 3) expected.emplace_back(row.at("id").as_string());
    }
    auto keys = test_keys();
    auto store = ev::make_memory_store();
    foreign_fixture fx(*backend_, keys, store, [](sc::collection_spec& s) { s.table.table = "busy_items"; });
    ASSERT_TRUE(fx.source->foreign());
    std::vector<std::string> seen;
    std::optional<std::string> cursor;
    for (int page = 0; page < 50; ++page) {
        auto p = fx.serve(cursor, 4);
        ASSERT_NE(*p.result.status, ce::outcome::error);
        for (const auto& item : p.result.data->as_array()) seen.emplace_back(item.at("id").as_string());
        if (p.ended) {
            EXPECT_EQ(*p.result.complete, true);
            break;
        }
        cursor = p.next_cursor;
        // Rows enter and leave the view between pages.
        ASSERT_TRUE(writer->execute("UPDATE items SET n = 9 - n", {}));
        insert_plainly(*writer, g.row(100 + page));
    }
    EXPECT_EQ(seen, expected);
}

// One principal's abandoned walks cannot take the views others need: past its own limit, its
// oldest walk loses its view.
TEST_P(SqlCollection, APrincipalPastItsViewsLosesItsOldestWalkNotSomeoneElses) {
    gen g{std::mt19937(25)};
    auto writer = plain_items(*backend_, g, 10);
    foreign_fixture fx(*backend_, test_keys(), ev::make_memory_store(), [](sc::collection_spec& s) {
        s.views.max_held = 4;
        s.max_views_per_principal = 2;
    });
    auto bob = fx.serve(std::nullopt, 2, "bob");
    auto a1 = fx.serve(std::nullopt, 2);
    auto a2 = fx.serve(std::nullopt, 2);
    auto a3 = fx.serve(std::nullopt, 2);  // alice's third: her first walk gives way
    ASSERT_TRUE(bob.next_cursor && a1.next_cursor && a2.next_cursor && a3.next_cursor);
    EXPECT_EQ(fx.source->views()->held(), 3u);
    auto lost = fx.serve(a1.next_cursor, 2);
    ASSERT_EQ(*lost.result.status, ce::outcome::error);
    EXPECT_EQ(lost.result.errors.at(0).code, "SNAPSHOT_EXPIRED");
    EXPECT_NE(*fx.serve(a2.next_cursor, 2).result.status, ce::outcome::error);
    EXPECT_NE(*fx.serve(a3.next_cursor, 2).result.status, ce::outcome::error);
    EXPECT_NE(*fx.serve(bob.next_cursor, 2, "bob").result.status, ce::outcome::error);
}

// What an action over a foreign table re-checks: the walk's evidence says what each row was, so
// a row changed or deleted since the walk delivered it is told apart from one that is as seen.
TEST_P(SqlCollection, AnActionTellsTheRowsThatChangedSinceTheWalkSawThem) {
    gen g{std::mt19937(26)};
    auto writer = plain_items(*backend_, g, 10);
    auto keys = test_keys();
    auto store = ev::make_memory_store();
    foreign_fixture fx(*backend_, keys, store);
    std::optional<std::string> cursor;
    std::optional<ce::envelope> last;
    for (int page = 0; page < 10 && !last; ++page) {
        auto p = fx.serve(cursor, 4);
        ASSERT_NE(*p.result.status, ce::outcome::error);
        if (p.ended) last = std::move(p.result);
        else cursor = p.next_cursor;
    }
    ASSERT_TRUE(last);
    auto claims = ev::open_snapshot_token(*keys, last->extensions.at("snapshot_token").as_string());
    ASSERT_TRUE(claims);
    ASSERT_TRUE(claims->complete);

    const sc::sql_value changed_n[] = {row_id(3)};
    ASSERT_TRUE(writer->execute("UPDATE items SET n = n + 100 WHERE id = ?", changed_n));
    const sc::sql_value gone[] = {row_id(4)};
    ASSERT_TRUE(writer->execute("DELETE FROM items WHERE id = ?", gone));
    const sc::sql_value same[] = {row_id(5)};
    ASSERT_TRUE(writer->execute("UPDATE items SET n = n WHERE id = ?", same));  // written, not changed

    const std::vector<std::string> asked{row_id(2), row_id(3), row_id(4), row_id(5), row_id(99)};
    std::vector<boost::json::object> unchanged;
    auto changed = sc::changed_since_walk(*writer, items_table(), *store, claims->walk, asked,
                                          std::chrono::system_clock::now(), &unchanged);
    ASSERT_TRUE(changed) << changed.error().message;
    EXPECT_EQ(*changed, (std::vector<std::string>{row_id(3), row_id(4), row_id(99)}));
    // The others come back as they are, for a write that must find them so.
    ASSERT_EQ(unchanged.size(), 2u);
    EXPECT_EQ(unchanged[0].at("id"), boost::json::value(row_id(2)));
    EXPECT_EQ(unchanged[1].at("id"), boost::json::value(row_id(5)));
    // The ids alone are still evidence of what the walk delivered.
    auto uncovered = store->uncovered(claims->walk, std::vector<std::string>{row_id(2), row_id(3)},
                                      std::chrono::system_clock::now());
    ASSERT_TRUE(uncovered);
    EXPECT_TRUE(uncovered->empty());
}

// SQLite: a held view keeps a WAL checkpoint from passing it, and once the walk ends the WAL can
// be checkpointed whole again.
TEST(SqlCollectionOnSqlite, AHeldViewHoldsBackTheCheckpointOnlyWhileItsWalkLasts) {
    sqlite_backend sqlite;
    gen g{std::mt19937(27)};
    auto writer = plain_items(sqlite, g, 6);
    foreign_fixture fx(sqlite, test_keys(), ev::make_memory_store());
    // A passive checkpoint (it never waits) that could not copy every frame of the WAL.
    auto checkpoint_blocked = [&] {
        std::int64_t log = -1, copied = -1;
        EXPECT_TRUE(writer->query("PRAGMA wal_checkpoint(PASSIVE)", {}, [&](const sc::sql_row& r) {
            log = std::get<std::int64_t>(r[1]);
            copied = std::get<std::int64_t>(r[2]);
            return false;
        }));
        return copied < log;
    };
    auto first = fx.serve(std::nullopt, 4);
    ASSERT_TRUE(first.next_cursor);
    insert_plainly(*writer, g.row(7));  // a write the view must not see
    EXPECT_TRUE(checkpoint_blocked());
    auto last = fx.serve(first.next_cursor, 4);
    ASSERT_TRUE(last.ended);
    EXPECT_EQ(last.result.data->as_array().size(), 2u);  // of the snapshot: 6 rows, not 7
    fx.settle();
    EXPECT_FALSE(checkpoint_blocked());
}
