// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <candor/paging/collection.hpp>

#include <candor/evidence/token.hpp>
#include <candor/json/write.hpp>

#include <boost/json/monotonic_resource.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace candor::paging {

namespace ce = candor::envelope;

namespace {

// The fields an item may be asked for: its schema's properties, in order; none when the schema
// does not name them.
std::vector<std::string> item_fields(const collection_options& o) {
    std::vector<std::string> out;
    const auto* schema = o.item_schema.if_object();
    const auto* props = schema ? schema->if_contains("properties") : nullptr;
    if (const auto* p = props ? props->if_object() : nullptr)
        for (const auto& kv : *p) out.emplace_back(kv.key());
    return out;
}

mcp::tool_info with_paging_arguments(mcp::tool_info info, const collection_options& o) {
    // A collection only reads: a data source has no way to write.
    info.action = mcp::action_class::read_only;
    auto& props = info.input_schema["properties"];
    if (!props.is_object()) props = boost::json::object{};
    auto& p = props.get_object();
    p[arguments::page_size] =
        boost::json::object{{"type", "integer"},
                            {"minimum", 1},
                            {"maximum", o.max_page_size},
                            {"default", o.default_page_size},
                            {"description", "Items per page (default " + std::to_string(o.default_page_size) + ")."}};
    p[arguments::cursor] = boost::json::object{
        {"type", "string"},
        {"minLength", 1},
        {"description", "continuation.cursor of the previous page, unchanged; omit to start a walk."}};
    if (o.accept_deadline)
        p[arguments::deadline_ms] =
            boost::json::object{{"type", "integer"},
                                {"minimum", 1},
                                {"maximum", o.max_deadline_ms},
                                {"description", "Answer within this many milliseconds, with what was found by then."}};
    if (!o.orders.empty()) {
        boost::json::array names;
        std::string list;
        for (const auto& n : o.orders) {
            names.emplace_back(n.name);
            list += (list.empty() ? "" : "; ") + n.name + " (" + n.order.to_string() + ")";
        }
        p[arguments::order_by] = boost::json::object{
            {"type", "string"},
            {"enum", std::move(names)},
            {"description", "The order to walk in (a '-' field descends; null first ascending, last descending): " +
                                list + ". A cursor keeps the order its walk began with."}};
    }
    // Asking for less (the partial-response pattern): the item's fields, by name.
    if (const auto names = item_fields(o); !names.empty()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        p[arguments::fields] = boost::json::object{
            {"type", "array"},
            {"items", boost::json::object{{"type", "string"}}},
            {"minItems", 1},
            {"maxItems", names.size()},
            {"uniqueItems", true},
            {"description", "Return only these item fields (the key fields always come too): " + list + "."}};
    }
    // Boolean schemas in object form: some clients (the TypeScript SDK's zod) accept only
    // object schemas inside `outputSchema`.
    boost::json::value items = o.item_schema;
    if (items.is_bool())
        items = items.get_bool() ? boost::json::value(boost::json::object{})
                                 : boost::json::value(boost::json::object{{"not", boost::json::object{}}});
    info.data_schema = boost::json::object{{"type", "array"}, {"items", std::move(items)}};
    return info;
}

collection_options checked(collection_options o) {
    if (!o.keys) throw std::invalid_argument("collection_tool needs a key ring");
    if (o.default_page_size < 1 || o.max_page_size < o.default_page_size)
        throw std::invalid_argument("collection_tool: 1 <= default_page_size <= max_page_size");
    if (!o.wall_clock) o.wall_clock = [] { return std::chrono::system_clock::now(); };
    if (!o.steady_clock) o.steady_clock = [] { return std::chrono::steady_clock::now(); };
    return o;
}

issue cursor_issue(std::string_view code, std::string message, bool repairable, layer where) {
    issue i;
    i.code = std::string(code);
    i.path = "/cursor";
    i.message = std::move(message);
    i.repairable = repairable;
    i.where = where;
    return i;
}

ce::envelope cursor_failure(issue i) { return ce::failure({std::move(i)}); }

ce::envelope expired_failure(std::string message, std::string_view code = codes::cursor_expired) {
    auto e = cursor_failure(cursor_issue(code, std::move(message), true, layer::external));
    e.continue_with(
        ce::continuation::restart("the walk cannot continue; start it over without a cursor "
                                  "and do not merge the new items with the old ones"));
    return e;
}

// The key of an item under the ordering; a source that hands out items without their key
// fields breaks the keyset contract (a bug, so an exception → INTERNAL_ERROR).
boost::json::array key_of(const boost::json::value& item, const ordering& order) {
    const auto* o = item.if_object();
    if (!o) throw std::logic_error("data source returned an item that is not an object");
    boost::json::array key;
    key.reserve(order.fields.size());
    for (const auto& f : order.fields) {
        const auto* v = o->if_contains(f);
        if (!v || v->is_object() || v->is_array())
            throw std::logic_error("data source returned an item without a scalar '" + f + "'");
        key.push_back(*v);
    }
    return key;
}

// A written item's key (its ordering fields' values, as the source reported them) must be
// scalars, as key_of requires of an item value.
void check_key(std::span<const boost::json::value> key, const ordering& order) {
    for (std::size_t k = 0; k < key.size(); ++k)
        if (key[k].is_object() || key[k].is_array())
            throw std::logic_error("data source returned an item without a scalar '" + order.fields[k] + "'");
}

std::string id_text(const boost::json::value& v) {
    if (const auto* s = v.if_string()) return std::string(*s);
    return json::to_string(v).value();
}

std::uint64_t ceil_seconds(std::chrono::milliseconds ms) {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(1, (ms.count() + 999) / 1000));
}

// Where a tools/call page keeps its small JSON — the query taken out of the arguments, the
// `page` extension and the envelope's extensions object — in one allocation with its resource
// (Boost.JSON allocates every key and table: about ten allocations a page otherwise). Larger
// than the buffer, it goes on from the heap.
class page_arena final : public boost::json::memory_resource {
public:
    page_arena() = default;
    page_arena(const page_arena&) = delete;
    page_arena& operator=(const page_arena&) = delete;

private:
    alignas(std::max_align_t) unsigned char buffer_[640];
    boost::json::monotonic_resource rest_{buffer_, sizeof buffer_};

    void* do_allocate(std::size_t n, std::size_t align) override { return rest_.allocate(n, align); }
    void do_deallocate(void*, std::size_t, std::size_t) override {}
    bool do_is_equal(const boost::json::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace

bool collection_tool::purge_due(wall_time now) {
    const std::int64_t now_ms = seal::to_epoch_ms(now);
    std::int64_t last = last_purge_ms_.load(std::memory_order_relaxed);
    const std::int64_t interval_ms = std::chrono::milliseconds(opts_.evidence_purge_interval).count();
    if (now_ms - last < interval_ms) return false;
    // One page of all those running at this moment does the purge.
    return last_purge_ms_.compare_exchange_strong(last, now_ms, std::memory_order_relaxed);
}

std::string visibility_of(const mcp::principal& p) {
    return p.id.empty() ? std::string("anonymous") : "principal:" + p.id;
}

collection_tool::collection_tool(mcp::tool_info info, ordering order, std::shared_ptr<data_source> source,
                                 collection_options opts)
    : json_tool(with_paging_arguments(std::move(info), opts)),
      order_(std::move(order)),
      order_text_(order_.to_string()),
      source_(std::move(source)),
      opts_(checked(std::move(opts))) {
    if (order_.fields.empty()) throw std::invalid_argument("collection_tool needs an ordering");
    if (!source_) throw std::invalid_argument("collection_tool needs a data source");
    for (const auto& n : opts_.orders) {
        if (n.name.empty() || n.order.fields.empty())
            throw std::invalid_argument("collection_tool: an ordering needs a name and fields");
        if (n.order.fields.back() != order_.fields.back())
            throw std::invalid_argument("collection_tool: ordering '" + n.name + "' must end with the unique field '" +
                                        order_.fields.back() + "'");
        orders_text_.push_back(n.order.to_string());
    }
}

boost::asio::awaitable<ce::envelope> collection_tool::call(const boost::json::object& args, mcp::call_context& ctx) {
    // The page's JSON is built where its query is (serve uses the query's storage). Initialized,
    // not assigned: a JSON container assigned from another storage keeps its own.
    page_request r{.query = boost::json::object(args.size(), boost::json::make_shared_resource<page_arena>())};
    r.caller = ctx.caller();
    r.deadline = ctx.deadline() - opts_.deadline_margin;
    for (const auto& kv : args) {
        if (kv.key() == arguments::cursor && kv.value().is_string()) r.cursor = std::string(kv.value().get_string());
        else if (kv.key() == arguments::page_size && kv.value().is_number())
            r.page_size = kv.value().to_number<std::size_t>();
        else if (kv.key() == arguments::fields && kv.value().is_array()) {
            r.fields.emplace();
            for (const auto& f : kv.value().get_array())
                if (f.is_string()) r.fields->emplace_back(f.get_string());
        } else if (kv.key() == arguments::deadline_ms && opts_.accept_deadline && kv.value().is_number())
            r.deadline =
                std::min(r.deadline, steady_now() + std::chrono::milliseconds(kv.value().to_number<std::int64_t>()));
        else r.query.emplace(kv.key(), boost::json::value(kv.value(), r.query.storage()));
    }
    r.written = true;  // the page goes to the caller as it is
    r.budget = ctx.budget();
    // Not a coroutine of its own: the page's coroutine returns the envelope (one frame a call).
    return serve_as<ce::envelope>(std::move(r));
}

std::optional<std::string> collection_tool::seal_stopped_walk(const cursor_claims& state,
                                                              std::vector<std::string> reasons) const {
    if (!opts_.evidence || source_->snapshots() != snapshot_mode::pinned) return std::nullopt;
    evidence::snapshot_claims t;
    t.resource = info().name;
    t.query = state.query;
    t.principal = state.principal;
    t.snapshot = state.snapshot;
    t.walk = state.walk;
    t.complete = false;
    t.reasons = std::move(reasons);
    t.expiry = wall_now() + opts_.token_ttl;
    return evidence::seal_snapshot_token(*opts_.keys, t);
}

boost::asio::awaitable<page> collection_tool::serve(page_request req) { return serve_as<page>(std::move(req)); }

template <class Result>
boost::asio::awaitable<Result> collection_tool::serve_as(page_request req) {
    // What the caller gets: the page, or (a tools/call) only its envelope.
    auto done = [](page& p) -> Result {
        if constexpr (std::is_same_v<Result, page>) return std::move(p);
        else return std::move(p.result);
    };
    page out;
    // The walk continues after `state`: its cursor in the envelope (and in the page, for
    // callers that get one; a tools/call only sends the envelope).
    auto continue_after = [&out](const seal::key_ring& keys, const cursor_claims& state) {
        std::string cursor = seal_cursor(keys, state);
        if constexpr (std::is_same_v<Result, page>) out.next_cursor = cursor;
        out.result.continue_with(ce::continuation::next_cursor(std::move(cursor)));
    };
    const auto& name = info().name;
    const bool pinned = source_->snapshots() == snapshot_mode::pinned;
    ce::scope sc{name, visibility_of(req.caller), std::string(to_string(source_->snapshots()))};
    auto query_text = normalize_query(req.query, {});
    if (!query_text) throw std::logic_error("query deeper than the JSON depth ceiling");

    // The walk's ordering: the tool's own, or the one `order_by` names (the schema allowed only
    // those names; an in-process caller that names another is a bug).
    const ordering* chosen = &order_;
    const std::string* chosen_text = &order_text_;
    if (const auto* by = req.query.if_contains(arguments::order_by); by && !opts_.orders.empty()) {
        const auto* s = by->if_string();
        auto it = std::find_if(opts_.orders.begin(), opts_.orders.end(),
                               [&](const named_ordering& n) { return s && n.name == *s; });
        if (it == opts_.orders.end()) throw std::logic_error("collection_tool: order_by names no ordering");
        chosen = &it->order;
        chosen_text = &orders_text_[static_cast<std::size_t>(it - opts_.orders.begin())];
    }
    const ordering& order = *chosen;
    const std::string& order_text = *chosen_text;

    cursor_claims expected;
    expected.tool = name;
    expected.query = seal::fingerprint("query", *query_text);
    expected.ordering = order_text;
    expected.principal = evidence::principal_fingerprint(req.caller.id);

    const std::size_t size =
        std::clamp<std::size_t>(req.page_size.value_or(opts_.default_page_size), 1, opts_.max_page_size);

    if (opts_.check_query) {
        auto issues = opts_.check_query(req.query);
        if (!issues.empty()) {
            out.result = ce::failure(std::move(issues));
            out.result.covering(sc);
            co_return done(out);
        }
    }

    // The fields asked for: each one an item field (UNKNOWN_FIELD names the allowed ones); the
    // ordering fields come too, so that every item still says where it stands.
    std::vector<std::string> kept_fields;  // empty: every field
    if (req.fields) {
        const auto allowed = item_fields(opts_);
        issue_list unknown;
        for (std::size_t i = 0; i < req.fields->size(); ++i) {
            const auto& f = (*req.fields)[i];
            if (std::find(allowed.begin(), allowed.end(), f) != allowed.end()) continue;
            boost::json::array names;
            for (const auto& a : allowed) names.emplace_back(a);
            issue u;
            u.code = "UNKNOWN_FIELD";
            u.path = "/fields/" + std::to_string(i);
            u.message = "'" + f + "' is not a field of this collection's items; ask for fields from details.allowed";
            u.repairable = true;
            u.where = layer::contract;
            u.details["allowed"] = std::move(names);
            unknown.push_back(std::move(u));
        }
        if (!unknown.empty()) {
            out.result = ce::failure(std::move(unknown));
            out.result.covering(sc);
            co_return done(out);
        }
        kept_fields = *req.fields;
        for (const auto& f : order.fields)
            if (std::find(kept_fields.begin(), kept_fields.end(), f) == kept_fields.end()) kept_fields.push_back(f);
    }

    // The page's extensions live where its query does (a tools/call page: one arena).
    const boost::json::storage_ptr& page_storage = req.query.storage();
    // Every page that is not an error says what it is, even when nothing could be read.
    auto page_extension = [&](std::size_t returned, const std::string& snapshot) {
        boost::json::object page(4, page_storage);  // one table (an initializer list costs one per member)
        page.emplace("returned", returned);
        page.emplace("requested_size", size);
        page.emplace("ordering", order_text);
        page.emplace("snapshot",
                     pinned && !snapshot.empty() ? boost::json::value(snapshot) : boost::json::value(nullptr));
        return page;
    };

    auto live_warning = [] {
        return ce::warning{std::string(codes::live_view),
                           "live view: items inserted behind the walk's position may be missed; this walk is not "
                           "a snapshot inventory",
                           {}};
    };
    // `source` failed before anything was delivered: the page is empty and the walk resumes from
    // the same position, so nothing is lost.
    auto nothing_read = [&](cursor_claims& state, const std::string& source) {
        out.result = ce::partial(boost::json::array{}, {std::string(ce::reason_codes::source_unavailable),
                                                        "the source '" + source + "' failed; nothing was read",
                                                        {{"source", source}}});
        state.issued = wall_now();
        continue_after(*opts_.keys, state);
        out.result.extensions["page"] = page_extension(0, state.snapshot);
        if (!pinned) out.result.add_warning(live_warning());
        out.result.covering(sc);
        out.state = state;
    };

    cursor_claims state;
    if (req.cursor) {
        auto opened = open_cursor(*opts_.keys, *req.cursor, wall_now(), opts_.cursor_ttl);
        if (!opened) {
            if (opened.error() == cursor_error::expired)
                out.result =
                    expired_failure("the cursor expired (cursors live " + std::to_string(opts_.cursor_ttl.count()) +
                                    " s); call again without it to start the walk over");
            else
                out.result = cursor_failure(
                    cursor_issue(codes::cursor_invalid,
                                 "the cursor is not one this tool issued (malformed or altered); call again without a "
                                 "cursor to start the walk over",
                                 true, layer::contract));
            out.result.covering(sc);
            co_return done(out);
        }
        if (auto m = mismatch(*opened, expected)) {
            std::string why;
            switch (*m) {
                case cursor_binding::tool:
                    why = "the cursor was issued by another tool; use it with that tool, or call again without it";
                    break;
                case cursor_binding::query:
                    why =
                        "the cursor was issued for another query; repeat that query with it, or call again without it "
                        "to start a new walk";
                    break;
                case cursor_binding::ordering:
                    why = "the cursor was issued for another ordering; call again without it to start a new walk";
                    break;
                case cursor_binding::principal:
                    why = "the cursor was issued to another caller; call again without it to start your own walk";
                    break;
            }
            auto i = cursor_issue(codes::cursor_mismatch, std::move(why), true, layer::contract);
            i.details["binding"] = to_string(*m);
            out.result = cursor_failure(std::move(i));
            out.result.covering(sc);
            co_return done(out);
        }
        state = std::move(*opened);
    } else {
        auto snap = co_await source_->open_snapshot(req.query, req.caller);
        if (!snap) {
            const auto& err = snap.error();
            if (err.what == source_error::kind::rate_limited) {
                out.result = ce::partial(boost::json::array{}, {std::string(ce::reason_codes::rate_limited),
                                                                "the source is rate limited",
                                                                {{"retry_after_ms", err.retry_after.count()}}});
            } else {
                out.result = ce::partial(boost::json::array{}, {std::string(ce::reason_codes::source_unavailable),
                                                                "the source could not open a snapshot",
                                                                {{"source", source_->name()}}});
            }
            out.result.continue_with(ce::continuation::retry_after(ceil_seconds(err.retry_after)));
            out.result.extensions["page"] = page_extension(0, {});
            if (!pinned) out.result.add_warning(live_warning());
            out.result.covering(sc);
            co_return done(out);
        }
        state = std::move(expected);  // not needed after this
        state.snapshot = std::move(*snap);
        state.walk = seal::random_hex(16);
    }

    // The server-side walk limit shrinks the last pages; reaching it is RESULT_LIMIT_REACHED.
    std::size_t effective = size;
    bool at_walk_limit = false;
    if (opts_.max_walk_items) {
        const std::uint64_t left =
            state.delivered >= *opts_.max_walk_items ? 0 : *opts_.max_walk_items - state.delivered;
        if (left <= size) {
            effective = static_cast<std::size_t>(left);
            at_walk_limit = true;
        }
    }

    std::vector<boost::json::value> items;
    boost::json::storage_ptr storage;
    // Or the items written already (fetch_result::items_written), with their keys.
    std::optional<json::written> written;
    std::vector<std::size_t> written_ends;
    std::vector<boost::json::value> written_keys;
    std::size_t keys_from = 0;   // the first item whose key is in written_keys
    bool order_checked = false;  // by the source (written_order_checked)
    std::size_t count = 0;       // items delivered
    std::size_t returned = 0;    // and the look-ahead item, if the source found one
    bool out_of_time = false;
    bool hidden = false;
    bool unpinned = false;  // the page read current rows, not the walk's snapshot
    bool more = false;
    // The delivered ids, for the evidence store only.
    const bool keep_ids = pinned && opts_.evidence;
    if (steady_now() >= req.deadline) {
        out_of_time = true;
    } else {
        fetch_request fr{
            req.query,    state.after.empty() ? nullptr : &state.after, effective + 1, state.snapshot, req.caller,
            req.deadline, req.written ? &order.fields : nullptr};
        fr.every_written_key = keep_ids;
        fr.order = &order;
        auto fetched = co_await source_->fetch(fr);
        if (!fetched) {
            const auto& err = fetched.error();
            switch (err.what) {
                case source_error::kind::snapshot_gone:
                    out.result = expired_failure("the snapshot this walk reads is no longer available");
                    out.result.covering(sc);
                    co_return done(out);
                case source_error::kind::snapshot_expired:
                    out.result = expired_failure(
                        state.snapshot.empty()
                            ? "no snapshot can be held for a new walk now (too many are); start the walk again later"
                            : "the snapshot this walk reads has ended (too old, or its holder is gone)",
                        codes::snapshot_expired);
                    out.result.covering(sc);
                    co_return done(out);
                case source_error::kind::rate_limited:
                    out.result = ce::partial(boost::json::array{}, {std::string(ce::reason_codes::rate_limited),
                                                                    "the source is rate limited; nothing was read",
                                                                    {{"retry_after_ms", err.retry_after.count()}}});
                    out.result.continue_with(ce::continuation::retry_after(ceil_seconds(err.retry_after)));
                    break;
                case source_error::kind::unavailable:
                    nothing_read(state, std::string(source_->name()));
                    co_return done(out);
            }
            out.result.extensions["page"] = page_extension(0, state.snapshot);
            if (!pinned) out.result.add_warning(live_warning());
            out.result.covering(sc);
            out.state = state;
            co_return done(out);
        }
        auto& f = *fetched;
        out.items_scanned = f.items_scanned;
        out_of_time = f.out_of_time;
        hidden = f.hidden_in_scope;
        unpinned = f.unpinned;
        if (pinned && state.snapshot.empty()) state.snapshot = std::move(f.snapshot);  // pinned by this read
        if (f.items_written) {
            if (!req.written) throw std::logic_error("data source wrote items that were asked for as values");
            written = std::move(f.items_written);
            written_ends = std::move(f.written_ends);
            written_keys = std::move(f.written_keys);
            count = written_ends.size();
            order_checked = f.written_order_checked;
            if (order_checked && keep_ids) throw std::logic_error("data source left out keys that were asked for");
            keys_from = order_checked ? count - std::min<std::size_t>(count, 2) : 0;
            if (written_keys.size() != (count - keys_from) * order.fields.size())
                throw std::logic_error("data source wrote items without their key fields");
            // The item ends must cut the array where items end: increasing, inside "[…]".
            const auto text = written->text();
            std::size_t from = 1;
            for (const auto end : written_ends) {
                if (end <= from || end >= text.size())
                    throw std::logic_error("data source wrote item ends outside its text");
                from = end + 1;  // past the comma
            }
            if (text.size() < 2 || text.front() != '[' || text.back() != ']')
                throw std::logic_error("data source wrote items that are not one JSON array");
        } else {
            items = std::move(f.items);
            storage = f.storage;
            count = items.size();
        }
        if (count > effective + 1) throw std::logic_error("data source returned more items than asked for");
        returned = count;
        if (count > effective) {
            more = true;
            count = effective;
        }
    }

    // Keyset invariant: strictly increasing, after the cursor's position (the look-ahead item
    // too). A source that breaks it would deliver an item twice or skip one; that is a bug,
    // never a page.
    using key_view = std::span<const boost::json::value>;
    const std::size_t fields = order.fields.size();
    boost::json::array last_key;  // where the walk stands after this page
    std::vector<std::string> ids;
    if (keep_ids) ids.reserve(count);
    // Each delivered item's key, kept when the page may be cut short to fit its byte budget.
    std::vector<boost::json::array> item_keys;
    if (req.budget) item_keys.reserve(count);
    if (order_checked) {  // by the source: only the last key delivered is needed
        if (count > 0) {
            const key_view key(written_keys.data() + (count - 1 - keys_from) * fields, fields);
            check_key(key, order);
            last_key = boost::json::array(key.begin(), key.end());
        }
    } else {
        key_view last(state.after.data(), state.after.size());
        boost::json::array last_built;  // the last key taken out of an item value
        for (std::size_t i = 0; i < returned; ++i) {
            key_view key;
            boost::json::array built;
            if (written) {
                key = key_view(written_keys.data() + i * fields, fields);
                check_key(key, order);
            } else {
                built = key_of(items[i], order);
                key = key_view(built.data(), built.size());
            }
            if (!last.empty() && compare_keys(last, key, order) >= 0)
                throw std::logic_error("data source returned items out of order or before the cursor");
            if (keep_ids && i < count) ids.push_back(id_text(key.back()));
            if (req.budget && i < count) item_keys.emplace_back(key.begin(), key.end());
            if (i + 1 == count) last_key = boost::json::array(key.begin(), key.end());
            if (written) {
                last = key;
            } else {
                last_built = std::move(built);
                last = key_view(last_built.data(), last_built.size());
            }
        }
    }
    if (count == 0) last_key = state.after;
    // What each delivered item was, for an action's later check of it (a source whose objects
    // others change): the item's JSON as the source gave it, whole.
    std::vector<std::string> seen;
    if (keep_ids && source_->fingerprints_items()) {
        seen.reserve(count);
        std::string text;
        for (std::size_t i = 0, from = 1; i < count; ++i) {
            if (written) {
                const auto all = written->text();
                text.assign(all.substr(from, written_ends[i] - from));
                from = written_ends[i] + 1;
            } else {
                text.clear();
                {
                    json::text_sink sink(text);  // the text is cut to what was written when it goes
                    if (!json::write(items[i], sink, json::depth_ceiling))
                        throw std::logic_error("data source returned an item that cannot be written");
                }
            }
            seen.push_back(evidence::seen_as(ids[i], text));
        }
    }
    // Where the walk stood before this page: where it resumes when the evidence store fails.
    std::optional<cursor_claims> before;
    if (keep_ids) before = state;

    // Only the fields asked for: items written by the source are read back to be cut down.
    if (!kept_fields.empty() && count > 0) {
        if (written) {
            const auto text = written->text();
            items.clear();
            for (std::size_t i = 0, from = 1; i < count; from = written_ends[i] + 1, ++i)
                items.push_back(
                    json::written::adopt(std::string(text.substr(from, written_ends[i] - from))).to_value());
            written.reset();
            written_ends.clear();
            storage = {};
        }
        items.resize(count);
        for (auto& it : items) {
            auto* o = it.if_object();
            if (!o) continue;
            for (auto m = o->begin(); m != o->end();) {
                if (std::find(kept_fields.begin(), kept_fields.end(), m->key()) == kept_fields.end()) m = o->erase(m);
                else ++m;
            }
        }
    }

    // A page held to a byte budget is written here, once (the envelope then carries the text):
    // its size is then known item by item.
    if (req.budget && count > 0 && !written) {
        std::string text = "[";
        written_ends.clear();
        for (std::size_t i = 0; i < count; ++i) {
            if (i != 0) text.push_back(',');
            {
                json::text_sink sink(text);  // the text is cut to what was written when it goes
                if (auto w = json::write(items[i], sink, json::depth_ceiling); !w)
                    throw std::logic_error("data source returned an item that cannot be written");
            }
            written_ends.push_back(text.size());
        }
        text.push_back(']');
        written = json::written::adopt(std::move(text));
        items.clear();
    }

    // The envelope of this page holding its first `k` items (`cut`: it ends there to fit its
    // budget), its cursor and the walk's state after it. Built in place (a JSON object assigned
    // from another storage is copied, not moved), with its extensions object made in the
    // page's storage, so that the members put in it are moved too.
    struct assembled {
        ce::envelope e;
        cursor_claims state;
        std::optional<std::string> cursor;
        bool ended = false;
    };
    auto key_at = [&](std::size_t k) -> boost::json::array {  // of the k-th item delivered (1-based)
        if (k == 0) return state.after;
        if (k == count) return last_key;
        if (!item_keys.empty()) return item_keys[k - 1];
        // A source that checked the order itself reported the last keys only: read the item.
        const auto text = written->text();
        const std::size_t from = k == 1 ? 1 : written_ends[k - 2] + 1;
        return key_of(json::written::adopt(std::string(text.substr(from, written_ends[k - 1] - from))).to_value(),
                      order);
    };
    auto assemble = [&](std::size_t k, bool cut) {
        assembled a;
        a.state = state;
        auto& e = a.e;
        std::destroy_at(&e.extensions);
        std::construct_at(&e.extensions, page_storage);
        auto& st = a.state;
        if (hidden) {
            e.add_reason({std::string(ce::reason_codes::visibility_restricted),
                          "part of the requested scope is not visible to this caller; absence here is not "
                          "evidence of absence",
                          {{"visibility", sc.visibility}}});
        }
        st.after = key_at(k);
        st.delivered += k;
        st.pages += 1;
        st.issued = wall_now();
        // A walk that had a gap is no complete evidence; its token names the gaps it had.
        auto taint = [&st](std::string_view code) {
            if (std::find(st.taints.begin(), st.taints.end(), code) == st.taints.end()) st.taints.emplace_back(code);
            st.clean = false;
        };
        if (hidden) taint(ce::reason_codes::visibility_restricted);
        if (unpinned) {
            e.add_reason({std::string(ce::reason_codes::snapshot_not_pinned),
                          "this page read the current rows, not one snapshot of the walk: rows written between "
                          "pages may be missing or appear twice, so the walk proves nothing absent",
                          {{"changes", "inserts, updates and deletes between pages"}}});
            taint(ce::reason_codes::snapshot_not_pinned);
        }
        auto go_on = [&] {
            a.cursor = seal_cursor(*opts_.keys, st);
            e.continue_with(ce::continuation::next_cursor(*a.cursor));
        };
        if (out_of_time) {
            e.add_reason({std::string(ce::reason_codes::time_budget_exceeded),
                          "the time budget ran out; this page holds what was read by then",
                          {{"pages", st.pages}, {"items_scanned", out.items_scanned}}});
        }
        if (cut) {
            e.add_reason({std::string(ce::reason_codes::result_size_limit),
                          "the page ends early to fit the byte budget; more follow (continuation.cursor)",
                          {{"limit", req.budget->limit}, {"returned", k}}});
            go_on();
        } else if (out_of_time) {
            go_on();
        } else if (more && at_walk_limit) {
            e.add_reason({std::string(ce::reason_codes::result_limit_reached),
                          "this walk reached the server's limit of " + std::to_string(*opts_.max_walk_items) + " items",
                          {{"limit", *opts_.max_walk_items}}});
            e.continue_with(ce::continuation::narrow_query("add conditions so that fewer items match"));
        } else if (more) {
            e.add_reason({std::string(ce::reason_codes::more_pages_available),
                          "more items follow; call again with continuation.cursor",
                          {}});
            go_on();
        } else {
            a.ended = true;
        }
        if (!pinned) e.add_warning(live_warning());
        if (!kept_fields.empty()) {
            boost::json::array names;
            for (const auto& f : kept_fields) names.emplace_back(f);
            e.add_warning({std::string(ce::warning_codes::partial_field_set),
                           "items hold only the fields asked for (fields); a field left out is not empty",
                           {{"fields", std::move(names)}}});
        }
        if (keep_ids && a.ended) {
            // Sent only once the page's ids are in the evidence store (see below).
            evidence::snapshot_claims t;
            t.resource = name;
            t.query = st.query;
            t.principal = st.principal;
            t.snapshot = st.snapshot;
            t.walk = st.walk;
            t.complete = st.clean;
            t.reasons = st.taints;
            t.expiry = wall_now() + opts_.token_ttl;
            e.extensions["snapshot_token"] = evidence::seal_snapshot_token(*opts_.keys, t);
        }
        e.extensions["page"] = page_extension(k, st.snapshot);
        const bool is_complete = e.incomplete_reasons.empty();
        e.status = is_complete ? ce::outcome::complete : ce::outcome::partial;
        e.complete = is_complete;
        e.covering(sc);
        return a;
    };

    // The items kept: all of them, or as many whole items as fit the byte budget — at least
    // one, so that a walk always moves on (the framework cuts the strings of an item larger
    // than any page, FIELD_TRUNCATED), unless the caller holds items already (`may_be_empty`).
    std::size_t keep = count;
    std::optional<assembled> page_of;  // the page as it goes out, once assembled
    if (req.budget && count > 0) {
        const auto text = written->text();
        // Bytes that grow when escaped ('"' and '\\'; the writer leaves no control byte raw), up
        // to the end of each item: counted only for a page that might not fit.
        std::vector<std::size_t> escapes;
        auto count_escapes = [&] {
            escapes.resize(count);
            std::size_t grown = 0;
            for (std::size_t i = 0, at = 0; i < count; ++i) {
                for (; at < written_ends[i]; ++at) grown += text[at] == '"' || text[at] == '\\';
                escapes[i] = grown;
            }
        };
        const auto& b = *req.budget;
        // Whether the page of the first k items fits: its envelope written once with empty data,
        // and the items' bytes added to it (escaped, for the text block, and as they are). The
        // common page is far below its budget even if every byte of its items doubled when
        // escaped: then nothing is counted.
        auto fits = [&](assembled& a, std::size_t k) {
            a.e.data_written = json::written::adopt("[]");
            thread_local std::string shape;  // grown once per thread, not per page
            shape.clear();
            const auto w = ce::write_sealed(a.e, name, shape, json::depth_ceiling);
            a.e.data_written.reset();
            if (!w) throw std::logic_error("a page's envelope cannot be written");
            const std::size_t data = k == 0 ? 2 : written_ends[k - 1] + 1;  // "[" … item k "]"
            const std::size_t shape_escaped = json::string_size(shape) - 2;
            if (b.size_of(shape.size() - 2 + data, shape_escaped + 2 * data) <= b.limit) return true;
            if (escapes.empty()) count_escapes();
            return b.size_of(shape.size() - 2 + data, shape_escaped + data + (k == 0 ? 0 : escapes[k - 1])) <= b.limit;
        };
        page_of = assemble(count, false);
        if (!fits(*page_of, count)) {
            // The most items that fit, by halving (a page's size grows with its items; the
            // framework checks the answer once more on its way out).
            std::size_t lo = req.may_be_empty ? 0 : 1, hi = count - 1;
            while (lo < hi) {
                const std::size_t mid = lo + (hi - lo + 1) / 2;
                auto shorter = assemble(mid, true);
                if (fits(shorter, mid)) lo = mid;
                else hi = mid - 1;
            }
            keep = lo;
            page_of = assemble(keep, true);
        }
    }
    if (!page_of) page_of = assemble(keep, false);
    ce::envelope& e = page_of->e;
    if (written) {
        // Without the look-ahead item (and what the budget left out): the text up to the end of
        // the last item kept.
        std::string text = std::move(*written).release();
        text.resize(keep == 0 ? 1 : written_ends[keep - 1]);
        text.push_back(']');
        e.data_written = json::written::adopt(std::move(text));
    } else {
        items.resize(keep);
        boost::json::array data(storage);
        data.reserve(items.size());
        for (auto& i : items) data.push_back(std::move(i));
        e.data = std::move(data);
    }
    if (keep_ids) {
        ids.resize(keep);
        for (std::size_t i = 0; i < keep && i < seen.size(); ++i) ids.push_back(std::move(seen[i]));
    }

    out.ended = page_of->ended;
    if constexpr (std::is_same_v<Result, page>) out.next_cursor = page_of->cursor;
    if (keep_ids) {
        const auto now = wall_now();
        // One trip to the store (on its worker when it has one): the page's ids, the walk's end,
        // and now and then a purge. The open walk lives as long as its newest cursor can still
        // be used. A failed store fails the page, which the same cursor fetches again.
        auto record = [store = opts_.evidence, walk = page_of->state.walk, ids = std::move(ids),
                       open_until = now + opts_.cursor_ttl,
                       closing = out.ended ? std::optional(now + opts_.token_ttl) : std::nullopt,
                       purge = purge_due(now), now] {
            store->record_page(walk, ids, open_until, closing);
            if (purge) {
                try {
                    store->purge(now);
                } catch (const std::exception&) {
                    // The next purge takes what this one left.
                }
            }
            return true;
        };
        if (!co_await evidence::call_store(*opts_.evidence, std::move(record))) {
            out.ended = false;
            if constexpr (std::is_same_v<Result, page>) out.next_cursor.reset();
            nothing_read(*before, "evidence store");
            co_return done(out);
        }
    }
    // The walk is over: what holds its snapshot may let go.
    if (out.ended && !page_of->state.snapshot.empty()) source_->walk_ended(page_of->state.snapshot);
    // Moved in place: a JSON object moved by assignment into another storage is copied.
    std::destroy_at(&out.result);
    std::construct_at(&out.result, std::move(e));
    out.state = std::move(page_of->state);
    co_return done(out);
}

}  // namespace candor::paging
