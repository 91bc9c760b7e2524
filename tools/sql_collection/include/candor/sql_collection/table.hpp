// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A table as a collection sees it: its allow-listed fields (the only names that ever reach
/// SQL text), its unique sort key, and the versioned layout that gives pinned snapshots.
///
/// **Pinned snapshots: change-sequence columns.** Every row version carries `candor_from` (the
/// sequence number that created it) and `candor_to` (the one that replaced it; NULL while
/// current). A write takes the next number of the table's sequence (table
/// `candor_sql_sequence`), closes the current version and inserts the new one in one
/// transaction. A walk's snapshot is the sequence number current at its first page, and every
/// page reads `candor_from <= s AND (candor_to IS NULL OR candor_to > s)`: the same rows, with
/// the same values, however the table changes meanwhile. Old versions stay (no purge yet), so a
/// snapshot never disappears.
///
/// **Only versioned writes.** `create_table` installs guard triggers that refuse every
/// `INSERT`, `UPDATE` and `DELETE` on the table unless the writing transaction opened the
/// table's row in `candor_sql_writer` — which `insert_rows`, `update_row` and `delete_row` do
/// (and close again before they return). A plain write from another program fails with the
/// trigger's message instead of changing rows under a pinned snapshot.
///
/// **Tables other programs write** (`table_layout::foreign`) have neither: a walk over one is
/// pinned through a held read view instead (collection.hpp, `store::read_views`).

#include <candor/sql_collection/database.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::sql_collection {

/// Column types a filter understands. `date` is text in `YYYY-MM-DD` form (compares as text).
enum class field_type { text, integer, number, boolean, date };
std::string_view to_string(field_type t) noexcept;

struct field {
    /// [a-z_][a-z0-9_]{0,62}: used as the column name, the item member and the filter name.
    std::string name{};
    field_type type = field_type::text;
    /// May hold null (filters may ask `{"f": null}` / `{"f": {"ne": null}}`).
    bool nullable = false;
    /// Shown to the model in the tool's description of `filter`.
    std::string description{};
};

/// Who writes a table, and so how a walk over it stays one snapshot.
enum class table_layout {
    /// Versioned when `create_table` made it (the table has a row in `candor_sql_sequence`),
    /// foreign otherwise; decided once, when a collection over it is made.
    detect,
    /// Candor's versioned layout (`create_table`): written only through this library, pinned by
    /// its change-sequence numbers, at no cost to the database.
    versioned,
    /// Any program writes it with plain SQL (no layout columns, no triggers): a walk is pinned
    /// through a held read view (`store::read_views`; `collection_spec::pin`).
    foreign,
};

struct table_spec {
    /// [a-z_][a-z0-9_]{0,62}
    std::string table{};
    std::vector<field> fields{};
    /// The unique sort key (a text or integer field, not nullable): keyset pages go by it.
    std::string key{};
    table_layout layout = table_layout::detect;

    /// @throws std::invalid_argument for names outside the patterns, a missing or nullable key
    void validate() const;
    const field* find(std::string_view name) const noexcept;
};

/// Create the table (versioned layout), its indexes, the sequence and writer rows and the guard
/// triggers if missing (run it at every start: a table of an older version gets its guards).
boost::system::result<void, db_error> create_table(sql_database& db, const table_spec& spec);

/// Bring a table an older `table_spec` created up to `spec`: each field of `spec` the table
/// lacks is added as a column, and every row version — old ones too, so that a pinned
/// snapshot reads one value on every page — gets `fill(field, row)`, `row` holding the fields
/// the table had (the key among them). One transaction with the table's writer open, under the
/// setup lock: replicas that start together take turns, and the second finds the fields in
/// place. Run it after `create_table`, at every start; a table with every field is left alone.
/// On SQLite an added field that may not hold null is enforced by the writer, not the column.
/// @return the names of the fields added
boost::system::result<std::vector<std::string>, db_error> add_missing_fields(
    sql_database& db, const table_spec& spec,
    const std::function<boost::json::value(const field& added, const boost::json::object& row)>& fill);

/// Current sequence number of the table (the snapshot a new walk reads).
boost::system::result<std::int64_t, db_error> current_sequence(sql_database& db, const table_spec& spec);

/// Insert new rows (one new sequence number for the batch). Each row holds every field.
/// Runs in its own transaction, or in a savepoint of the caller's.
boost::system::result<void, db_error> insert_rows(sql_database& db, const table_spec& spec,
                                                  const std::vector<boost::json::object>& rows);

/// The current version of the row with `key`, or nothing. A read only: a write that depends on
/// it goes through `update_current`, which reads and writes under the table's writer lock.
boost::system::result<std::optional<boost::json::object>, db_error> read_current(sql_database& db,
                                                                                 const table_spec& spec,
                                                                                 const boost::json::value& key);

/// Write a new version of the row with `key` with `changes` applied (members must be fields,
/// not the key). Call inside `sql_database::transaction` together with the read that justified
/// it (it runs in a savepoint of that transaction, or in one of its own).
/// @return false when there is no current row with that key
boost::system::result<bool, db_error> update_row(sql_database& db, const table_spec& spec,
                                                 const boost::json::value& key, const boost::json::object& changes);

/// Re-check a row and write it in one serialized step: inside the table's writer lock (taken
/// first, held until the transaction ends), read the current version with `key`, hand it to
/// `decide`, and write a new version with the changes it returns. No other write of the table
/// can come between the read and the write — on PostgreSQL under READ COMMITTED, from other
/// processes and replicas, as on SQLite — so two actions that both checked "not archived yet"
/// can never both archive. Use it (not `read_current` then `update_row`) for every write that
/// depends on what the row holds now. Transactions as for `update_row`.
/// @param decide gets the current row (nothing when there is none) and returns the changes to
///        write (members must be fields, not the key), or nothing to leave the row as it is
/// @return whether a new version was written
boost::system::result<bool, db_error> update_current(
    sql_database& db, const table_spec& spec, const boost::json::value& key,
    const std::function<std::optional<boost::json::object>(const std::optional<boost::json::object>&)>& decide);

/// Delete the row with `key` from now on: its current version is closed, and snapshots taken
/// before still show it. Transactions as for `update_row`.
/// @return false when there is no current row with that key
boost::system::result<bool, db_error> delete_row(sql_database& db, const table_spec& spec,
                                                 const boost::json::value& key);

namespace detail {
/// A JSON value as a bound parameter for a field (booleans as 0/1).
sql_value to_sql(const boost::json::value& v);
/// A column value as the item's JSON for a field.
boost::json::value to_json(const sql_value& v, field_type t);
/// `"name"` (names are validated, so quoting is a formality that keeps keywords usable).
std::string quoted(std::string_view name);
/// The row-version condition of a snapshot: `pin` (an expression of the snapshot number, e.g.
/// `?`) appears twice, so its parameters are bound twice.
std::string in_snapshot(std::string_view pin);
}  // namespace detail

}  // namespace candor::sql_collection
