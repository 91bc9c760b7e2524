// SPDX-License-Identifier: BSL-1.0
#include <candor/paging/aggregate.hpp>

#include <candor/json/write.hpp>

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

// Bytes the walk's own envelope may take beyond what a page's envelope takes (its `walk`
// statistics, a reason of its own, the reasons and warnings of earlier pages), counted twice as
// the envelope is sent twice.
constexpr std::size_t walk_reserve = 512;

// The bytes a walk's items take in its response: as they are and escaped (the text block).
struct gathered_bytes {
    std::size_t text = 0;
    std::size_t escaped = 0;

    void add(std::string_view page_text) {  // "[item,item]"
        if (page_text.size() <= 2) return;
        const std::size_t comma = text == 0 ? 0 : 1;
        text += page_text.size() - 2 + comma;
        escaped += json::string_size(page_text) - 2 - 2 + comma;
    }
};

std::size_t notes_bytes(const std::vector<ce::reason>& reasons, const std::vector<ce::warning>& warnings) {
    std::size_t n = 0;
    for (const auto& r : reasons) n += r.code.size() + r.message.size() + 64;
    for (const auto& w : warnings) n += w.code.size() + w.message.size() + 64;
    return n;
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
    bool cut = false;  // by the byte budget
    gathered_bytes gathered;
    const auto& lim = request.limits;

    auto stats = [&] { return boost::json::object{{"pages", pages}, {"items_scanned", scanned}}; };
    // Every page reads the same query: what the source makes of it is made once.
    const auto prepared = collection.prepare(request.query);

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
        pr.prepared = prepared;
        if (request.budget) {
            // The page gets the room the items gathered so far leave; once the walk holds items,
            // a page none of whose items fits ends empty rather than over the budget.
            auto b = *request.budget;
            b.framing += walk_reserve + 2 * notes_bytes(reasons, warnings);
            if (!items.empty()) b.framing += gathered.escaped + 1 + (b.structured ? gathered.text + 1 : 0);
            pr.budget = b;
            pr.may_be_empty = !items.empty();
        }
        auto p = co_await collection.serve(std::move(pr));
        if (*p.result.status == ce::outcome::error) co_return std::move(p.result);
        ++pages;
        scanned += p.items_scanned;
        sc = p.result.scope;
        if (p.state) state = p.state;
        if (p.result.data_written) {  // a page held to a budget comes written
            gathered.add(p.result.data_written->text());
            p.result.data = p.result.data_written->to_value();
            p.result.data_written.reset();
        }
        for (auto& i : p.result.data->as_array()) items.push_back(std::move(i));
        // A page cut to the walk's room ends the walk: the reason counts the walk's items.
        for (auto& r : p.result.incomplete_reasons)
            if (r.code == ce::reason_codes::result_size_limit) {
                r.details["returned"] = items.size();
                r.message = "the walk ends early to fit the byte budget; more follow (continuation.cursor)";
                cut = true;
            }
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
            // The page says how to go on (retry later, narrow the query, the cursor after the
            // last item that fit); pass that on. A walk cut to fit, like a page, carries no
            // token: it goes on from its cursor.
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
    if (token && (ended || (!is_complete && !cut))) e.extensions["snapshot_token"] = *token;
    co_return e;
}

}  // namespace candor::paging
