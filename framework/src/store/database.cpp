// SPDX-License-Identifier: BSL-1.0
#include <candor/store/database.hpp>

namespace candor::store {

void throw_exception_from_error(const db_error& e, const boost::source_location&) {
    throw std::runtime_error("store: " + e.message);
}

boost::system::result<void, db_error> lock_for_setup(sql_database& tx, std::int64_t key) {
    if (tx.dialect() != sql_dialect::postgres) return {};
    const sql_value k[] = {key};
    if (auto r = tx.execute("SELECT pg_advisory_xact_lock(CAST(? AS BIGINT))", k); !r) return r.error();
    return {};
}

boost::system::result<std::vector<std::string>, db_error> column_names(sql_database& db, std::string_view table) {
    std::vector<std::string> columns;
    const sql_value name[] = {std::string(table)};
    const char* list = db.dialect() == sql_dialect::postgres
                           ? "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                             "current_schema() AND table_name = ? ORDER BY ordinal_position"
                           : "SELECT name FROM pragma_table_info(?)";
    auto r = db.query(list, name, [&](const sql_row& row) {
        if (const auto* c = std::get_if<std::string>(&row[0])) columns.push_back(*c);
        return true;
    });
    if (!r) return r.error();
    return columns;
}

boost::system::result<void, db_error> create_schema(sql_database& db, std::int64_t key,
                                                    std::span<const std::string_view> statements) {
    return db.transaction([&](sql_database& tx) -> boost::system::result<void, db_error> {
        if (auto l = lock_for_setup(tx, key); !l) return l;
        for (auto statement : statements)
            if (auto r = tx.execute(statement, {}); !r) return r.error();
        return {};
    });
}

std::shared_ptr<read_views> sql_database::open_read_views(const read_view_options&) { return nullptr; }

}  // namespace candor::store
