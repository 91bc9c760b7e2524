#include <candor/envelope/envelope.hpp>

#include <array>
#include <stdexcept>
#include <utility>

namespace candor::envelope {

namespace {

// Top-level fields in wire order; extensions may not reuse them.
constexpr std::array<std::string_view, 8> envelope_fields = {
    "status", "complete", "incomplete_reasons", "continuation", "scope", "warnings", "data",
    "errors"};

bool is_envelope_field(std::string_view key) noexcept {
    for (auto f : envelope_fields)
        if (f == key) return true;
    return false;
}

template <class Note>
boost::system::result<void, breach> check_notes(const std::vector<Note>& notes) {
    for (const auto& n : notes) {
        if (!is_valid_code(n.code)) return breach::invalid_code;
        if (n.details.contains("code") || n.details.contains("message")) return breach::reserved_key;
    }
    return {};
}

template <class Note>
boost::json::array notes_to_json(const std::vector<Note>& notes) {
    boost::json::array out;
    out.reserve(notes.size());
    for (const auto& n : notes) {
        boost::json::object o;
        o["code"] = n.code;
        o["message"] = n.message;
        for (const auto& kv : n.details) o[kv.key()] = kv.value();
        out.emplace_back(std::move(o));
    }
    return out;
}

boost::json::value continuation_to_json(const std::optional<continuation>& c) {
    if (!c) return nullptr;
    boost::json::object o;
    o["kind"] = to_string(c->what);
    switch (c->what) {
        case continuation::kind::next_cursor: o["cursor"] = c->text; break;
        case continuation::kind::retry_after: o["seconds"] = c->amount; break;
        case continuation::kind::retry_with_deadline: o["minimum_ms"] = c->amount; break;
        case continuation::kind::narrow_query: o["hint"] = c->text; break;
        case continuation::kind::restart: o["reason"] = c->text; break;
    }
    return o;
}

bool continuation_is_valid(const continuation& c) noexcept {
    switch (c.what) {
        case continuation::kind::next_cursor:
        case continuation::kind::narrow_query:
        case continuation::kind::restart: return !c.text.empty();
        case continuation::kind::retry_after:
        case continuation::kind::retry_with_deadline: return c.amount > 0;
    }
    return false;
}

}  // namespace

std::string_view to_string(outcome s) noexcept {
    switch (s) {
        case outcome::complete: return "complete";
        case outcome::partial: return "partial";
        case outcome::error: return "error";
    }
    return "error";
}

std::string_view to_string(continuation::kind k) noexcept {
    switch (k) {
        case continuation::kind::next_cursor: return "next_cursor";
        case continuation::kind::retry_after: return "retry_after";
        case continuation::kind::retry_with_deadline: return "retry_with_deadline";
        case continuation::kind::narrow_query: return "narrow_query";
        case continuation::kind::restart: return "restart";
    }
    return "restart";
}

std::string_view to_string(breach b) noexcept {
    switch (b) {
        case breach::verdict_missing: return "VERDICT_MISSING";
        case breach::status_contradicts_verdict: return "STATUS_CONTRADICTS_VERDICT";
        case breach::complete_with_reasons: return "COMPLETE_WITH_REASONS";
        case breach::incomplete_without_reasons: return "INCOMPLETE_WITHOUT_REASONS";
        case breach::error_without_errors: return "ERROR_WITHOUT_ERRORS";
        case breach::errors_without_error: return "ERRORS_WITHOUT_ERROR";
        case breach::reasons_on_error: return "REASONS_ON_ERROR";
        case breach::data_missing: return "DATA_MISSING";
        case breach::data_on_error: return "DATA_ON_ERROR";
        case breach::continuation_on_complete: return "CONTINUATION_ON_COMPLETE";
        case breach::invalid_continuation: return "INVALID_CONTINUATION";
        case breach::invalid_code: return "INVALID_CODE";
        case breach::reserved_key: return "RESERVED_KEY";
    }
    return "VERDICT_MISSING";
}

continuation continuation::next_cursor(std::string cursor) {
    return {kind::next_cursor, std::move(cursor), 0};
}
continuation continuation::retry_after(std::uint64_t seconds) {
    return {kind::retry_after, {}, seconds};
}
continuation continuation::retry_with_deadline(std::uint64_t minimum_ms) {
    return {kind::retry_with_deadline, {}, minimum_ms};
}
continuation continuation::narrow_query(std::string hint) {
    return {kind::narrow_query, std::move(hint), 0};
}
continuation continuation::restart(std::string why) { return {kind::restart, std::move(why), 0}; }

envelope complete(boost::json::value data) {
    envelope e;
    e.status = outcome::complete;
    e.complete = true;
    e.data = std::move(data);
    return e;
}

envelope partial(boost::json::value data, reason why) {
    envelope e;
    e.status = outcome::partial;
    e.complete = false;
    e.data = std::move(data);
    e.incomplete_reasons.push_back(std::move(why));
    return e;
}

envelope failure(issue_list errors) {
    envelope e;
    e.status = outcome::error;
    e.complete = false;
    e.errors = std::move(errors);
    return e;
}

std::optional<boost::json::value> data_value(const envelope& e) {
    if (e.data_written) return e.data_written->to_value();
    return e.data;
}

envelope& envelope::add_reason(reason r) {
    incomplete_reasons.push_back(std::move(r));
    return *this;
}
envelope& envelope::add_warning(warning w) {
    warnings.push_back(std::move(w));
    return *this;
}
envelope& envelope::continue_with(::candor::envelope::continuation c) {
    continuation = std::move(c);
    return *this;
}
envelope& envelope::covering(::candor::envelope::scope s) {
    scope = std::move(s);
    return *this;
}

void throw_exception_from_error(breach b, const boost::source_location&) {
    throw std::logic_error("envelope breaks an invariant: " + std::string(to_string(b)));
}

boost::system::result<void, breach> check(const envelope& e) {
    if (!e.status || !e.complete) return breach::verdict_missing;
    const bool is_complete = *e.complete;
    if ((*e.status == outcome::complete) != is_complete) return breach::status_contradicts_verdict;
    if (*e.status == outcome::error) {
        if (e.errors.empty()) return breach::error_without_errors;
        if (!e.incomplete_reasons.empty()) return breach::reasons_on_error;
        if (e.data || e.data_written) return breach::data_on_error;
    } else {
        if (!e.errors.empty()) return breach::errors_without_error;
        if (!e.data && !e.data_written) return breach::data_missing;
        if (is_complete && !e.incomplete_reasons.empty()) return breach::complete_with_reasons;
        if (!is_complete && e.incomplete_reasons.empty()) return breach::incomplete_without_reasons;
    }
    if (e.continuation) {
        if (is_complete) return breach::continuation_on_complete;
        if (!continuation_is_valid(*e.continuation)) return breach::invalid_continuation;
    }
    if (auto r = check_notes(e.incomplete_reasons); !r) return r;
    if (auto r = check_notes(e.warnings); !r) return r;
    for (const auto& i : e.errors) {
        if (!is_valid_code(i.code)) return breach::invalid_code;
    }
    for (const auto& kv : e.extensions)
        if (is_envelope_field(kv.key())) return breach::reserved_key;
    return {};
}

boost::json::object to_json(const issue& i) {
    boost::json::object o;
    o["code"] = i.code;
    o["path"] = i.path;
    o["message"] = i.message;
    o["repairable"] = i.repairable;
    o["layer"] = to_string(i.where);
    if (!i.keyword.empty()) o["keyword"] = i.keyword;
    // Details add facts; they never overwrite the fields an agent routes on.
    for (const auto& kv : i.details)
        if (!o.contains(kv.key())) o[kv.key()] = kv.value();
    return o;
}

namespace {

// The fields of the wire form in their documented order; `data` and the extensions are added
// by the caller (copied or moved).
boost::json::object sealed_head(const envelope& e, std::string_view default_resource) {
    // Data built in an arena of its own (a shared storage) takes the envelope with it, so that
    // moving it in below moves rather than copies. Other storages (an argument document's
    // arena, which does not own itself) are never adopted.
    boost::json::storage_ptr sp;
    if (e.data && e.data->storage().is_shared()) sp = e.data->storage();
    boost::json::object o(sp);
    // Seven head fields, data or errors, the extensions: one allocation instead of regrowing.
    o.reserve(8 + e.extensions.size());
    o["status"] = to_string(*e.status);
    o["complete"] = *e.complete;
    o["incomplete_reasons"] = notes_to_json(e.incomplete_reasons);
    o["continuation"] = continuation_to_json(e.continuation);
    boost::json::object sc;
    sc["resource"] = e.scope.resource.empty() ? default_resource : std::string_view(e.scope.resource);
    sc["visibility"] = e.scope.visibility.empty() ? std::string_view("caller")
                                                  : std::string_view(e.scope.visibility);
    sc["snapshot"] = e.scope.snapshot.empty() ? std::string_view("none")
                                              : std::string_view(e.scope.snapshot);
    o["scope"] = std::move(sc);
    o["warnings"] = notes_to_json(e.warnings);
    return o;
}

void add_errors(const envelope& e, boost::json::object& o) {
    if (*e.status != outcome::error) return;
    boost::json::array errs;
    errs.reserve(e.errors.size());
    for (const auto& i : e.errors) errs.emplace_back(to_json(i));
    o["errors"] = std::move(errs);
}

}  // namespace

boost::system::result<boost::json::object, breach> seal(const envelope& e,
                                                        std::string_view default_resource) {
    if (auto r = check(e); !r) return r.error();
    auto o = sealed_head(e, default_resource);
    if (e.data_written) o["data"] = e.data_written->to_value();
    else if (e.data) o["data"] = *e.data;
    add_errors(e, o);
    for (const auto& kv : e.extensions) o[kv.key()] = kv.value();
    return o;
}

boost::system::result<boost::json::object, breach> seal(envelope&& e, std::string_view default_resource) {
    if (auto r = check(e); !r) return r.error();
    auto o = sealed_head(e, default_resource);
    // Boost.JSON moves only between equal storages and copies otherwise, so data that lives
    // in another arena (e.g. an argument's document) is still copied out of it.
    if (e.data_written) o["data"] = e.data_written->to_value();
    else if (e.data) o["data"] = std::move(*e.data);
    add_errors(e, o);
    for (auto& kv : e.extensions) o[kv.key()] = std::move(kv.value());
    return o;
}

boost::json::object internal_error_envelope(std::string_view resource) {
    issue i;
    i.code = std::string(error_codes::internal_error);
    i.message = "the tool failed because of an error on the server side; the call may be retried "
                "later, and repeating it unchanged now is unlikely to help";
    i.repairable = false;
    i.where = layer::business;
    auto sealed = seal(failure({std::move(i)}), resource);
    // The envelope above is valid by construction; a breach here is a bug in this file.
    return std::move(sealed).value();
}

}  // namespace candor::envelope
