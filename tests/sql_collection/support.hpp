// SPDX-License-Identifier: BSL-1.0
#pragma once
// What the SQL collection tests share: the database they run against (a backend: SQLite here,
// PostgreSQL in postgres/), the items table, a collection tool over it, the filter language's
// meaning evaluated in C++ (the brute force the walks are compared with), and random data.

#include <candor/sql_collection/collection.hpp>

#include "paging/support.hpp"

#include <candor/evidence/token.hpp>
#include <candor/offload/worker.hpp>
#include <candor/state/sql_evidence_store.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>

namespace candor::test::sql {

namespace sc = candor::sql_collection;
namespace ce = candor::envelope;

/// One empty database for one test, and more connections to it.
class backend {
public:
    virtual ~backend() = default;
    /// Another connection to the same database (another program, or another replica).
    virtual std::shared_ptr<sc::sql_database> connect() = 0;
};

/// A backend by name, for value-parameterized tests (`GetParam().make()`).
struct backend_kind {
    std::string name;
    std::function<std::unique_ptr<backend>()> make;
};
inline std::string backend_name(const testing::TestParamInfo<backend_kind>& info) { return info.param.name; }

/// SQLite in a temporary file (a file, so that a second connection sees the same database).
class sqlite_backend final : public backend {
public:
    sqlite_backend() {
        char tmpl[] = "/tmp/candor-sql-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
    }
    ~sqlite_backend() override { std::filesystem::remove_all(dir_); }
    std::shared_ptr<sc::sql_database> connect() override {
        auto db = sc::open_sqlite(dir_ + "/items.db").value();
        db->execute("PRAGMA synchronous=OFF", {}).value();  // a test's file need not survive a crash
        return db;
    }

private:
    std::string dir_;
};

inline backend_kind sqlite_kind() {
    return {"sqlite", [] { return std::unique_ptr<backend>(std::make_unique<sqlite_backend>()); }};
}

inline sc::table_spec items_table() {
    return {"items",
            {{"id", sc::field_type::text, false, ""},
             {"grp", sc::field_type::text, false, ""},
             {"n", sc::field_type::integer, false, ""},
             {"x", sc::field_type::number, false, ""},
             {"flag", sc::field_type::boolean, false, ""},
             {"owner", sc::field_type::text, true, ""},
             {"day", sc::field_type::date, false, ""}},
            "id"};
}

inline std::string row_id(int i) {
    char b[16];
    std::snprintf(b, sizeof b, "r-%05d", i);
    return b;
}

// The items table as another program makes it: no layout columns, no triggers, and the text
// key in the database's own collation.
inline const char* foreign_items_ddl =
    "CREATE TABLE items (id TEXT PRIMARY KEY, grp TEXT NOT NULL, n BIGINT NOT NULL, x DOUBLE PRECISION NOT NULL, "
    "flag BIGINT NOT NULL, owner TEXT, day TEXT NOT NULL)";

inline void insert_plainly(sc::sql_database& db, const boost::json::object& row) {
    const sc::sql_value p[] = {sc::detail::to_sql(row.at("id")),   sc::detail::to_sql(row.at("grp")),
                               sc::detail::to_sql(row.at("n")),    sc::detail::to_sql(row.at("x")),
                               sc::detail::to_sql(row.at("flag")), sc::detail::to_sql(row.at("owner")),
                               sc::detail::to_sql(row.at("day"))};
    ASSERT_TRUE(db.execute("INSERT INTO items(id, grp, n, x, flag, owner, day) VALUES(?, ?, ?, ?, ?, ?, ?)", p));
}

/// A database that counts the calls made to it (statements, and transactions as one each:
/// on SQLite a transaction is in-process; the PostgreSQL stores make none on a page's path).
class counting_database final : public sc::sql_database {
public:
    explicit counting_database(std::shared_ptr<sc::sql_database> db) : db_(std::move(db)) {}
    candor::store::sql_dialect dialect() const noexcept override { return db_->dialect(); }
    boost::system::result<void, sc::db_error> query(std::string_view sql, std::span<const sc::sql_value> params,
                                                    const std::function<bool(const sc::sql_row&)>& row) override {
        ++calls;
        return db_->query(sql, params, row);
    }
    boost::system::result<std::int64_t, sc::db_error> execute(std::string_view sql,
                                                              std::span<const sc::sql_value> params) override {
        ++calls;
        return db_->execute(sql, params);
    }
    boost::system::result<void, sc::db_error> transaction(
        const std::function<boost::system::result<void, sc::db_error>(sc::sql_database&)>& work) override {
        ++calls;
        return db_->transaction(work);
    }
    std::atomic<int> calls{0};

private:
    std::shared_ptr<sc::sql_database> db_;
};

/// The items table on a backend's database, and the collection tool `list_items` over it.
struct fixture {
    boost::asio::io_context ioc;  // first: it outlives the worker and the tool, which use it
    std::shared_ptr<sc::sql_database> db;
    std::shared_ptr<const candor::seal::key_ring> keys = test_keys();
    std::shared_ptr<ev::evidence_store> store = ev::make_memory_store();
    std::shared_ptr<candor::offload::worker> worker = std::make_shared<candor::offload::worker>();
    std::shared_ptr<pg::collection_tool> tool;

    /// Set with `evidence_in_database`: the database, counting the calls made to it.
    std::shared_ptr<counting_database> counted;

    /// @param evidence_in_database keep the walks' evidence in the same database (as a
    ///        deployment on PostgreSQL does) rather than in memory, and count the calls
    explicit fixture(backend& b,
                     std::function<std::optional<boost::json::value>(const mcp::principal&)> visibility = {},
                     bool evidence_in_database = false)
        : db(b.connect()) {
        if (evidence_in_database) {
            counted = std::make_shared<counting_database>(db);
            db = counted;
            store = candor::state::open_sql_store(db, worker).value();
        }
        EXPECT_TRUE(sc::create_table(*db, items_table()));
        sc::collection_spec spec;
        spec.table = items_table();
        spec.visibility = std::move(visibility);
        spec.worker = worker;
        pg::collection_options o;
        o.keys = keys;
        o.evidence = store;
        o.max_page_size = 50;
        tool = sc::make_collection(db, std::move(spec), mcp::tool_info("list_items", "Items."), o);
    }

    pg::page serve(boost::json::object query, std::optional<std::string> cursor, std::size_t size,
                   const std::string& who = "alice",
                   std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max()) {
        pg::page_request r;
        r.query = std::move(query);
        r.cursor = std::move(cursor);
        r.page_size = size;
        r.caller = mcp::principal{who};
        r.deadline = deadline;
        return run(ioc, tool->serve(std::move(r)));
    }

    /// Walk from `cursor` (a new walk without one) to the end, `size` items a page, calling
    /// `between` after every page but the last. @return the items, and whether the last page
    /// said complete
    std::pair<boost::json::array, bool> walk(std::size_t size, const std::function<void()>& between = {},
                                             const boost::json::object& query = {}) {
        boost::json::array items;
        std::optional<std::string> cursor;
        for (int pages = 0; pages < 1000; ++pages) {
            auto p = serve(query, cursor, size);
            const auto env = ce::seal(p.result, "list_items").value();
            for (const auto& item : env.at("data").as_array()) items.push_back(item);
            if (p.ended) return {std::move(items), at(env, "complete") == true};
            cursor = p.next_cursor;
            if (between) between();
        }
        return {std::move(items), false};
    }
};

/// The collection tests (collection_test.cpp), run on each backend a binary instantiates them
/// with (`INSTANTIATE_TEST_SUITE_P(…, SqlCollection, …)`).
class SqlCollection : public testing::TestWithParam<backend_kind> {
protected:
    std::unique_ptr<backend> backend_ = GetParam().make();
};

// ---- brute force: the filter language's meaning, evaluated in C++ ----------------------------

/// Text compares bytewise (as `paging::compare_keys` and both engines' collations do).
inline int compare(const boost::json::value& a, const boost::json::value& b) {
    if (a.is_string()) {
        const auto& x = a.get_string();
        const auto& y = b.get_string();
        const int c = std::string_view(x).compare(std::string_view(y));
        return c < 0 ? -1 : c > 0;
    }
    if (a.is_bool()) return static_cast<int>(a.get_bool()) - static_cast<int>(b.get_bool());
    const double x = a.to_number<double>();
    const double y = b.to_number<double>();
    return x < y ? -1 : x > y;
}

inline bool term(const boost::json::value& col, std::string_view op, const boost::json::value& v) {
    if (op == "eq") return v.is_null() ? col.is_null() : !col.is_null() && compare(col, v) == 0;
    if (op == "ne") return v.is_null() ? !col.is_null() : col.is_null() || compare(col, v) != 0;
    if (col.is_null()) return false;
    if (op == "in") {
        for (const auto& e : v.get_array())
            if (compare(col, e) == 0) return true;
        return false;
    }
    const int c = compare(col, v);
    if (op == "lt") return c < 0;
    if (op == "lte") return c <= 0;
    if (op == "gt") return c > 0;
    return c >= 0;
}

inline bool matches(const boost::json::object& row, const boost::json::object& f) {
    for (const auto& kv : f) {
        if (kv.key() == "and" || kv.key() == "or") {
            const bool is_and = kv.key() == "and";
            bool acc = is_and;
            for (const auto& sub : kv.value().get_array()) {
                const bool m = matches(row, sub.get_object());
                acc = is_and ? acc && m : acc || m;
            }
            if (!acc) return false;
            continue;
        }
        const auto& col = row.at(kv.key());
        if (const auto* ops = kv.value().if_object()) {
            for (const auto& op : *ops)
                if (!term(col, op.key(), op.value())) return false;
        } else if (!term(col, "eq", kv.value())) {
            return false;
        }
    }
    return true;
}

// ---- random data and filters ------------------------------------------------------------------

struct gen {
    std::mt19937 rng;
    unsigned pick(unsigned n) { return n == 0 ? 0u : static_cast<unsigned>(rng() % n); }

    boost::json::value value_for(std::string_view field) {
        static const char* grps[] = {"a", "b", "c"};
        static const char* owners[] = {"u1", "u2"};
        if (field == "grp") return boost::json::string(grps[pick(3)]);
        if (field == "n") return static_cast<std::int64_t>(pick(10));
        if (field == "x")
            return pick(2) ? boost::json::value(pick(10) * 0.5) : boost::json::value(std::int64_t(pick(5)));
        if (field == "flag") return pick(2) == 1;
        if (field == "owner") return pick(3) == 0 ? boost::json::value(nullptr) : boost::json::value(owners[pick(2)]);
        if (field == "day") {
            char b[16];
            std::snprintf(b, sizeof b, "2026-0%u-1%u", 1 + pick(3), pick(10));
            return boost::json::string(b);
        }
        return boost::json::string(row_id(static_cast<int>(1 + pick(150))));
    }

    boost::json::object row(int i) {
        boost::json::object r;
        r["id"] = row_id(i);
        for (const char* f : {"grp", "n", "x", "flag", "owner", "day"}) r[f] = value_for(f);
        if (r["owner"].is_null() && pick(2)) r["owner"] = "u1";
        return r;
    }

    boost::json::object leaf() {
        static const char* fields[] = {"id", "grp", "n", "x", "flag", "owner", "day"};
        const std::string f = fields[pick(7)];
        const bool boolean = f == "flag";
        static const char* ops[] = {"eq", "ne", "in", "lt", "lte", "gt", "gte"};
        const std::string op = ops[pick(boolean ? 3 : 7)];
        boost::json::value v;
        if (op == "in") {
            boost::json::array list;
            const unsigned n = pick(4);
            for (unsigned i = 0; i < n; ++i) {
                auto e = value_for(f);
                if (!e.is_null()) list.push_back(e);
            }
            v = std::move(list);
        } else {
            v = value_for(f);
            if (v.is_null() && op != "eq" && op != "ne") v = "u2";
        }
        if (op == "eq" && pick(2)) return {{f, v}};
        return {{f, boost::json::object{{op, v}}}};
    }

    boost::json::object filter(int depth) {
        const unsigned k = pick(depth > 0 ? 4 : 2);
        if (k == 0) return {};
        if (k == 1 || depth == 0) return leaf();
        boost::json::array parts;
        const unsigned n = 1 + pick(3);
        for (unsigned i = 0; i < n; ++i) {
            auto sub = filter(depth - 1);
            if (sub.empty()) sub = leaf();
            parts.push_back(std::move(sub));
        }
        boost::json::object out{{k == 2 ? "and" : "or", std::move(parts)}};
        if (pick(3) == 0)
            for (const auto& kv : leaf()) out[kv.key()] = kv.value();
        return out;
    }
};

inline unsigned first_seed() {
    if (const char* s = std::getenv("CANDOR_PROPERTY_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
    return 8'2026u;
}
inline unsigned case_count() { return std::getenv("CANDOR_PROPERTY_SEED") ? 1u : 60u; }

}  // namespace candor::test::sql
