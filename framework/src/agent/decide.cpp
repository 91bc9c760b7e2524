// SPDX-License-Identifier: BSL-1.0
#include <candor/agent/decide.hpp>

#include <boost/json/object.hpp>

namespace candor::agent {

namespace {

std::string_view string_at(const boost::json::object& o, std::string_view key) noexcept {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

bool is_transient(std::string_view code) noexcept {
    return code == "RATE_LIMITED" || code == "SOURCE_UNAVAILABLE" || code == "TIME_BUDGET_EXCEEDED" ||
           code == "CANCELLED" || code == "DEADLINE_EXCEEDED" || code == "TOO_MANY_CALLS_IN_FLIGHT";
}

bool is_cursor_error(std::string_view code) noexcept {
    return code == "CURSOR_INVALID" || code == "CURSOR_MISMATCH" || code == "CURSOR_EXPIRED" ||
           code == "SNAPSHOT_EXPIRED";
}

bool has_warning(const boost::json::object& e, std::string_view code) noexcept {
    const auto* w = e.if_contains("warnings");
    if (!w || !w->is_array()) return false;
    for (const auto& entry : w->get_array())
        if (entry.is_object() && string_at(entry.get_object(), "code") == code) return true;
    return false;
}

}  // namespace

std::string_view to_string(intent i) noexcept {
    switch (i) {
        case intent::read: return "read";
        case intent::report: return "report";
        case intent::destructive_change: return "destructive_change";
    }
    return "unknown";
}

std::string_view to_string(decision d) noexcept {
    switch (d) {
        case decision::continue_search: return "continue_search";
        case decision::proceed: return "proceed";
        case decision::refuse_or_request_review: return "refuse_or_request_review";
        case decision::retry_later: return "retry_later";
    }
    return "unknown";
}

bool may_infer_absence(const boost::json::value& envelope) noexcept {
    const auto* e = envelope.if_object();
    if (!e) return false;
    const auto* complete = e->if_contains("complete");
    return complete && complete->is_bool() && complete->get_bool() && string_at(*e, "status") == "complete";
}

decision decide(const boost::json::value& envelope, intent what) noexcept {
    const auto* e = envelope.if_object();
    if (!e) return decision::refuse_or_request_review;
    const auto status = string_at(*e, "status");
    const auto* complete_v = e->if_contains("complete");
    if (!complete_v || !complete_v->is_bool()) return decision::refuse_or_request_review;
    const bool complete = complete_v->get_bool();

    if (status == "error") {
        const auto* errors = e->if_contains("errors");
        if (!errors || !errors->is_array() || errors->get_array().empty()) return decision::refuse_or_request_review;
        bool all_transient = true;
        bool all_cursor = true;
        for (const auto& err : errors->get_array()) {
            const auto code = err.is_object() ? string_at(err.get_object(), "code") : std::string_view{};
            all_transient = all_transient && is_transient(code);
            all_cursor = all_cursor && is_cursor_error(code);
        }
        if (what == intent::destructive_change) return decision::refuse_or_request_review;
        if (all_transient) return decision::retry_later;
        // A cursor problem is repaired by starting the walk over (never by inventing a cursor).
        if (all_cursor) return decision::continue_search;
        return decision::refuse_or_request_review;
    }

    if (complete) {
        if (status != "complete") return decision::refuse_or_request_review;  // contradictory: not trusted
        // A live view is complete as a view, not as an inventory: not enough to destroy on.
        if (what == intent::destructive_change && has_warning(*e, "LIVE_VIEW"))
            return decision::refuse_or_request_review;
        return decision::proceed;
    }

    // Incomplete. Nothing destructive follows from a partial answer.
    if (what == intent::destructive_change) return decision::refuse_or_request_review;
    const auto* reasons = e->if_contains("incomplete_reasons");
    if (!reasons || !reasons->is_array() || reasons->get_array().empty()) return decision::refuse_or_request_review;

    const auto* cont = e->if_contains("continuation");
    const auto kind = cont && cont->is_object() ? string_at(cont->get_object(), "kind") : std::string_view{};
    if (kind == "next_cursor") {
        // A next_cursor without a cursor breaks the envelope rules: unreadable, so untrusted.
        const auto cursor = string_at(cont->get_object(), "cursor");
        return cursor.empty() ? decision::refuse_or_request_review : decision::continue_search;
    }
    if (kind == "retry_after") return decision::retry_later;
    if (kind == "restart" || kind == "narrow_query" || kind == "retry_with_deadline") return decision::continue_search;

    bool any_transient = false;
    for (const auto& r : reasons->get_array()) {
        const auto code = r.is_object() ? string_at(r.get_object(), "code") : std::string_view{};
        any_transient = any_transient || is_transient(code);
    }
    if (any_transient) return decision::retry_later;
    // No way to see more (e.g. VISIBILITY_RESTRICTED at the end of a walk): the visible part
    // may be shown as partial, but a report would pass off a partial view as the whole.
    return what == intent::read ? decision::proceed : decision::refuse_or_request_review;
}

}  // namespace candor::agent
