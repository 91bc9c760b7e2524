// SPDX-License-Identifier: BSL-1.0
#include <candor/sqlite/database.hpp>

#include <gtest/gtest.h>

#include <string>

namespace sq = candor::sqlite;

namespace {

sq::database memory_db() {
    auto db = sq::database::open(":memory:").value();
    EXPECT_TRUE(db.exec("CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER)"));
    return db;
}

}  // namespace

TEST(SqliteDatabase, BoundTextKeepsNulBytesAndQuotes) {
    auto db = memory_db();
    const std::string hostile("a'\0b\" OR 1=1 --", 16);
    auto ins = db.prepare("INSERT INTO t(k, v) VALUES(?, ?)").value();
    ins.bind(1, hostile);
    ins.bind(2, std::int64_t{7});
    ASSERT_TRUE(ins.run());
    auto sel = db.prepare("SELECT k, v FROM t WHERE k = ?").value();
    sel.bind(1, hostile);
    sq::error e;
    ASSERT_TRUE(sel.step(e));
    EXPECT_EQ(sel.text(0), hostile);
    EXPECT_EQ(sel.integer(1), 7);
    EXPECT_FALSE(sel.step(e));
    EXPECT_EQ(e.code, 0);
}

TEST(SqliteDatabase, PrepareFailureIsAValue) {
    auto db = memory_db();
    auto bad = db.prepare("SELEC nonsense");
    ASSERT_FALSE(bad);
    EXPECT_FALSE(bad.error().message.empty());
}

TEST(SqliteDatabase, TransactionRollsBackUnlessCommitted) {
    auto db = memory_db();
    {
        auto tx = sq::transaction::begin(db).value();
        ASSERT_TRUE(db.exec("INSERT INTO t VALUES('x', 1)"));
    }
    {
        auto tx = sq::transaction::begin(db).value();
        ASSERT_TRUE(db.exec("INSERT INTO t VALUES('y', 2)"));
        ASSERT_TRUE(tx.commit());
    }
    auto count = db.prepare("SELECT group_concat(k) FROM t").value();
    sq::error e;
    ASSERT_TRUE(count.step(e));
    EXPECT_EQ(count.text(0), "y");
}

TEST(SqliteDatabase, ResetOnExitMakesAStatementReusable) {
    auto db = memory_db();
    auto ins = db.prepare("INSERT INTO t(k, v) VALUES(?, ?)").value();
    for (int i = 0; i < 3; ++i) {
        sq::reset_on_exit g{ins};
        ins.bind(1, std::to_string(i));
        ins.bind(2, std::int64_t{i});
        ASSERT_TRUE(ins.run());
    }
    EXPECT_EQ(db.changes(), 1);
    auto sum = db.prepare("SELECT sum(v) FROM t").value();
    sq::error e;
    ASSERT_TRUE(sum.step(e));
    EXPECT_EQ(sum.integer(0), 3);
}
