// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete; see validation/layers.hpp): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/sql_collection/collection.hpp>

#include <candor/evidence/token.hpp>
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/offload/worker.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <algorithm>
#include <charconv>
#include <exception>
#include <mutex>
#include <stdexcept>

namespace candor::sql_collection {

namespace asio = boost::asio;

namespace {

paging::source_error unavailable(std::string message) {
    return paging::source_error{paging::source_error::kind::unavailable, std::move(message), {}};
}
paging::source_error unavailable(const db_error& e) { return unavailable(e.message); }

bool cancelled(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const boost::system::system_error& s) {
        return s.code() == asio::error::operation_aborted;
    } catch (...) {
        return false;
    }
}

// What work on the worker ended with: its value, or what it threw (a cancelled wait included).
template <class T>
struct outcome {
    std::optional<T> value;
    std::exception_ptr error;
};

// The work on the worker, its exception kept as a value: `||` ends on the first operand that
// ends without an exception, so a read that threw would otherwise wait out the deadline.
template <class F>
asio::awaitable<outcome<std::invoke_result_t<F&>>> run_caught(std::shared_ptr<offload::worker> worker, F work) {
    outcome<std::invoke_result_t<F&>> out;
    try {
        out.value.emplace(co_await worker->run_cancellable(std::move(work)));
    } catch (...) {
        out.error = std::current_exception();
    }
    co_return out;
}

std::optional<std::int64_t> parse_snapshot(const std::string& s) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

boost::json::value filter_of(const collection_spec& spec, const boost::json::object& query) {
    if (spec.query_filter) return spec.query_filter(query);
    if (const auto* f = query.if_contains(spec.filter_argument); f && !spec.filter_argument.empty()) return *f;
    return boost::json::object{};
}

// Trusted filters (visibility, custom query filters) that do not compile are the author's bug.
sql_condition compile_trusted(const boost::json::value& f, const collection_spec& spec) {
    filter_limits generous = spec.limits;
    generous.max_depth = std::max<std::size_t>(generous.max_depth, 8);
    generous.max_nodes = std::max<std::size_t>(generous.max_nodes, 10'000);
    generous.max_in = std::max<std::size_t>(generous.max_in, 10'000);
    auto c = compile_filter(f, spec.table, generous, "");
    if (!c)
        throw std::logic_error("sql_collection: a server-side filter does not compile: " + c.error().front().message);
    return std::move(*c);
}

void append(std::vector<sql_value>& to, const std::vector<sql_value>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

// Whether a cursor's key value can be one of `f`'s.
bool fits(const boost::json::value& v, const field& f) {
    if (v.is_null()) return f.nullable;
    switch (f.type) {
        case field_type::text:
        case field_type::date: return v.is_string();
        case field_type::integer: return v.is_int64();
        case field_type::number: return v.is_number();
        case field_type::boolean: return v.is_bool();
    }
    return false;
}

// The rows after `key` in `order` (its fields `keyed`, as SQL `columns`): one comparison for
// one field, a row-value comparison when every field goes one way and none holds null (an
// index serves both), else field by field — equal on the ones before, after on this one, with
// null first ascending and last descending. Nothing when the key does not fit the fields.
std::optional<sql_condition> after_key(const boost::json::array& key, const table_spec& table,
                                       const std::vector<std::size_t>& fields, const std::vector<std::string>& columns,
                                       const paging::ordering& order) {
    if (key.size() != fields.size()) return std::nullopt;
    auto field_at = [&](std::size_t i) -> const field& { return table.fields[fields[i]]; };
    for (std::size_t i = 0; i < key.size(); ++i)
        if (!fits(key[i], field_at(i))) return std::nullopt;
    const std::size_t n = key.size();
    bool same_way = true, nulls = false;
    for (std::size_t i = 0; i < n; ++i) {
        same_way = same_way && order.descends(i) == order.descends(0);
        nulls = nulls || field_at(i).nullable;
    }
    sql_condition out;
    if (same_way && !nulls) {
        const char* op = order.descends(0) ? " < " : " > ";
        if (n == 1) {
            out.sql = columns[0] + op + "?";
        } else {
            std::string left = "(", right = "(";
            for (std::size_t i = 0; i < n; ++i) {
                left += (i ? ", " : "") + columns[i];
                right += i ? ", ?" : "?";
            }
            out.sql = left + ")" + op + right + ")";
        }
        for (const auto& v : key) out.params.push_back(detail::to_sql(v));
        return out;
    }
    std::string any;
    for (std::size_t i = 0; i < n; ++i) {
        const bool desc = order.descends(i);
        if (desc && key[i].is_null()) continue;  // nothing comes after null descending
        std::string all;
        for (std::size_t j = 0; j < i; ++j) {
            if (key[j].is_null()) {
                all += columns[j] + " IS NULL AND ";
            } else {
                all += columns[j] + " = ? AND ";
                out.params.push_back(detail::to_sql(key[j]));
            }
        }
        if (key[i].is_null()) {
            all += columns[i] + " IS NOT NULL";
        } else {
            all += "(" + columns[i] + (desc ? " < ?" : " > ?");
            if (desc && field_at(i).nullable) all += " OR " + columns[i] + " IS NULL";
            all += ")";
            out.params.push_back(detail::to_sql(key[i]));
        }
        any += (any.empty() ? "(" : " OR (") + all + ")";
    }
    out.sql = any.empty() ? "FALSE" : "(" + any + ")";
    return out;
}

// The paging layer's ordering of `o` over `table`: its fields, the key last.
paging::ordering to_paging(const table_order& o, const table_spec& table) {
    paging::ordering out;
    for (const auto& f : o.fields) {
        if (!table.find(f.field))
            throw std::invalid_argument("sql_collection: ordering '" + o.name + "' names no field '" + f.field + "'");
        if (std::find(out.fields.begin(), out.fields.end(), f.field) != out.fields.end())
            throw std::invalid_argument("sql_collection: ordering '" + o.name + "' names '" + f.field + "' twice");
        out.fields.push_back(f.field);
        out.descending.push_back(f.descending);
    }
    if (out.fields.empty() || out.fields.back() != table.key) {
        if (std::find(out.fields.begin(), out.fields.end(), table.key) != out.fields.end())
            throw std::invalid_argument("sql_collection: ordering '" + o.name + "' must end with the key '" +
                                        table.key + "'");
        out.fields.push_back(table.key);
        out.descending.push_back(false);
    }
    if (std::none_of(out.descending.begin(), out.descending.end(), [](bool d) { return d; })) out.descending.clear();
    return out;
}

}  // namespace

// A walk over a foreign table that could not hold a view and reads the current rows instead.
constexpr std::string_view unpinned_walk = "live";

// The views a source holds, by principal, oldest first.
struct sql_source::view_ledger {
    struct entry {
        std::string view;
        std::string principal;
        std::chrono::steady_clock::time_point opened;
    };
    std::size_t most;  // views per principal
    store::read_view_options bounds;
    std::mutex mutex;
    std::vector<entry> entries;

    view_ledger(std::size_t per_principal, store::read_view_options b) : most(per_principal), bounds(std::move(b)) {}

    // Record `view` for `principal`; @return the principal's views past `most` (its oldest),
    // forgotten here, to be closed. Views past their age are forgotten (they end on their own).
    std::vector<std::string> admit(std::string view, std::string principal) {
        const auto now = bounds.clock ? bounds.clock() : std::chrono::steady_clock::now();
        std::lock_guard lock(mutex);
        std::erase_if(entries, [&](const entry& e) { return e.opened <= now - bounds.max_age; });
        entries.push_back({std::move(view), principal, now});
        std::vector<std::string> evicted;
        std::size_t held = 0;
        for (const auto& e : entries) held += e.principal == principal;
        for (auto it = entries.begin(); held > most && it != entries.end();) {
            if (it->principal == principal) {
                evicted.push_back(std::move(it->view));
                it = entries.erase(it);
                --held;
            } else {
                ++it;
            }
        }
        return evicted;
    }

    void forget(std::string_view view) {
        std::lock_guard lock(mutex);
        std::erase_if(entries, [&](const entry& e) { return e.view == view; });
    }
};

sql_source::sql_source(std::shared_ptr<sql_database> db, collection_spec spec)
    : db_(std::move(db)), spec_(std::move(spec)) {
    if (!db_) throw std::invalid_argument("sql_collection: no database");
    spec_.table.validate();
    switch (spec_.table.layout) {
        case table_layout::versioned: foreign_ = false; break;
        case table_layout::foreign: foreign_ = true; break;
        case table_layout::detect: {
            // candor_sql_sequence itself may not exist: then nothing is versioned.
            auto sequence = store::column_names(*db_, "candor_sql_sequence");
            if (!sequence)
                throw std::runtime_error("sql_collection: cannot read the schema: " + sequence.error().message);
            bool versioned = false;
            if (!sequence->empty()) {
                const sql_value name[] = {spec_.table.table};
                auto r = db_->query("SELECT 1 FROM candor_sql_sequence WHERE name = ?", name,
                                    [&](const sql_row&) { return !(versioned = true); });
                if (!r)
                    throw std::runtime_error("sql_collection: cannot read candor_sql_sequence: " + r.error().message);
            }
            foreign_ = !versioned;
            break;
        }
    }
    if (spec_.orders.empty()) spec_.orders.push_back({spec_.table.key, {{spec_.table.key, false}}});
    for (std::size_t i = 0; i < spec_.orders.size(); ++i) {
        if (spec_.orders[i].name.empty()) throw std::invalid_argument("sql_collection: an ordering needs a name");
        for (std::size_t j = 0; j < i; ++j)
            if (spec_.orders[j].name == spec_.orders[i].name)
                throw std::invalid_argument("sql_collection: two orderings named '" + spec_.orders[i].name + "'");
        // Keys compare as the paging layer compares them: text byte by byte. A versioned table's
        // text columns are made that way; a foreign one's may have any collation, so its ordering
        // fields are compared and ordered under the byte-wise one ("C", BINARY) — an index with
        // that collation serves them.
        prepared_order p{spec_.orders[i].name, to_paging(spec_.orders[i], spec_.table), {}, {}, {}};
        for (std::size_t k = 0; k < p.order.fields.size(); ++k) {
            const auto* f = spec_.table.find(p.order.fields[k]);
            p.fields.push_back(static_cast<std::size_t>(f - spec_.table.fields.data()));
            std::string c = detail::quoted(f->name);
            if (foreign_ && (f->type == field_type::text || f->type == field_type::date))
                c += db_->dialect() == store::sql_dialect::postgres ? " COLLATE \"C\"" : " COLLATE BINARY";
            const bool desc = p.order.descends(k);
            p.order_by += (k ? ", " : "") + c + (desc ? " DESC" : " ASC");
            if (f->nullable) p.order_by += desc ? " NULLS LAST" : " NULLS FIRST";  // as compare_keys
            p.columns.push_back(std::move(c));
        }
        orders_.push_back(std::move(p));
    }
    if (spec_.max_views_per_principal < 1)
        throw std::invalid_argument("sql_collection: max_views_per_principal must be at least 1");
    if (foreign_) {
        ledger_ = std::make_shared<view_ledger>(spec_.max_views_per_principal, spec_.views);
        views_ = db_->open_read_views(spec_.views);
        if (!views_ && spec_.pin == pin_policy::required)
            throw std::invalid_argument("sql_collection: table " + spec_.table.table +
                                        " is foreign and its database holds no read views (an in-memory SQLite "
                                        "database?): choose pin_policy::best_effort or a database file");
    }
    if (!spec_.worker) spec_.worker = std::make_shared<offload::worker>();
    name_ = spec_.source_name.empty() ? spec_.table.table : spec_.source_name;
    for (const auto& f : spec_.table.fields) columns_ += (columns_.empty() ? "" : ", ") + detail::quoted(f.name);
}

issue_list sql_source::check(const boost::json::object& query) const {
    if (spec_.query_filter || spec_.filter_argument.empty()) return {};
    const auto* f = query.if_contains(spec_.filter_argument);
    if (!f) return {};
    auto c = compile_filter(*f, spec_.table, spec_.limits, "/" + spec_.filter_argument);
    if (!c) return c.error();
    return {};
}

boost::asio::awaitable<boost::system::result<std::string, paging::source_error>> sql_source::open_snapshot(
    const boost::json::object&, const mcp::principal&) {
    // Pinned by the first page's own statement (`fetch`), not by a round trip of its own.
    co_return std::string();
}

boost::asio::awaitable<boost::system::result<paging::fetch_result, paging::source_error>> sql_source::fetch(
    const paging::fetch_request& request) {
    // A walk's first page over a versioned table reads the table's sequence number in its own
    // statement: one snapshot. A foreign table's walk reads in a held view (opened by its first
    // page, on the worker).
    const bool pins = !foreign_ && request.snapshot.empty();
    std::int64_t snapshot = 0;
    if (!foreign_ && !pins) {
        const auto parsed = parse_snapshot(request.snapshot);
        if (!parsed)
            co_return paging::source_error{paging::source_error::kind::snapshot_gone, "unreadable snapshot id", {}};
        snapshot = *parsed;
    }

    const auto filter = compile_trusted_or_checked(request.query);
    std::optional<sql_condition> vis;
    if (spec_.visibility)
        if (auto v = spec_.visibility(request.caller)) vis = compile_trusted(*v, spec_);

    const auto table = detail::quoted(spec_.table.table);
    // The walk's ordering: one of ours (the paging layer asks for nothing else).
    const prepared_order* prepared = &orders_.front();
    if (request.order) {
        auto it = std::find_if(orders_.begin(), orders_.end(), [&](const prepared_order& p) {
            return p.order.fields == request.order->fields && p.order.descending == request.order->descending;
        });
        if (it == orders_.end())
            throw std::logic_error("sql_collection: a walk asks for an ordering it does not offer");
        prepared = &*it;
    }
    const auto& order = prepared->order;
    const auto& order_sql = prepared->order_by;

    // The snapshot in a statement: the pinned number, or the table's current one (an
    // uncorrelated subquery: read once, in the statement's own snapshot). A foreign table's
    // rows are all current in the view a statement runs in.
    const std::string pin = pins ? "(SELECT value FROM candor_sql_sequence WHERE name = ?)" : "?";
    const sql_value pin_param = pins ? sql_value(spec_.table.table) : sql_value(snapshot);
    const auto in_snapshot = foreign_ ? std::string("TRUE") : detail::in_snapshot(pin);
    const auto scope = [&](std::vector<sql_value>& params) {
        if (!foreign_) {
            params.push_back(pin_param);
            params.push_back(pin_param);
        }
        append(params, filter.params);
    };

    // Rows in scope for this caller, after the cursor's key, in key order.
    std::string sql = "SELECT " + columns_ + " FROM " + table + " WHERE " + in_snapshot + " AND " + filter.sql;
    std::vector<sql_value> params;
    scope(params);
    if (vis) {
        sql += " AND " + vis->sql;
        append(params, vis->params);
    }
    if (request.after) {
        auto after = after_key(*request.after, spec_.table, prepared->fields, prepared->columns, order);
        if (!after)
            co_return paging::source_error{
                paging::source_error::kind::snapshot_gone, "cursor key of another shape", {}};
        sql += " AND " + after->sql;
        append(params, after->params);
    }
    sql += " ORDER BY " + order_sql + " LIMIT ?";
    params.emplace_back(static_cast<std::int64_t>(request.limit));

    // What the page needs besides its rows — the pinned number, whether rows the query matches
    // are hidden from this caller (say that they exist, not which) — comes in one more row of
    // the same statement, ahead of the rows (column candor_row: 0 for it, 1 for a row).
    const bool trailer = pins || vis;
    if (trailer) {
        std::string nulls;  // named: a compound statement's columns are named by its first part
        for (const auto& f : spec_.table.fields) nulls += "NULL AS " + detail::quoted(f.name) + ", ";
        std::string hidden = "0";
        std::vector<sql_value> trailer_params;
        if (pins) trailer_params.push_back(pin_param);
        if (vis) {
            hidden = "CASE WHEN EXISTS(SELECT 1 FROM " + table + " WHERE " + in_snapshot + " AND " + filter.sql +
                     " AND (" + vis->sql + ") IS NOT TRUE) THEN 1 ELSE 0 END";
            scope(trailer_params);
            append(trailer_params, vis->params);
        }
        std::vector<sql_value> page_params = std::move(params);
        params = std::move(trailer_params);
        append(params, page_params);
        sql = "SELECT * FROM (SELECT " + nulls + "0 AS candor_row, " + (pins ? pin : "NULL") + " AS candor_pin, " +
              hidden + " AS candor_hidden UNION ALL SELECT " + columns_ + ", 1, NULL, NULL FROM (" + sql +
              ") AS candor_page) AS candor_answer ORDER BY candor_row, " + order_sql;
    }

    // On the worker; the work owns what it uses (the wait may end before it does).
    auto read = [db = db_, views = views_, ledger = ledger_, who = request.caller.id, view = request.snapshot,
                 foreign = foreign_, best_effort = spec_.pin == pin_policy::best_effort, fields = spec_.table.fields,
                 sql = std::move(sql), params = std::move(params), trailer, pins,
                 deadline =
                     request.deadline]() mutable -> boost::system::result<paging::fetch_result, paging::source_error> {
        paging::fetch_result out;
        std::optional<std::int64_t> pinned;
        if (foreign && view.empty()) {  // the walk's first page: hold a view for it
            auto opened = views ? views->open() : store::view_error{store::view_error::kind::limit, "no read views"};
            if (opened) {
                view = *opened;
                for (const auto& old : ledger->admit(view, who)) views->close(old);
            } else if (best_effort) {  // no view to be had (too many held, or the server refuses one)
                view = std::string(unpinned_walk);
            } else if (opened.error().what == store::view_error::kind::failed) {
                return unavailable(opened.error().message);
            } else {
                return paging::source_error{paging::source_error::kind::snapshot_expired, opened.error().message, {}};
            }
            out.snapshot = view;
        }
        const bool live = foreign && view == unpinned_walk;
        out.unpinned = live;
        auto on_row = [&](const sql_row& row) {
            if (trailer && std::get<std::int64_t>(row[fields.size()]) == 0) {
                if (const auto* p = std::get_if<std::int64_t>(&row[fields.size() + 1])) pinned = *p;
                const auto* h = std::get_if<std::int64_t>(&row[fields.size() + 2]);
                out.hidden_in_scope = h && *h != 0;
                return true;
            }
            boost::json::object item;
            for (std::size_t i = 0; i < fields.size(); ++i)
                item[fields[i].name] = detail::to_json(row[i], fields[i].type);
            out.items.emplace_back(std::move(item));
            ++out.items_scanned;
            if (std::chrono::steady_clock::now() >= deadline) {
                out.out_of_time = true;
                return false;
            }
            return true;
        };
        if (foreign && !live) {
            auto r = views->query(view, sql, params, on_row);
            if (!r) {
                if (r.error().what == store::view_error::kind::failed) return unavailable(r.error().message);
                return paging::source_error{paging::source_error::kind::snapshot_expired, r.error().message, {}};
            }
            return out;
        }
        if (auto r = db->query(sql, params, on_row); !r) return unavailable(r.error());
        if (pins) {
            if (!pinned) return unavailable("no sequence for the table (create_table first)");
            out.snapshot = std::to_string(*pinned);
        }
        return out;
    };
    // Waited for until the page's deadline at most: a statement still running then ends the
    // page with no more rows (`out_of_time`), and its rows are dropped when it finishes.
    using namespace asio::experimental::awaitable_operators;
    asio::steady_timer timer(co_await asio::this_coro::executor, request.deadline);
    auto raced = co_await (run_caught(spec_.worker, std::move(read)) || timer.async_wait(asio::use_awaitable));
    if (raced.index() == 1) {
        paging::fetch_result late;
        late.out_of_time = true;
        co_return late;
    }
    auto& done = std::get<0>(raced);
    if (done.error) {
        if (!cancelled(done.error)) std::rethrow_exception(done.error);
        co_return unavailable("the wait for the database was cancelled");
    }
    if (!*done.value) co_return done.value->error();
    co_return std::move(**done.value);
}

std::vector<paging::named_ordering> sql_source::orderings() const {
    std::vector<paging::named_ordering> out;
    for (const auto& p : orders_) out.push_back({p.name, p.order});
    return out;
}

void sql_source::walk_ended(const std::string& snapshot) {
    if (!foreign_ || !views_ || snapshot == unpinned_walk) return;
    asio::post(spec_.worker->executor(), [views = views_, ledger = ledger_, snapshot] {
        ledger->forget(snapshot);
        views->close(snapshot);
    });
}

sql_condition sql_source::compile_trusted_or_checked(const boost::json::object& query) const {
    const auto f = filter_of(spec_, query);
    if (spec_.query_filter) return compile_trusted(f, spec_);
    auto c = compile_filter(f, spec_.table, spec_.limits, "/" + spec_.filter_argument);
    // The collection ran `check` before the first read; a query that fails here is a bug.
    if (!c) throw std::logic_error("sql_collection: an unchecked filter reached the source");
    return std::move(*c);
}

boost::system::result<std::vector<std::string>, db_error> changed_since_walk(
    sql_database& db, const table_spec& table, evidence::evidence_store& store, std::string_view walk,
    std::span<const std::string> ids, std::chrono::system_clock::time_point now,
    std::vector<boost::json::object>* unchanged) {
    table.validate();
    const auto& key_field = *table.find(table.key);
    std::vector<sql_value> keys;
    for (const auto& id : ids) {
        if (key_field.type != field_type::integer) {
            keys.emplace_back(id);
            continue;
        }
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
        if (ec == std::errc{} && p == id.data() + id.size()) keys.emplace_back(v);
    }
    // What each row is now, written as a walk's page writes it.
    struct row_now {
        std::string id;
        std::string entry;  // its seen_as
        boost::json::value item;
    };
    std::vector<row_now> now_seen;
    if (!keys.empty()) {
        std::string sql = "SELECT ";
        for (std::size_t i = 0; i < table.fields.size(); ++i)
            sql += (i ? ", " : "") + detail::quoted(table.fields[i].name);
        sql += " FROM " + detail::quoted(table.table) + " WHERE " + detail::quoted(table.key) + " IN (";
        for (std::size_t i = 0; i < keys.size(); ++i) sql += i ? ", ?" : "?";
        sql += ")";
        std::string text;
        auto r = db.query(sql, keys, [&](const sql_row& row) {
            boost::json::value item(boost::json::object{});
            auto& fields = item.get_object();
            for (std::size_t i = 0; i < table.fields.size(); ++i)
                fields[table.fields[i].name] = detail::to_json(row[i], table.fields[i].type);
            const auto& key = fields.at(table.key);
            std::string id = key.is_string() ? std::string(key.get_string()) : json::to_string(key).value();
            text.clear();
            {
                json::text_sink sink(text);
                if (!json::write(item, sink, json::depth_ceiling))
                    throw std::logic_error("sql_collection: a row cannot be written");
            }
            auto entry = evidence::seen_as(id, text);
            now_seen.push_back({std::move(id), std::move(entry), std::move(item)});
            return true;
        });
        if (!r) return r.error();
    }
    std::vector<std::string> entries;
    for (const auto& r : now_seen) entries.push_back(r.entry);
    const auto unseen = store.uncovered(walk, entries, now);
    std::vector<std::string> changed;
    for (const auto& id : ids) {
        auto it = std::find_if(now_seen.begin(), now_seen.end(), [&](const row_now& r) { return r.id == id; });
        const bool same =
            unseen && it != now_seen.end() && std::find(unseen->begin(), unseen->end(), it->entry) == unseen->end();
        if (!same) changed.push_back(id);
        else if (unchanged) unchanged->push_back(std::move(it->item.get_object()));
    }
    return changed;
}

boost::json::object item_schema(const table_spec& table) {
    boost::json::object props;
    boost::json::array required;
    for (const auto& f : table.fields) {
        boost::json::value type;
        switch (f.type) {
            case field_type::text:
            case field_type::date: type = "string"; break;
            case field_type::integer: type = "integer"; break;
            case field_type::number: type = "number"; break;
            case field_type::boolean: type = "boolean"; break;
        }
        if (f.nullable) type = boost::json::array{type, "null"};
        boost::json::object p{{"type", type}};
        if (!f.description.empty()) p["description"] = f.description;
        props[f.name] = std::move(p);
        required.emplace_back(f.name);
    }
    return {{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)}};
}

std::shared_ptr<paging::collection_tool> make_collection(std::shared_ptr<sql_database> db, collection_spec spec,
                                                         mcp::tool_info info, paging::collection_options opts) {
    auto source = std::make_shared<sql_source>(std::move(db), std::move(spec));
    const auto& s = source->spec();
    if (!s.filter_argument.empty() && !s.query_filter) {
        auto& props = info.input_schema["properties"];
        if (!props.is_object()) props = boost::json::object{};
        props.get_object()[s.filter_argument] =
            boost::json::object{{"type", "object"}, {"description", describe_filter(s.table, s.limits)}};
    }
    opts.item_schema = item_schema(s.table);
    opts.check_query = [source](const boost::json::object& query) { return source->check(query); };
    auto orders = source->orderings();
    auto order = orders.front().order;
    if (orders.size() > 1) opts.orders = std::move(orders);
    return std::make_shared<paging::collection_tool>(std::move(info), std::move(order), source, std::move(opts));
}

}  // namespace candor::sql_collection
