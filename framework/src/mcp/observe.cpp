// SPDX-License-Identifier: BSL-1.0
// Call records for observers (journal, metrics, console): metadata taken from the answered
// envelope as it was sealed — codes, paths, layers, numbers — and never a value, a message or
// the data.
#include "connection_impl.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

// At most `n` bytes of `s`. The text is valid UTF-8 (it was read from JSON); a cut inside a
// sequence would not be, and the journal's writer would refuse the record.
std::string capped(std::string_view s, std::size_t n) {
    if (s.size() <= n) return std::string(s);
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return std::string(s.substr(0, n));
}

}  // namespace

namespace detail {

std::string_view known_method(std::string_view method) noexcept {
    static constexpr std::array<std::string_view, 21> known = {"initialize",
                                                               "server/discover",
                                                               "subscriptions/listen",
                                                               "ping",
                                                               "tools/list",
                                                               "tools/call",
                                                               "logging/setLevel",
                                                               "resources/list",
                                                               "resources/read",
                                                               "resources/templates/list",
                                                               "resources/subscribe",
                                                               "resources/unsubscribe",
                                                               "prompts/list",
                                                               "prompts/get",
                                                               "completion/complete",
                                                               "skills/list",
                                                               "skills/get",
                                                               "resources/directory/read",
                                                               "notifications/initialized",
                                                               "notifications/cancelled",
                                                               "other"};
    for (auto k : known)
        if (k == method) return k;
    return known.back();
}

std::string request_id_text(const rpc::request_id& id) {
    constexpr std::size_t max_id_bytes = 64;
    const auto v = id.to_json();
    if (const auto* s = v.if_string()) return capped(*s, max_id_bytes);
    if (const auto* i = v.if_int64()) return std::to_string(*i);
    return {};
}

}  // namespace detail

namespace {

constexpr std::size_t max_name_bytes = 128;

// The last segment of a path whose last key was chosen by the caller becomes "*".
std::string sanitized_path(std::string_view code, std::string_view path) {
    if (code != "UNKNOWN_FIELD" && code != "DUPLICATE_KEY") return std::string(path);
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return std::string(path);
    return std::string(path.substr(0, slash + 1)) + "*";
}

// Numbers and booleans of an entry's details, except the keys in `skip` and the reserved ones:
// the facts an operator can chart.
template <class Skip>
void add_numeric_facts(const boost::json::object& details, boost::json::object& out, Skip skip) {
    for (const auto& kv : details) {
        const auto k = kv.key();
        if (k == "code" || k == "message" || k == "path" || k == "keyword" || skip(k)) continue;
        if (kv.value().is_number() || kv.value().is_bool()) out[k] = kv.value();
    }
}

void collect_limit(const boost::json::object& details, std::string_view code, std::vector<limit_record>& out) {
    const auto* l = details.if_contains("limit");
    if (!l) return;
    if (const auto* u = l->if_uint64()) out.push_back({std::string(code), *u});
    else if (const auto* i = l->if_int64(); i && *i >= 0)
        out.push_back({std::string(code), static_cast<std::uint64_t>(*i)});
}

// `incomplete_reasons` or `warnings`: their codes (and limits), and their metadata entries
// when `meta` is given.
template <class Note>
void notes(const std::vector<Note>& list, std::vector<std::string>& codes, std::vector<limit_record>* limits,
           boost::json::array* meta) {
    codes.reserve(list.size());
    if (meta) meta->reserve(list.size());
    for (const auto& n : list) {
        codes.push_back(n.code);
        if (limits) collect_limit(n.details, n.code, *limits);
        if (!meta) continue;
        boost::json::object m;
        add_numeric_facts(n.details, m, [](std::string_view) { return false; });
        m["code"] = n.code;
        meta->push_back(std::move(m));
    }
}

}  // namespace

call_record detail::connection_impl::record_call(const rpc::request_id& id, const call_origin& origin,
                                                 const envelope::envelope* answer, std::string status) {
    call_record r;
    r.request_id = detail::request_id_text(id);
    const session_info& who = origin.session ? *origin.session : *session;
    r.session = who.id;
    r.principal = opts.caller.id;
    r.client_name = capped(who.client_name, max_name_bytes);
    r.client_version = capped(who.client_version, max_name_bytes);
    r.protocol_version = who.protocol_version;
    r.traceparent = origin.traceparent;
    r.tracestate = origin.tracestate;
    r.method = origin.tool ? "tools/call" : std::string(current_method.empty() ? "other" : current_method);
    r.bytes_in = origin.bytes_in;
    r.status = std::move(status);
    if (origin.tool) {
        const auto& info = origin.tool->info();
        r.tool = info.name;
        r.contract_version = info.contract_version;
        r.action_class = std::string(to_string(info.action));
    }
    if (!answer) return r;
    const bool with_meta =
        std::any_of(observers.begin(), observers.end(), [](const auto& o) { return o->reads_envelope_metadata(); });
    detail::record_envelope(r, *answer, with_meta);
    return r;
}

void detail::record_envelope(call_record& r, const envelope::envelope& e, bool with_meta) {
    // The facts of the envelope as sealed (scope defaults, issue fields before details), never
    // a message, a cursor or the data; the metadata object only for observers that read it.
    r.complete = e.complete.value_or(false);
    boost::json::array reasons, warnings, errors;
    notes(e.incomplete_reasons, r.reason_codes, &r.limits, with_meta ? &reasons : nullptr);
    notes(e.warnings, r.warning_codes, nullptr, with_meta ? &warnings : nullptr);
    if (*e.status == envelope::outcome::error) {
        r.issues.reserve(e.errors.size());
        if (with_meta) errors.reserve(e.errors.size());
        for (const auto& err : e.errors) {
            issue_record i;
            i.code = err.code;
            i.path = sanitized_path(i.code, err.path);
            i.where = err.where;
            i.repairable = err.repairable;
            collect_limit(err.details, i.code, r.limits);
            if (r.evidence_verdict.empty() && i.code.rfind("EVIDENCE_", 0) == 0) r.evidence_verdict = i.code;
            if (const auto* left = err.details.if_contains("repairs_remaining"); left && left->is_int64())
                r.repairs_remaining = left->get_int64();
            else if (left && left->is_uint64())
                r.repairs_remaining = static_cast<std::int64_t>(std::min<std::uint64_t>(left->get_uint64(), INT64_MAX));
            if (with_meta) {
                // Details that would overwrite an issue's own fields are not part of its sealed form.
                auto own = [](std::string_view k) { return k == "repairable" || k == "layer"; };
                boost::json::object m;
                m["repairable"] = err.repairable;
                add_numeric_facts(err.details, m, own);
                m["code"] = i.code;
                m["path"] = i.path;
                m["layer"] = to_string(i.where);
                errors.push_back(std::move(m));
            }
            r.issues.push_back(std::move(i));
        }
    }
    if (!with_meta) return;

    auto& meta = r.envelope_metadata;
    meta["status"] = r.status;
    meta["complete"] = *r.complete;
    meta["incomplete_reasons"] = std::move(reasons);
    meta["warnings"] = std::move(warnings);
    if (e.continuation) {
        // The kind and its number; cursors, hints and reasons are texts and stay out.
        boost::json::object m;
        const auto what = e.continuation->what;
        if (envelope::has_amount(what)) m[envelope::value_field(what)] = e.continuation->amount;
        m["kind"] = envelope::to_string(what);
        meta["continuation"] = std::move(m);
    } else {
        meta["continuation"] = nullptr;
    }
    {
        const auto sc = envelope::sealed_scope(e.scope, r.tool);
        // A resource the tool named itself may describe the request; only the default is shown.
        meta["scope"] =
            boost::json::object{{"resource", sc.resource == r.tool ? sc.resource : std::string_view("(tool-defined)")},
                                {"visibility", sc.visibility},
                                {"snapshot", sc.snapshot}};
    }
    meta["errors"] = std::move(errors);
}

void detail::connection_impl::deliver(std::string message, call_record* record, const call_origin& origin,
                                      const message_route& route, bool durable) {
    // Recorded before it leaves: whoever sees the answer sees it counted.
    if (record) {
        record->bytes_out = message.size();
        if (durable) {
            publish_durable(*record, origin, std::move(message), route);
            return;
        }
        publish(*record, origin);
    }
    send_text(std::move(message), route);
}

void detail::connection_impl::publish_durable(call_record& r, const call_origin& origin, std::string message,
                                              const message_route& route) {
    stamp(r, origin);
    {
        std::lock_guard lock(durable_mutex_);
        if (durable_closed_) return;  // nothing can be sent any more
        // The executor keeps running until the reply is sent, even when no call is left (a
        // transport that drains and stops when no work remains would drop it otherwise).
        if (durable_waiting_++ == 0)
            durable_work_ = boost::asio::prefer(strand, boost::asio::execution::outstanding_work.tracked);
    }
    struct waiting {
        std::atomic<std::size_t> observers;
        std::string message;
        message_route route;
    };
    auto reply = std::make_shared<waiting>();
    reply->observers = observers.size();
    reply->message = std::move(message);
    reply->route = route;
    auto stored = [weak = weak_from_this(), reply] {
        if (reply->observers.fetch_sub(1) != 1) return;
        auto self = weak.lock();
        if (!self) return;
        std::lock_guard lock(self->durable_mutex_);
        if (self->durable_closed_) return;
        boost::asio::post(self->strand, [self, reply] {
            self->send_text(std::move(reply->message), reply->route);
            std::lock_guard again(self->durable_mutex_);
            if (self->durable_waiting_ > 0 && --self->durable_waiting_ == 0) self->durable_work_ = {};
        });
    };
    for (const auto& o : observers) o->on_durable_record(r, stored);
}

void detail::connection_impl::publish(call_record& r, const call_origin& origin) {
    stamp(r, origin);
    for (const auto& o : observers) o->on_record(r);
}

void detail::connection_impl::stamp(call_record& r, const call_origin& origin) {
    r.time = std::chrono::system_clock::now();
    r.duration =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin.received);
    if (r.what == call_record::kind::tool_call && !r.tool.empty()) {
        // A call that follows answers refused with repairable issues only is a repair attempt.
        auto& streak = repair_streak_[r.tool];
        r.repair_attempt = streak;
        const bool repairable_refusal =
            r.status == "error" && !r.issues.empty() &&
            std::all_of(r.issues.begin(), r.issues.end(), [](const issue_record& i) { return i.repairable; });
        streak = repairable_refusal ? streak + 1 : 0;
    }
}

}  // namespace candor::mcp
