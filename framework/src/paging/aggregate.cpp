// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/aggregate.hpp>

#include <algorithm>

namespace candor::paging {

namespace ce = candor::envelope;

namespace {

template <class Note>
void merge_once(std::vector<Note>& into, const std::vector<Note>& from, std::string_view skip = {}) {
    for (const auto& n : from) {
        if (n.code == skip) continue;
        const bool seen = std::any_of(into.begin(), into.end(), [&](const Note& m) { return m.code == n.code; });
        if (!seen) into.push_back(n);
    }
}

}  // namespace

boost::asio::awaitable<ce::envelope> walk_all(collection_tool& collection, walk_request request) {
    boost::json::array items;
    std::vector<ce::reason> reasons;
    std::vector<ce::warning> warnings;
    std::size_t pages = 0;
    std::uint64_t scanned = 0;
    std::optional<std::string> cursor = request.cursor;
    std::optional<ce::continuation> next;
    std::optional<std::string> token;
    std::optional<cursor_claims> state;
    ce::scope sc;
    bool ended = false;
    const auto& lim = request.limits;

    auto stats = [&] { return boost::json::object{{"pages", pages}, {"items_scanned", scanned}}; };

    for (;;) {
        if (collection.steady_now() >= request.deadline) {
            reasons.push_back({std::string(ce::reason_codes::time_budget_exceeded),
                               "the time budget ran out after " + std::to_string(pages) + " pages", stats()});
            if (cursor) next = ce::continuation::next_cursor(*cursor);
            else next = ce::continuation::retry_with_deadline(1000);
            break;
        }
        const std::size_t room = lim.max_items - std::min(lim.max_items, items.size());
        page_request pr{request.query, cursor, std::max<std::size_t>(1, std::min(lim.page_size, room)), request.caller,
                        request.deadline};
        auto p = co_await collection.serve(std::move(pr));
        if (*p.result.status == ce::outcome::error) co_return std::move(p.result);
        ++pages;
        scanned += p.items_scanned;
        sc = p.result.scope;
        if (p.state) state = p.state;
        for (auto& i : p.result.data->as_array()) items.push_back(std::move(i));
        merge_once(reasons, p.result.incomplete_reasons, ce::reason_codes::more_pages_available);
        merge_once(warnings, p.result.warnings);
        if (auto* t = p.result.extensions.if_contains("snapshot_token")) token = std::string(t->as_string());
        if (p.ended) {
            ended = true;
            break;
        }
        const bool only_more = std::all_of(p.result.incomplete_reasons.begin(), p.result.incomplete_reasons.end(),
                                           [](const ce::reason& r) {
                                               return r.code == ce::reason_codes::more_pages_available ||
                                                      r.code == ce::reason_codes::visibility_restricted;
                                           });
        if (!p.next_cursor || !only_more) {
            // The page says how to go on (retry later, narrow the query); pass that on.
            next = p.result.continuation;
            break;
        }
        cursor = p.next_cursor;
        if (pages >= lim.max_pages || items.size() >= lim.max_items) {
            reasons.push_back({std::string(ce::reason_codes::client_page_limit),
                               "stopped at the caller's limit (" + std::to_string(pages) + " pages, " +
                                   std::to_string(items.size()) + " items); more items follow",
                               {{"max_pages", lim.max_pages},
                                {"max_items", lim.max_items},
                                {"pages", pages},
                                {"returned", items.size()}}});
            next = ce::continuation::next_cursor(*cursor);
            if (state) {
                std::vector<std::string> codes;
                for (const auto& r : reasons) codes.push_back(r.code);
                token = collection.seal_stopped_walk(*state, std::move(codes));
            }
            break;
        }
    }

    ce::envelope e;
    e.data = std::move(items);
    e.incomplete_reasons = std::move(reasons);
    e.warnings = std::move(warnings);
    const bool is_complete = e.incomplete_reasons.empty();
    e.status = is_complete ? ce::outcome::complete : ce::outcome::partial;
    e.complete = is_complete;
    if (!is_complete && next) e.continuation = std::move(next);
    e.scope = sc;
    e.extensions["walk"] = stats();
    if (token && (ended || !is_complete)) e.extensions["snapshot_token"] = *token;
    co_return e;
}

}  // namespace candor::paging
