// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// One page of a collection tool, from its request to its envelope: the request checked (its
// ordering, its query, its fields), the walk opened (from its cursor, or on a new snapshot), the
// source read, and the page's ids recorded in the evidence store before it goes out.
#include "page.hpp"

#include <candor/evidence/token.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace candor::paging {

namespace ce = candor::envelope;

namespace {

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

std::uint64_t ceil_seconds(std::chrono::milliseconds ms) {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(1, (ms.count() + 999) / 1000));
}

}  // namespace

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
        const auto allowed = detail::item_fields(opts_);
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
    auto page_extension = [&](std::size_t returned, const std::string& snapshot) {
        return detail::page_extension(page_storage, returned, size, order_text, pinned, snapshot);
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
        if (!pinned) out.result.add_warning(detail::live_warning());
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
            if (!pinned) out.result.add_warning(detail::live_warning());
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

    detail::delivered_items d;
    bool out_of_time = false;
    bool hidden = false;
    bool unpinned = false;  // the page read current rows, not the walk's snapshot
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
        fr.prepared = req.prepared.get();
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
            if (!pinned) out.result.add_warning(detail::live_warning());
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
        detail::take_items(d, f, order, effective, req.written, keep_ids);
    }

    // Keyset invariant: strictly increasing, after the cursor's position (the look-ahead item
    // too). A source that breaks it would deliver an item twice or skip one; that is a bug,
    // never a page.
    detail::check_keys(d, state.after, order, keep_ids, req.budget.has_value());
    // What each delivered item was, for an action's later check of it (a source whose objects
    // others change): the item's JSON as the source gave it, whole.
    if (keep_ids && source_->fingerprints_items()) detail::note_seen(d);
    // Where the walk stood before this page: where it resumes when the evidence store fails.
    std::optional<cursor_claims> before;
    if (keep_ids) before = state;

    // Only the fields asked for: items written by the source are read back to be cut down.
    if (!kept_fields.empty() && d.count > 0) detail::keep_fields(d, kept_fields);

    // A page held to a byte budget is written here, once (the envelope then carries the text):
    // its size is then known item by item.
    if (req.budget && d.count > 0 && !d.written) detail::write_items(d);

    const detail::page_notes notes{.tool = *this,
                                   .scope = sc,
                                   .request = req,
                                   .order = order,
                                   .order_text = order_text,
                                   .requested = size,
                                   .state = state,
                                   .storage = page_storage,
                                   .kept_fields = kept_fields,
                                   .items_scanned = out.items_scanned,
                                   .pinned = pinned,
                                   .hidden = hidden,
                                   .unpinned = unpinned,
                                   .out_of_time = out_of_time,
                                   .at_walk_limit = at_walk_limit,
                                   .keep_ids = keep_ids};
    auto page_of = detail::fit_page(notes, d);  // the page as it goes out
    ce::envelope& e = page_of.e;
    detail::put_items(d, e, page_of.kept, keep_ids);

    out.ended = page_of.ended;
    if constexpr (std::is_same_v<Result, page>) out.next_cursor = page_of.cursor;
    if (keep_ids) {
        const auto now = wall_now();
        // One trip to the store (on its worker when it has one): the page's ids, the walk's end,
        // and now and then a purge. The open walk lives as long as its newest cursor can still
        // be used. A failed store fails the page, which the same cursor fetches again.
        auto record = [store = opts_.evidence, walk = page_of.state.walk, ids = std::move(d.ids),
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
    if (out.ended && !page_of.state.snapshot.empty()) source_->walk_ended(page_of.state.snapshot);
    // Moved in place: a JSON object moved by assignment into another storage is copied.
    std::destroy_at(&out.result);
    std::construct_at(&out.result, std::move(e));
    out.state = std::move(page_of.state);
    co_return done(out);
}

template boost::asio::awaitable<page> collection_tool::serve_as<page>(page_request);
template boost::asio::awaitable<ce::envelope> collection_tool::serve_as<ce::envelope>(page_request);

}  // namespace candor::paging
