// SPDX-License-Identifier: BSL-1.0
#include <candor/envelope/envelope.hpp>

#include <array>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace candor::envelope {

namespace {

// Top-level fields in wire order; extensions may not reuse them.
constexpr std::array<std::string_view, 8> envelope_fields = {
    "status", "complete", "incomplete_reasons", "continuation", "scope", "warnings", "data", "errors"};

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
    if (has_amount(c->what)) o[value_field(c->what)] = c->amount;
    else o[value_field(c->what)] = c->text;
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

std::string_view value_field(continuation::kind k) noexcept {
    switch (k) {
        case continuation::kind::next_cursor: return "cursor";
        case continuation::kind::retry_after: return "seconds";
        case continuation::kind::retry_with_deadline: return "minimum_ms";
        case continuation::kind::narrow_query: return "hint";
        case continuation::kind::restart: return "reason";
    }
    return "reason";
}

bool has_amount(continuation::kind k) noexcept {
    return k == continuation::kind::retry_after || k == continuation::kind::retry_with_deadline;
}

sealed_scope_view sealed_scope(const scope& s, std::string_view default_resource) noexcept {
    return {s.resource.empty() ? default_resource : std::string_view(s.resource),
            s.visibility.empty() ? std::string_view("caller") : std::string_view(s.visibility),
            s.snapshot.empty() ? std::string_view("none") : std::string_view(s.snapshot)};
}

continuation continuation::next_cursor(std::string cursor) { return {kind::next_cursor, std::move(cursor), 0}; }
continuation continuation::retry_after(std::uint64_t seconds) { return {kind::retry_after, {}, seconds}; }
continuation continuation::retry_with_deadline(std::uint64_t minimum_ms) {
    return {kind::retry_with_deadline, {}, minimum_ms};
}
continuation continuation::narrow_query(std::string hint) { return {kind::narrow_query, std::move(hint), 0}; }
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
    const auto sc = sealed_scope(e.scope, default_resource);
    o["scope"] =
        boost::json::object{{"resource", sc.resource}, {"visibility", sc.visibility}, {"snapshot", sc.snapshot}};
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

boost::system::result<boost::json::object, breach> seal(const envelope& e, std::string_view default_resource) {
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

envelope internal_error() {
    issue i;
    i.code = std::string(error_codes::internal_error);
    i.message =
        "the tool failed because of an error on the server side; the call may be retried "
        "later, and repeating it unchanged now is unlikely to help";
    i.repairable = false;
    i.where = layer::business;
    return failure({std::move(i)});
}

boost::json::object internal_error_envelope(std::string_view resource) {
    // The envelope is valid by construction; a breach here is a bug in this file.
    return seal(internal_error(), resource).value();
}

// ---------------------------------------------------------------------------------------------
// write_sealed: the order and the members of seal(), written as they are produced

namespace {

class sealed_writer {
public:
    sealed_writer(std::string& out, std::size_t max_depth) : out_(out), max_depth_(max_depth) {}

    // `"key":` for the envelope's own (ASCII) member names, with the comma before all but the first.
    void member(std::string_view key) {
        out_.put(first_ ? '{' : ',');
        first_ = false;
        out_.put('"');
        out_.put(key);
        out_.put("\":");
    }
    bool string(std::string_view s) { return json::write_string(s, out_); }
    // `literal` as it is, then `s` as a JSON string.
    bool string(std::string_view literal, std::string_view s) {
        out_.put(literal);
        return string(s);
    }
    // A value nested `level` deep (the root object is level 1, its members' values level 2).
    bool value(const boost::json::value& v, std::size_t level) {
        error_ = json::write(v, out_, max_depth_ >= level - 1 ? max_depth_ - (level - 1) : 0);
        return !error_.has_error();
    }
    void put(std::string_view s) { out_.put(s); }
    void put(char c) { out_.put(c); }
    void put_bool(bool b) { out_.put(b ? std::string_view("true") : std::string_view("false")); }
    void put_number(std::uint64_t n) {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, n);
        out_.put(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
    }
    // Members of a details object (or of the extensions) not in `skip`, each value at `level`.
    template <class Skip>
    bool merged(const boost::json::object& details, std::size_t level, Skip skip) {
        for (const auto& kv : details) {
            if (skip(kv.key())) continue;
            out_.put(',');
            if (!string(kv.key())) return false;
            out_.put(':');
            if (!value(kv.value(), level)) return false;
        }
        return true;
    }
    json::write_error error() const noexcept {
        return error_.has_error() ? error_.error() : json::write_error::invalid_utf8;
    }

private:
    json::text_sink out_;
    std::size_t max_depth_;
    bool first_ = true;
    boost::system::result<void, json::write_error> error_;
};

template <class Note>
bool write_notes(sealed_writer& w, const std::vector<Note>& notes) {
    // [{"code":…,"message":…,details…}]: check() kept `code` and `message` out of the details.
    w.put('[');
    for (std::size_t i = 0; i < notes.size(); ++i) {
        const auto& n = notes[i];
        if (!w.string(i == 0 ? "{\"code\":" : ",{\"code\":", n.code) || !w.string(",\"message\":", n.message))
            return false;
        if (!w.merged(n.details, 4, [](std::string_view) { return false; })) return false;
        w.put('}');
    }
    w.put(']');
    return true;
}

bool write_issue(sealed_writer& w, const issue& i) {
    // As to_json(issue): the fields, then the details that do not overwrite one of them.
    if (!w.string("{\"code\":", i.code) || !w.string(",\"path\":", i.path) || !w.string(",\"message\":", i.message))
        return false;
    w.put(",\"repairable\":");
    w.put_bool(i.repairable);
    if (!w.string(",\"layer\":", to_string(i.where))) return false;
    const bool keyword = !i.keyword.empty();
    if (keyword && !w.string(",\"keyword\":", i.keyword)) return false;
    if (!w.merged(i.details, 4, [keyword](std::string_view k) {
            return k == "code" || k == "path" || k == "message" || k == "repairable" || k == "layer" ||
                   (keyword && k == "keyword");
        }))
        return false;
    w.put('}');
    return true;
}

bool write_all(sealed_writer& w, const envelope& e, std::string_view default_resource) {
    w.member("status");
    w.put('"');
    w.put(to_string(*e.status));
    w.put('"');
    w.member("complete");
    w.put_bool(*e.complete);
    w.member("incomplete_reasons");
    if (!write_notes(w, e.incomplete_reasons)) return false;
    w.member("continuation");
    if (!e.continuation) {
        w.put("null");
    } else {
        const auto& c = *e.continuation;
        w.put("{\"kind\":\"");
        w.put(to_string(c.what));
        w.put("\",\"");
        w.put(value_field(c.what));
        w.put("\":");
        if (has_amount(c.what)) w.put_number(c.amount);
        else if (!w.string(c.text)) return false;
        w.put('}');
    }
    const auto sc = sealed_scope(e.scope, default_resource);
    w.member("scope");
    if (!w.string("{\"resource\":", sc.resource) || !w.string(",\"visibility\":", sc.visibility) ||
        !w.string(",\"snapshot\":", sc.snapshot))
        return false;
    w.put('}');
    w.member("warnings");
    if (!write_notes(w, e.warnings)) return false;
    if (e.data_written) {
        w.member("data");
        w.put(e.data_written->text());
    } else if (e.data) {
        w.member("data");
        if (!w.value(*e.data, 2)) return false;
    }
    if (*e.status == outcome::error) {
        w.member("errors");
        w.put('[');
        for (std::size_t i = 0; i < e.errors.size(); ++i) {
            if (i > 0) w.put(',');
            if (!write_issue(w, e.errors[i])) return false;
        }
        w.put(']');
    }
    if (!w.merged(e.extensions, 2, [](std::string_view) { return false; })) return false;
    w.put('}');
    return true;
}

}  // namespace

boost::system::result<void, json::write_error> write_sealed(const envelope& e, std::string_view default_resource,
                                                            std::string& out, std::size_t max_depth) {
    // The head nests three levels (a reason inside its list); below that the tree writer
    // decides exactly where the ceiling bites.
    if (max_depth < 3) return json::write(seal(e, default_resource).value(), out, max_depth);
    const std::size_t restore = out.size();
    bool ok;
    json::write_error why{};
    {
        sealed_writer w(out, max_depth);
        ok = write_all(w, e, default_resource);
        if (!ok) why = w.error();
    }  // the sink trims `out` to what was written
    if (ok) return {};
    out.resize(restore);
    return why;
}

}  // namespace candor::envelope
