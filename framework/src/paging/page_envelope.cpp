// SPDX-License-Identifier: BSL-1.0
// The envelope of one page: what it says besides its items (its reasons and warnings, its
// cursor or the walk's snapshot token, its `page` extension), and how many whole items it keeps
// to fit the byte budget of the response it goes out in.

#include "page.hpp"

#include <candor/evidence/token.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace candor::paging::detail {

namespace ce = candor::envelope;

namespace {

// The envelope of this page holding its first `k` items (`cut`: it ends there to fit its
// budget), its cursor and the walk's state after it. Built in place (a JSON object assigned
// from another storage is copied, not moved), with its extensions object made in the
// page's storage, so that the members put in it are moved too.
assembled assemble(const page_notes& n, const delivered_items& d, std::size_t k, bool cut) {
    const auto& opts = n.tool.options();
    assembled a;
    a.state = n.state;
    a.kept = k;
    auto& e = a.e;
    std::destroy_at(&e.extensions);
    std::construct_at(&e.extensions, n.storage);
    auto& st = a.state;
    if (n.hidden) {
        e.add_reason({std::string(ce::reason_codes::visibility_restricted),
                      "part of the requested scope is not visible to this caller; absence here is not "
                      "evidence of absence",
                      {{"visibility", n.scope.visibility}}});
    }
    st.after = key_at(d, n.state.after, k, n.order);
    st.delivered += k;
    st.pages += 1;
    st.issued = n.tool.wall_now();
    // A walk that had a gap is no complete evidence; its token names the gaps it had.
    auto taint = [&st](std::string_view code) {
        if (std::find(st.taints.begin(), st.taints.end(), code) == st.taints.end()) st.taints.emplace_back(code);
        st.clean = false;
    };
    if (n.hidden) taint(ce::reason_codes::visibility_restricted);
    if (n.unpinned) {
        e.add_reason({std::string(ce::reason_codes::snapshot_not_pinned),
                      "this page read the current rows, not one snapshot of the walk: rows written between "
                      "pages may be missing or appear twice, so the walk proves nothing absent",
                      {{"changes", "inserts, updates and deletes between pages"}}});
        taint(ce::reason_codes::snapshot_not_pinned);
    }
    auto go_on = [&] {
        a.cursor = seal_cursor(*opts.keys, st);
        e.continue_with(ce::continuation::next_cursor(*a.cursor));
    };
    if (n.out_of_time) {
        e.add_reason({std::string(ce::reason_codes::time_budget_exceeded),
                      "the time budget ran out; this page holds what was read by then",
                      {{"pages", st.pages}, {"items_scanned", n.items_scanned}}});
    }
    if (cut) {
        e.add_reason({std::string(ce::reason_codes::result_size_limit),
                      "the page ends early to fit the byte budget; more follow (continuation.cursor)",
                      {{"limit", n.request.budget->limit}, {"returned", k}}});
        go_on();
    } else if (n.out_of_time) {
        go_on();
    } else if (d.more && n.at_walk_limit) {
        e.add_reason({std::string(ce::reason_codes::result_limit_reached),
                      "this walk reached the server's limit of " + std::to_string(*opts.max_walk_items) + " items",
                      {{"limit", *opts.max_walk_items}}});
        e.continue_with(ce::continuation::narrow_query("add conditions so that fewer items match"));
    } else if (d.more) {
        e.add_reason({std::string(ce::reason_codes::more_pages_available),
                      "more items follow; call again with continuation.cursor",
                      {}});
        go_on();
    } else {
        a.ended = true;
    }
    if (!n.pinned) e.add_warning(live_warning());
    if (!n.kept_fields.empty()) {
        boost::json::array names;
        for (const auto& f : n.kept_fields) names.emplace_back(f);
        e.add_warning({std::string(ce::warning_codes::partial_field_set),
                       "items hold only the fields asked for (fields); a field left out is not empty",
                       {{"fields", std::move(names)}}});
    }
    if (n.keep_ids && a.ended) {
        // Sent only once the page's ids are in the evidence store (see serve.cpp).
        evidence::snapshot_claims t;
        t.resource = n.tool.info().name;
        t.query = st.query;
        t.principal = st.principal;
        t.snapshot = st.snapshot;
        t.walk = st.walk;
        t.complete = st.clean;
        t.reasons = st.taints;
        t.expiry = n.tool.wall_now() + opts.token_ttl;
        e.extensions["snapshot_token"] = evidence::seal_snapshot_token(*opts.keys, t);
    }
    e.extensions["page"] = page_extension(n.storage, k, n.requested, n.order_text, n.pinned, st.snapshot);
    const bool is_complete = e.incomplete_reasons.empty();
    e.status = is_complete ? ce::outcome::complete : ce::outcome::partial;
    e.complete = is_complete;
    e.covering(n.scope);
    return a;
}

}  // namespace

boost::json::object page_extension(const boost::json::storage_ptr& storage, std::size_t returned, std::size_t requested,
                                   const std::string& ordering, bool pinned, const std::string& snapshot) {
    boost::json::object page(4, storage);  // one table (an initializer list costs one per member)
    page.emplace("returned", returned);
    page.emplace("requested_size", requested);
    page.emplace("ordering", ordering);
    page.emplace("snapshot", pinned && !snapshot.empty() ? boost::json::value(snapshot) : boost::json::value(nullptr));
    return page;
}

ce::warning live_warning() {
    return ce::warning{std::string(codes::live_view),
                       "live view: items inserted behind the walk's position may be missed; this walk is not "
                       "a snapshot inventory",
                       {}};
}

assembled fit_page(const page_notes& n, const delivered_items& d) {
    // The items kept: all of them, or as many whole items as fit the byte budget — at least
    // one, so that a walk always moves on (the framework cuts the strings of an item larger
    // than any page, FIELD_TRUNCATED), unless the caller holds items already (`may_be_empty`).
    const std::size_t count = d.count;
    if (!n.request.budget || count == 0) return assemble(n, d, count, false);
    const auto& name = n.tool.info().name;
    const auto& written_ends = d.written_ends;
    const auto text = d.written->text();
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
    const auto& b = *n.request.budget;
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
    auto whole = assemble(n, d, count, false);
    if (fits(whole, count)) return whole;
    // The most items that fit, by halving (a page's size grows with its items; the
    // framework checks the answer once more on its way out).
    std::size_t lo = n.request.may_be_empty ? 0 : 1, hi = count - 1;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        auto shorter = assemble(n, d, mid, true);
        if (fits(shorter, mid)) lo = mid;
        else hi = mid - 1;
    }
    return assemble(n, d, lo, true);
}

}  // namespace candor::paging::detail
