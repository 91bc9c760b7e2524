// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// Envelopes read on the client's side, and walks that follow them: complete only when the
// server said so of the last page and nothing on the way said otherwise.
#include <candor/client/walk.hpp>

#include <set>

namespace candor::client {

namespace {

std::string string_at(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Entries of `key`: an array of objects, each with a non-empty string `code`; false otherwise.
bool read_entries(const boost::json::object& e, std::string_view key, std::vector<entry>& out) {
    const auto* v = e.if_contains(key);
    if (!v || !v->is_array()) return false;
    for (const auto& item : v->get_array()) {
        const auto* o = item.if_object();
        if (!o) return false;
        entry x{string_at(*o, "code"), string_at(*o, "message"), *o};
        if (x.code.empty()) return false;
        out.push_back(std::move(x));
    }
    return true;
}

// A reason that only says "go on": the walk stays complete if the last page is.
bool only_says_more(const entry& r) {
    if (r.code == "MORE_PAGES_AVAILABLE") return true;
    // A page cut at its last whole item; strings cut inside items (`fields`) are another matter.
    return r.code == "RESULT_SIZE_LIMIT" && r.fields.contains("returned") && !r.fields.contains("fields");
}

void note(std::vector<entry>& seen, const entry& r) {
    for (auto& s : seen)
        if (s.code == r.code) {
            auto& pages = s.fields["pages"];
            pages = pages.is_int64() ? pages.get_int64() + 1 : 2;
            return;
        }
    seen.push_back(r);
    seen.back().fields["pages"] = 1;
}

entry client_reason(std::string code, std::string message, boost::json::object details = {}) {
    details["code"] = code;
    details["message"] = message;
    return entry{std::move(code), std::move(message), std::move(details)};
}

}  // namespace

envelope_view read_envelope(const boost::json::value& structured) {
    envelope_view v;
    const auto* e = structured.if_object();
    if (!e) return v;
    v.status = string_at(*e, "status");
    const auto* complete = e->if_contains("complete");
    if (!complete || !complete->is_bool()) return v;
    if (v.status != "complete" && v.status != "partial" && v.status != "error") return v;
    if (complete->get_bool() != (v.status == "complete")) return v;
    if (!read_entries(*e, "incomplete_reasons", v.incomplete_reasons) || !read_entries(*e, "warnings", v.warnings))
        return v;
    if (v.status == "error" && (!read_entries(*e, "errors", v.errors) || v.errors.empty())) return v;
    if (v.status == "partial" && v.incomplete_reasons.empty()) return v;
    if (const auto* c = e->if_contains("continuation"); c && !c->is_null()) {
        const auto* co = c->if_object();
        if (!co || v.status == "complete") return v;
        v.continuation_kind = string_at(*co, "kind");
        if (v.continuation_kind.empty()) return v;
        if (v.continuation_kind == "next_cursor") {
            v.next_cursor = string_at(*co, "cursor");
            if (v.next_cursor.empty()) return v;
        }
    }
    if (const auto* d = e->if_contains("data")) v.data = *d;
    v.snapshot_token = string_at(*e, "snapshot_token");
    v.readable = true;
    v.complete = v.status == "complete";
    return v;
}

boost::asio::awaitable<walk_result> collect(session& s, std::string tool, boost::json::object arguments,
                                            walk_budget budget) {
    walk_result out;
    const auto until = std::chrono::steady_clock::now() + budget.deadline;
    bool gap = arguments.contains("cursor");
    if (gap) note(out.reasons, client_reason("WALK_NOT_FROM_START", "the first call carried a cursor"));
    std::set<std::string> cursors;
    boost::json::value last;
    while (true) {
        auto r = co_await s.call_tool(tool, arguments);
        ++out.calls;
        if (!r) {
            auto reason = client_reason(r.error().code, r.error().message);
            if (r.error().rpc_code) reason.fields["rpc_code"] = *r.error().rpc_code;
            note(out.reasons, reason);
            break;
        }
        last = r->structured;
        auto page = read_envelope(r->structured);
        if (!page.readable) {
            note(out.reasons, client_reason("ENVELOPE_UNREADABLE", "page " + std::to_string(out.calls) +
                                                                       " is not a readable completeness envelope"));
            break;
        }
        for (const auto& w : page.warnings) note(out.warnings, w);
        if (page.status == "error") {
            for (const auto& e : page.errors) note(out.reasons, e);
            break;
        }
        if (const auto* items = page.data.if_array()) out.items.insert(out.items.end(), items->begin(), items->end());
        else if (!page.data.is_null()) out.items.push_back(page.data);
        out.snapshot_token = page.snapshot_token;
        if (page.complete) {
            out.complete = !gap;
            break;
        }
        for (const auto& reason : page.incomplete_reasons) {
            note(out.reasons, reason);
            if (!only_says_more(reason)) gap = true;
        }
        if (page.continuation_kind != "next_cursor") break;  // restart, retry, narrow: not this walk's to take
        if (!cursors.insert(page.next_cursor).second) {
            note(out.reasons, client_reason("CURSOR_REPEATED", "the server gave a cursor it had given before"));
            break;
        }
        if (out.calls >= budget.max_calls || out.items.size() >= budget.max_items ||
            std::chrono::steady_clock::now() >= until) {
            const auto which = out.calls >= budget.max_calls          ? "max_calls"
                               : out.items.size() >= budget.max_items ? "max_items"
                                                                      : "deadline";
            note(out.reasons,
                 client_reason(
                     "CLIENT_PAGE_LIMIT", std::string("the walk's budget (") + which + ") ended it before the end",
                     boost::json::object{{"limit", which}, {"calls", out.calls}, {"returned", out.items.size()}}));
            out.resume_cursor = page.next_cursor;
            break;
        }
        arguments["cursor"] = page.next_cursor;
    }
    out.next = out.complete ? agent::decision::proceed : agent::decide(last, agent::intent::report);
    // A last page that said complete after a gap on the way: the page would do, the walk does not.
    if (!out.complete && out.next == agent::decision::proceed) out.next = agent::decision::refuse_or_request_review;
    co_return out;
}

}  // namespace candor::client
