// SPDX-License-Identifier: BSL-1.0
#include <candor/sql_collection/table.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>

namespace candor::sql_collection {

std::string_view to_string(field_type t) noexcept {
    switch (t) {
        case field_type::text: return "text";
        case field_type::integer: return "integer";
        case field_type::number: return "number";
        case field_type::boolean: return "boolean";
        case field_type::date: return "date";
    }
    return "text";
}

namespace {

bool valid_name(std::string_view n) noexcept {
    if (n.empty() || n.size() > 63) return false;
    if (!((n[0] >= 'a' && n[0] <= 'z') || n[0] == '_')) return false;
    for (char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return !n.starts_with("candor_");
}

// Types both engines read alike: BIGINT is PostgreSQL's int8 (INTEGER would be int4) and
// DOUBLE PRECISION its float8 (REAL would be float4); SQLite gives them the INTEGER and REAL
// affinities. Text compares bytewise on both: SQLite's BINARY collation, PostgreSQL's "C"
// (the database's default collation could order 'B' after 'a', and the keyset pages, the
// filter's lt/gt and `paging::compare_keys` all assume bytewise order).
std::string_view column_type(field_type t, store::sql_dialect d) noexcept {
    switch (t) {
        case field_type::integer:
        case field_type::boolean: return "BIGINT";
        case field_type::number: return "DOUBLE PRECISION";
        case field_type::text:
        case field_type::date: break;
    }
    return d == store::sql_dialect::postgres ? "TEXT COLLATE \"C\"" : "TEXT";
}

// The key of the advisory lock that serializes `create_table` across replicas on PostgreSQL
// (any fixed 64-bit number; this one spells "candorSC").
constexpr std::int64_t create_table_lock = 0x63616E646F725343;

// What a refused write fails with (the same on both engines; no quote characters).
std::string guard_message(std::string_view table, std::string_view op) {
    return "candor: table " + std::string(table) +
           " is versioned for pinned snapshots; write it through candor::sql_collection (insert_rows, "
           "update_row, delete_row), never with a plain " +
           std::string(op);
}

// The guard triggers (see create_table), in each engine's trigger language.
std::vector<std::string> guard_statements(const table_spec& spec, store::sql_dialect d) {
    const auto t = detail::quoted(spec.table);
    std::vector<std::string> out;
    if (d == store::sql_dialect::postgres) {
        // One function for every versioned table: it finds the table's writer row by the
        // trigger's table name. TRUNCATE fires no row trigger, so it has a statement trigger.
        out.push_back(
            "CREATE OR REPLACE FUNCTION candor_sql_guard() RETURNS trigger LANGUAGE plpgsql AS $candor$ "
            "BEGIN "
            "IF coalesce((SELECT w.\"open\" FROM candor_sql_writer w WHERE w.name = TG_TABLE_NAME), 0) = 0 THEN "
            "RAISE EXCEPTION '" +
            guard_message("%", "%") +
            "', TG_TABLE_NAME, TG_OP USING ERRCODE = 'integrity_constraint_violation'; "
            "END IF; "
            "IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; "
            "RETURN NEW; "
            "END $candor$");
        for (const char* op : {"insert", "update", "delete", "truncate"}) {
            std::string upper(op);
            for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            out.push_back("CREATE OR REPLACE TRIGGER " + detail::quoted(spec.table + "_candor_guard_" + op) +
                          " BEFORE " + upper + " ON " + t +
                          (upper == "TRUNCATE" ? " FOR EACH STATEMENT" : " FOR EACH ROW") +
                          " EXECUTE FUNCTION candor_sql_guard()");
        }
        return out;
    }
    // The table name is validated ([a-z_][a-z0-9_]*), so it can stand in the SQL texts below.
    for (const char* op : {"INSERT", "UPDATE", "DELETE"}) {
        std::string trigger = spec.table + "_candor_guard_" + op;
        for (auto& c : trigger) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.push_back("CREATE TRIGGER IF NOT EXISTS " + detail::quoted(trigger) + " BEFORE " + op + " ON " + t +
                      " WHEN NOT coalesce((SELECT open FROM candor_sql_writer WHERE name = '" + spec.table +
                      "'), 0) BEGIN SELECT RAISE(ABORT, '" + guard_message(spec.table, op) + "'); END");
    }
    return out;
}

}  // namespace

void table_spec::validate() const {
    if (!valid_name(table)) throw std::invalid_argument("sql_collection: invalid table name '" + table + "'");
    if (fields.empty()) throw std::invalid_argument("sql_collection: a table needs fields");
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!valid_name(fields[i].name) || fields[i].name == "and" || fields[i].name == "or")
            throw std::invalid_argument("sql_collection: invalid field name '" + fields[i].name + "'");
        for (std::size_t j = 0; j < i; ++j)
            if (fields[j].name == fields[i].name)
                throw std::invalid_argument("sql_collection: duplicate field '" + fields[i].name + "'");
    }
    const auto* k = find(key);
    if (!k || k->nullable || (k->type != field_type::text && k->type != field_type::integer))
        throw std::invalid_argument("sql_collection: the key must be a non-nullable text or integer field");
}

const field* table_spec::find(std::string_view name) const noexcept {
    for (const auto& f : fields)
        if (f.name == name) return &f;
    return nullptr;
}

namespace detail {

sql_value to_sql(const boost::json::value& v) {
    switch (v.kind()) {
        case boost::json::kind::null: return nullptr;
        case boost::json::kind::bool_: return std::int64_t{v.get_bool() ? 1 : 0};
        case boost::json::kind::int64: return v.get_int64();
        case boost::json::kind::uint64: return static_cast<std::int64_t>(v.get_uint64());  // range-checked by callers
        case boost::json::kind::double_: return v.get_double();
        case boost::json::kind::string: return std::string(v.get_string());
        default: throw std::logic_error("sql_collection: not a scalar");
    }
}

boost::json::value to_json(const sql_value& v, field_type t) {
    if (std::holds_alternative<std::nullptr_t>(v)) return nullptr;
    switch (t) {
        case field_type::boolean:
            if (const auto* i = std::get_if<std::int64_t>(&v)) return *i != 0;
            break;
        case field_type::integer:
            if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
            break;
        case field_type::number:
            if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
            if (const auto* d = std::get_if<double>(&v)) return *d;
            break;
        case field_type::text:
        case field_type::date:
            if (const auto* s = std::get_if<std::string>(&v)) return boost::json::string(*s);
            break;
    }
    throw std::logic_error("sql_collection: a column holds a value of another type than its field");
}

std::string quoted(std::string_view name) {
    std::string out;  // appended, not "\"" + std::string (a false GCC 12 -Wrestrict at -O3)
    out.reserve(name.size() + 2);
    out += '"';
    out += name;
    out += '"';
    return out;
}

std::string in_snapshot(std::string_view pin) {
    std::string out = "candor_from <= ";
    out += pin;
    out += " AND (candor_to IS NULL OR candor_to > ";
    out += pin;
    out += ')';
    return out;
}

}  // namespace detail

boost::system::result<void, db_error> create_table(sql_database& db, const table_spec& spec) {
    spec.validate();
    const auto dialect = db.dialect();
    std::string cols;
    for (const auto& f : spec.fields) {
        cols += detail::quoted(f.name) + " " + std::string(column_type(f.type, dialect));
        if (!f.nullable) cols += " NOT NULL";
        cols += ", ";
    }
    const auto t = detail::quoted(spec.table);
    const auto k = detail::quoted(spec.key);
    std::vector<std::string> statements = {
        "CREATE TABLE IF NOT EXISTS candor_sql_sequence(name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS candor_sql_writer(name TEXT PRIMARY KEY, open BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS " + t + "(" + cols + "candor_from BIGINT NOT NULL, candor_to BIGINT)",
        "CREATE INDEX IF NOT EXISTS " + detail::quoted(spec.table + "_key_version") + " ON " + t + "(" + k +
            ", candor_from)",
        "CREATE UNIQUE INDEX IF NOT EXISTS " + detail::quoted(spec.table + "_key_current") + " ON " + t + "(" + k +
            ") WHERE candor_to IS NULL",
    };
    // The guard: a write that did not open the table's writer row in its own transaction (a
    // plain INSERT, UPDATE or DELETE from another program) is refused, so that no pinned
    // snapshot can change under a walk.
    for (auto& g : guard_statements(spec, dialect)) statements.push_back(std::move(g));
    // In one transaction. On PostgreSQL, replicas that start together would race: two
    // concurrent CREATE TABLE IF NOT EXISTS of one name can both pass the check, and the second
    // fails on pg_type's unique index. The advisory lock (released at commit) makes them take
    // turns, and the second finds everything in place.
    return db.transaction([&](sql_database& tx) -> boost::system::result<void, db_error> {
        if (auto r = store::lock_for_setup(tx, create_table_lock); !r) return r;
        for (const auto& s : statements)
            if (auto r = tx.execute(s, {}); !r) return r.error();
        const sql_value name[] = {spec.table};
        if (auto r = tx.execute(
                "INSERT INTO candor_sql_sequence(name, value) VALUES(?, 0) ON CONFLICT (name) DO NOTHING", name);
            !r)
            return r.error();
        if (auto r = tx.execute("INSERT INTO candor_sql_writer(name, open) VALUES(?, 0) ON CONFLICT (name) DO NOTHING",
                                name);
            !r)
            return r.error();
        return {};
    });
}

boost::system::result<std::vector<std::string>, db_error> add_missing_fields(
    sql_database& db, const table_spec& spec,
    const std::function<boost::json::value(const field& added, const boost::json::object& row)>& fill) {
    spec.validate();
    const auto dialect = db.dialect();
    std::vector<std::string> added;
    auto r = db.transaction([&](sql_database& tx) -> boost::system::result<void, db_error> {
        added.clear();  // a retried transaction starts over
        if (auto l = store::lock_for_setup(tx, create_table_lock); !l) return l;
        auto listed = store::column_names(tx, spec.table);
        if (!listed) return listed.error();
        const auto& columns = *listed;
        if (columns.empty()) return db_error{"sql_collection: table " + spec.table + " does not exist"};
        std::vector<const field*> had, missing;
        for (const auto& f : spec.fields)
            (std::find(columns.begin(), columns.end(), f.name) == columns.end() ? missing : had).push_back(&f);
        if (missing.empty()) return {};
        if (std::find(columns.begin(), columns.end(), spec.key) == columns.end())
            return db_error{"sql_collection: table " + spec.table + " has no key column " + spec.key};
        const auto t = detail::quoted(spec.table);
        for (const auto* f : missing) {
            std::string sql = "ALTER TABLE " + t + " ADD COLUMN " + detail::quoted(f->name) + " " +
                              std::string(column_type(f->type, dialect));
            if (auto a = tx.execute(sql, {}); !a) return a.error();
            added.push_back(f->name);
        }
        // Every version of every row, by the fields it had; then each one filled in place.
        std::string select = "SELECT candor_from";
        for (const auto* f : had) select += ", " + detail::quoted(f->name);
        struct version {
            std::int64_t from;
            boost::json::object row;
        };
        std::vector<version> versions;
        if (auto q = tx.query(select + " FROM " + t, {},
                              [&](const sql_row& row) {
                                  version v{std::get<std::int64_t>(row[0]), {}};
                                  for (std::size_t i = 0; i < had.size(); ++i)
                                      v.row[had[i]->name] = detail::to_json(row[i + 1], had[i]->type);
                                  versions.push_back(std::move(v));
                                  return true;
                              });
            !q)
            return q.error();
        std::string update = "UPDATE " + t + " SET ";
        for (std::size_t i = 0; i < missing.size(); ++i)
            update += (i ? ", " : "") + detail::quoted(missing[i]->name) + " = ?";
        update += " WHERE " + detail::quoted(spec.key) + " = ? AND candor_from = ?";
        const sql_value name[] = {spec.table};
        if (auto o = tx.execute("UPDATE candor_sql_writer SET open = 1 WHERE name = ?", name); !o) return o.error();
        std::vector<sql_value> params;
        for (const auto& v : versions) {
            params.clear();
            for (const auto* f : missing) {
                auto value = fill(*f, v.row);
                if (value.is_null() && !f->nullable)
                    return db_error{"sql_collection: no value for field " + f->name + " of table " + spec.table};
                params.push_back(detail::to_sql(value));
            }
            params.push_back(detail::to_sql(v.row.at(spec.key)));
            params.emplace_back(v.from);
            if (auto u = tx.execute(update, params); !u) return u.error();
        }
        if (auto c = tx.execute("UPDATE candor_sql_writer SET open = 0 WHERE name = ?", name); !c) return c.error();
        if (dialect == store::sql_dialect::postgres)
            for (const auto* f : missing)
                if (!f->nullable)
                    if (auto n = tx.execute(
                            "ALTER TABLE " + t + " ALTER COLUMN " + detail::quoted(f->name) + " SET NOT NULL", {});
                        !n)
                        return n.error();
        return {};
    });
    if (!r) return r.error();
    return added;
}

boost::system::result<std::int64_t, db_error> current_sequence(sql_database& db, const table_spec& spec) {
    std::int64_t value = -1;
    const sql_value name[] = {spec.table};
    auto r = db.query("SELECT value FROM candor_sql_sequence WHERE name = ?", name, [&](const sql_row& row) {
        if (const auto* i = std::get_if<std::int64_t>(&row[0])) value = *i;
        return false;
    });
    if (!r) return r.error();
    if (value < 0) return db_error{"no sequence for table '" + spec.table + "' (create_table first)"};
    return value;
}

namespace {

boost::system::result<std::int64_t, db_error> next_sequence(sql_database& db, const table_spec& spec) {
    const sql_value name[] = {spec.table};
    if (auto r = db.execute("UPDATE candor_sql_sequence SET value = value + 1 WHERE name = ?", name); !r)
        return r.error();
    return current_sequence(db, spec);
}

// Every write of a versioned table, in one transaction (a savepoint inside the caller's): open
// the table's writer row (what the guard triggers let through), take the next sequence
// number, run `write(tx, seq)`, close the writer row again. The row is never committed open.
//
// Why a walk never claims complete over data it did not see as one snapshot, on PostgreSQL's
// READ COMMITTED too (SQLite has one writer at a time anyway): the first statement takes the
// writer row's lock, held until commit, so the table's writers run one after another; the next
// one resumes only after the previous committed, and its own statements (each with a fresh
// snapshot) then see that commit. So sequence numbers are taken, and committed, in order: when
// a reader sees the committed value s (a walk's first page, in its own statement), every write numbered s or less has
// committed, and any later write can only add versions with candor_from > s and set candor_to
// to a number > s on versions current at s. A page's statement sees committed data only, and
// `in_snapshot` keeps exactly the versions valid at s: every page of the walk reads the same
// rows, whatever commits between its pages, and other programs cannot write around this (the
// guards). Nothing here needs REPEATABLE READ.
boost::system::result<void, db_error> versioned_write(
    sql_database& db, const table_spec& spec,
    const std::function<boost::system::result<void, db_error>(sql_database&, std::int64_t)>& write) {
    return db.transaction([&](sql_database& tx) -> boost::system::result<void, db_error> {
        const sql_value name[] = {spec.table};
        if (auto r = tx.execute("UPDATE candor_sql_writer SET open = 1 WHERE name = ?", name); !r) return r.error();
        auto seq = next_sequence(tx, spec);
        if (!seq) return seq.error();
        if (auto r = write(tx, *seq); !r) return r;
        if (auto r = tx.execute("UPDATE candor_sql_writer SET open = 0 WHERE name = ?", name); !r) return r.error();
        return {};
    });
}

// Close the current version of the row with `key` at `seq`. @return whether there was one
boost::system::result<bool, db_error> close_current(sql_database& tx, const table_spec& spec,
                                                    const boost::json::value& key, std::int64_t seq) {
    const sql_value params[] = {seq, detail::to_sql(key)};
    auto closed = tx.execute("UPDATE " + detail::quoted(spec.table) + " SET candor_to = ? WHERE " +
                                 detail::quoted(spec.key) + " = ? AND candor_to IS NULL",
                             params);
    if (!closed) return closed.error();
    return *closed != 0;
}

}  // namespace

boost::system::result<void, db_error> insert_rows(sql_database& db, const table_spec& spec,
                                                  const std::vector<boost::json::object>& rows) {
    std::string cols;
    std::string marks;
    for (const auto& f : spec.fields) {
        cols += detail::quoted(f.name) + ", ";
        marks += "?, ";
    }
    const std::string sql =
        "INSERT INTO " + detail::quoted(spec.table) + "(" + cols + "candor_from) VALUES(" + marks + "?)";
    return versioned_write(db, spec, [&](sql_database& tx, std::int64_t seq) -> boost::system::result<void, db_error> {
        std::vector<sql_value> params;
        for (const auto& row : rows) {
            params.clear();
            for (const auto& f : spec.fields) {
                const auto* v = row.if_contains(f.name);
                params.push_back(v ? detail::to_sql(*v) : sql_value{nullptr});
            }
            params.emplace_back(seq);
            if (auto r = tx.execute(sql, params); !r) return r.error();
        }
        return {};
    });
}

boost::system::result<std::optional<boost::json::object>, db_error> read_current(sql_database& db,
                                                                                 const table_spec& spec,
                                                                                 const boost::json::value& key) {
    std::string cols;
    for (const auto& f : spec.fields) cols += (cols.empty() ? "" : ", ") + detail::quoted(f.name);
    const std::string sql = "SELECT " + cols + " FROM " + detail::quoted(spec.table) + " WHERE " +
                            detail::quoted(spec.key) + " = ? AND candor_to IS NULL";
    const sql_value params[] = {detail::to_sql(key)};
    std::optional<boost::json::object> out;
    auto r = db.query(sql, params, [&](const sql_row& row) {
        boost::json::object o;
        for (std::size_t i = 0; i < spec.fields.size(); ++i)
            o[spec.fields[i].name] = detail::to_json(row[i], spec.fields[i].type);
        out = std::move(o);
        return false;
    });
    if (!r) return r.error();
    return out;
}

namespace {

void check_changes(const table_spec& spec, const boost::json::object& changes, std::string_view who) {
    for (const auto& kv : changes) {
        const auto* f = spec.find(kv.key());
        if (!f || f->name == spec.key)
            throw std::invalid_argument("sql_collection: " + std::string(who) + " cannot change '" +
                                        std::string(kv.key()) + "'");
    }
}

// Close the current version of the row with `key` at `seq` and insert its copy with `changes`
// applied. @return whether there was a current version
boost::system::result<bool, db_error> write_new_version(sql_database& tx, const table_spec& spec,
                                                        const boost::json::value& key,
                                                        const boost::json::object& changes, std::int64_t seq) {
    auto closed = close_current(tx, spec, key, seq);
    if (!closed) return closed.error();
    if (!*closed) return false;
    // Copy the closed version, with the changed fields taken from parameters.
    std::string cols;
    std::string select;
    std::vector<sql_value> params;
    for (const auto& f : spec.fields) {
        cols += detail::quoted(f.name) + ", ";
        if (const auto* v = changes.if_contains(f.name)) {
            select += "?, ";
            params.push_back(detail::to_sql(*v));
        } else {
            select += detail::quoted(f.name) + ", ";
        }
    }
    params.emplace_back(seq);
    params.push_back(detail::to_sql(key));
    params.emplace_back(seq);
    const auto t = detail::quoted(spec.table);
    const std::string sql = "INSERT INTO " + t + "(" + cols + "candor_from) SELECT " + select + "? FROM " + t +
                            " WHERE " + detail::quoted(spec.key) + " = ? AND candor_to = ?";
    if (auto ins = tx.execute(sql, params); !ins) return ins.error();
    return true;
}

}  // namespace

boost::system::result<bool, db_error> update_row(sql_database& db, const table_spec& spec,
                                                 const boost::json::value& key, const boost::json::object& changes) {
    check_changes(spec, changes, "update_row");
    bool found = false;
    auto r =
        versioned_write(db, spec, [&](sql_database& tx, std::int64_t seq) -> boost::system::result<void, db_error> {
            auto written = write_new_version(tx, spec, key, changes, seq);
            if (!written) return written.error();
            found = *written;
            return {};
        });
    if (!r) return r.error();
    return found;
}

boost::system::result<bool, db_error> update_current(
    sql_database& db, const table_spec& spec, const boost::json::value& key,
    const std::function<std::optional<boost::json::object>(const std::optional<boost::json::object>&)>& decide) {
    bool written = false;
    // versioned_write's first statement takes the writer row's lock; every statement after it
    // (each with a fresh snapshot under READ COMMITTED) sees all that committed before, and no
    // other writer of the table runs until this transaction ends.
    auto r =
        versioned_write(db, spec, [&](sql_database& tx, std::int64_t seq) -> boost::system::result<void, db_error> {
            auto current = read_current(tx, spec, key);
            if (!current) return current.error();
            const auto changes = decide(*current);
            if (!changes || !*current) return {};
            check_changes(spec, *changes, "update_current");
            auto w = write_new_version(tx, spec, key, *changes, seq);
            if (!w) return w.error();
            written = *w;
            return {};
        });
    if (!r) return r.error();
    return written;
}

boost::system::result<bool, db_error> delete_row(sql_database& db, const table_spec& spec,
                                                 const boost::json::value& key) {
    bool found = false;
    auto r =
        versioned_write(db, spec, [&](sql_database& tx, std::int64_t seq) -> boost::system::result<void, db_error> {
            auto closed = close_current(tx, spec, key, seq);
            if (!closed) return closed.error();
            found = *closed;
            return {};
        });
    if (!r) return r.error();
    return found;
}

}  // namespace candor::sql_collection
