// SPDX-License-Identifier: BSL-1.0
#include <candor/postgres/migrations.hpp>

namespace candor::postgres {

namespace asio = boost::asio;

namespace {

// The advisory lock key of all migrations (any fixed 64-bit number; this one spells "candorMG").
constexpr std::int64_t migration_lock = 0x63616e646f724d47;

}  // namespace

asio::awaitable<boost::system::result<int, error>> migrate(pool& db, std::string_view component,
                                                           std::span<const migration> steps,
                                                           clock::time_point deadline) {
    for (std::size_t i = 1; i < steps.size(); ++i)
        if (steps[i].version <= steps[i - 1].version)
            co_return error{error::kind::rejected, "22023", "migration versions must increase"};
    if (!steps.empty() && steps.front().version < 1)
        co_return error{error::kind::rejected, "22023", "migration versions start at 1"};

    int version = 0;
    const std::string name(component);
    // A named function, not a temporary in the co_await expression (GCC 12 destroys those twice).
    const pool::work_fn apply = [&](lease& tx) -> asio::awaitable<boost::system::result<void, error>> {
        const std::vector<value> lock{migration_lock};
        if (auto r = co_await tx.query("SELECT pg_advisory_xact_lock($1::int8)", lock, deadline); !r)
            co_return r.error();
        if (auto r = co_await tx.execute_script(
                "CREATE TABLE IF NOT EXISTS candor_schema_migrations ("
                "component text NOT NULL, version integer NOT NULL, name text NOT NULL, "
                "applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))",
                deadline);
            !r)
            co_return r.error();
        const std::vector<value> which{name};
        auto current = co_await tx.query(
            "SELECT coalesce(max(version), 0) FROM candor_schema_migrations WHERE component = $1", which, deadline);
        if (!current) co_return current.error();
        version = static_cast<int>(std::get<std::int64_t>(current->rows.at(0).at(0)));
        for (const auto& step : steps) {
            if (step.version <= version) continue;
            if (auto r = co_await tx.execute_script(step.sql, deadline); !r) co_return r.error();
            const std::vector<value> record{name, std::int64_t{step.version}, std::string(step.name)};
            if (auto r = co_await tx.query(
                    "INSERT INTO candor_schema_migrations(component, version, name) VALUES ($1, $2::int4, $3)", record,
                    deadline);
                !r)
                co_return r.error();
            version = step.version;
        }
        // Named, not a temporary: GCC 12 at -O1 (the sanitizer build) takes a coroutine's
        // `co_return result{}` for a moved, uninitialized error (-Wmaybe-uninitialized).
        boost::system::result<void, error> ok;
        co_return ok;
    };
    auto done = co_await db.transaction(apply, deadline);
    if (!done) co_return done.error();
    co_return version;
}

}  // namespace candor::postgres
