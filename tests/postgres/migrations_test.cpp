// SPDX-License-Identifier: BSL-1.0
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/postgres/migrations.hpp>

#include "postgres/test_support.hpp"

namespace {

namespace asio = boost::asio;
namespace pg = candor::postgres;
using namespace std::chrono_literals;
using candor_test::run;
using pg::clock;

constexpr pg::migration steps[] = {
    {1, "accounts", "CREATE TABLE mig_accounts(id int8 PRIMARY KEY)"},
    {2, "balance",
     "ALTER TABLE mig_accounts ADD COLUMN balance int8 NOT NULL DEFAULT 0; "
     "CREATE INDEX mig_accounts_balance ON mig_accounts(balance)"},
};

std::int64_t count(asio::io_context& io, pg::pool& db, const std::string& sql) {
    auto r = run(io, db.query(sql, {}));
    EXPECT_TRUE(r) << r.error().message;
    return r ? std::get<std::int64_t>(r->rows.at(0).at(0)) : -1;
}

TEST(PostgresMigrations, ReplicasStartingTogetherApplyEachStepOnce) {
    asio::io_context io;
    pg::pool a(io.get_executor(), candor_test::pool_options());
    pg::pool b(io.get_executor(), candor_test::pool_options());
    // Both replicas migrate at once; the steps are not idempotent (a second CREATE TABLE fails),
    // so only the advisory lock keeps both from failing or applying twice.
    auto first = asio::co_spawn(io, pg::migrate(a, "mig", steps, clock::now() + 10s), asio::use_future);
    auto second = asio::co_spawn(io, pg::migrate(b, "mig", steps, clock::now() + 10s), asio::use_future);
    io.run();
    auto x = first.get();
    auto y = second.get();
    ASSERT_TRUE(x) << x.error().message;
    ASSERT_TRUE(y) << y.error().message;
    EXPECT_EQ(*x, 2);
    EXPECT_EQ(*y, 2);
    EXPECT_EQ(count(io, a, "SELECT count(*) FROM candor_schema_migrations WHERE component = 'mig'"), 2);
    // Run again: nothing to do.
    auto again = run(io, pg::migrate(a, "mig", steps, clock::now() + 10s));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, 2);
}

TEST(PostgresMigrations, AFailingStepLeavesTheSchemaAsItWas) {
    asio::io_context io;
    pg::pool db(io.get_executor(), candor_test::pool_options());
    constexpr pg::migration broken[] = {
        {1, "table", "CREATE TABLE mig_broken(id int8 PRIMARY KEY)"},
        {2, "typo", "ALTER TABLE mig_broken ADD COLUMN x no_such_type"},
    };
    auto r = run(io, pg::migrate(db, "broken", broken, clock::now() + 10s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().what, pg::error::kind::rejected);
    EXPECT_EQ(count(io, db, "SELECT count(*) FROM candor_schema_migrations WHERE component = 'broken'"), 0);
    EXPECT_EQ(count(io, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'mig_broken'"), 0);
}

TEST(PostgresMigrations, VersionsMustIncrease) {
    asio::io_context io;
    pg::pool db(io.get_executor(), candor_test::pool_options());
    constexpr pg::migration unordered[] = {{2, "b", "SELECT 1"}, {1, "a", "SELECT 1"}};
    auto r = run(io, pg::migrate(db, "unordered", unordered, clock::now() + 10s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().sqlstate, "22023");
}

}  // namespace
