// Call records for observers (journal, metrics, console): metadata taken from the sealed
// envelope — codes, paths, layers, numbers — and never a value, a message or the data.
#include "server_core.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace detail {

std::string_view known_method(std::string_view method) noexcept {
    static constexpr std::array<std::string_view, 16> known = {
        "initialize",     "ping",          "tools/list",         "tools/call",
        "logging/setLevel", "resources/list", "resources/read",  "resources/templates/list",
        "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
        "completion/complete", "notifications/initialized", "notifications/cancelled", "other"};
    for (auto k : known)
        if (k == method) return k;
    return known.back();
}

}  // namespace detail

namespace {

constexpr std::size_t max_id_bytes = 64;
constexpr std::size_t max_name_bytes = 128;

std::string capped(std::string_view s, std::size_t n) { return std::string(s.substr(0, n)); }

std::string id_text(const rpc::request_id& id) {
    const auto v = id.to_json();
    if (const auto* s = v.if_string()) return capped(*s, max_id_bytes);
    if (const auto* i = v.if_int64()) return std::to_string(*i);
    return {};
}

std::string_view string_member(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// The last segment of a path whose last key was chosen by the caller becomes "*".
std::string sanitized_path(std::string_view code, std::string_view path) {
    if (code != "UNKNOWN_FIELD" && code != "DUPLICATE_KEY") return std::string(path);
    const auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return std::string(path);
    return std::string(path.substr(0, slash + 1)) + "*";
}

// Numbers and booleans of an entry, except the reserved keys: the facts an operator can chart.
boost::json::object numeric_facts(const boost::json::object& entry) {
    boost::json::object out;
    for (const auto& kv : entry) {
        if (kv.key() == "code" || kv.key() == "message" || kv.key() == "path" || kv.key() == "keyword") continue;
        if (kv.value().is_number() || kv.value().is_bool()) out[kv.key()] = kv.value();
    }
    return out;
}

void collect_limit(const boost::json::object& entry, std::string_view code, std::vector<limit_record>& out) {
    const auto* l = entry.if_contains("limit");
    if (!l) return;
    if (const auto* u = l->if_uint64()) out.push_back({std::string(code), *u});
    else if (const auto* i = l->if_int64(); i && *i >= 0) out.push_back({std::string(code), static_cast<std::uint64_t>(*i)});
}

// `incomplete_reasons` or `warnings`: their codes, and their metadata entries.
boost::json::array notes(const boost::json::object& sealed, std::string_view key, std::vector<std::string>& codes,
                         std::vector<limit_record>* limits) {
    boost::json::array meta;
    const auto* list = sealed.if_contains(key);
    if (!list || !list->is_array()) return meta;
    for (const auto& e : list->get_array()) {
        if (!e.is_object()) continue;
        const auto& o = e.get_object();
        const auto code = string_member(o, "code");
        codes.emplace_back(code);
        if (limits) collect_limit(o, code, *limits);
        auto m = numeric_facts(o);
        m["code"] = code;
        meta.push_back(std::move(m));
    }
    return meta;
}

}  // namespace

call_record connection::record_call(const rpc::request_id& id, const call_origin& origin,
                                    const boost::json::object* sealed, std::string status) {
    call_record r;
    r.request_id = id_text(id);
    r.session = session_.id;
    r.principal = opts_.caller.id;
    r.client_name = capped(session_.client_name, max_name_bytes);
    r.client_version = capped(session_.client_version, max_name_bytes);
    r.method = origin.tool ? "tools/call" : std::string(current_method_.empty() ? "other" : current_method_);
    r.bytes_in = origin.bytes_in;
    r.status = std::move(status);
    if (origin.tool) {
        const auto& info = origin.tool->info();
        r.tool = info.name;
        r.contract_version = info.contract_version;
        r.action_class = std::string(to_string(info.action));
    }
    if (!sealed) return r;

    auto& meta = r.envelope_metadata;
    meta["status"] = r.status;
    if (const auto* c = sealed->if_contains("complete"); c && c->is_bool()) {
        r.complete = c->get_bool();
        meta["complete"] = *r.complete;
    }
    meta["incomplete_reasons"] = notes(*sealed, "incomplete_reasons", r.reason_codes, &r.limits);
    meta["warnings"] = notes(*sealed, "warnings", r.warning_codes, nullptr);
    if (const auto* c = sealed->if_contains("continuation"); c && c->is_object()) {
        // The kind and its number; cursors, hints and reasons are texts and stay out.
        auto m = numeric_facts(c->get_object());
        m["kind"] = string_member(c->get_object(), "kind");
        meta["continuation"] = std::move(m);
    } else {
        meta["continuation"] = nullptr;
    }
    if (const auto* s = sealed->if_contains("scope"); s && s->is_object()) {
        const auto& so = s->get_object();
        boost::json::object m;
        // A resource the tool named itself may describe the request; only the default is shown.
        const auto resource = string_member(so, "resource");
        m["resource"] = resource == r.tool ? resource : std::string_view("(tool-defined)");
        m["visibility"] = string_member(so, "visibility");
        m["snapshot"] = string_member(so, "snapshot");
        meta["scope"] = std::move(m);
    }
    boost::json::array errors;
    if (const auto* list = sealed->if_contains("errors"); list && list->is_array()) {
        for (const auto& e : list->get_array()) {
            if (!e.is_object()) continue;
            const auto& o = e.get_object();
            issue_record i;
            i.code = string_member(o, "code");
            i.path = sanitized_path(i.code, string_member(o, "path"));
            const auto where = string_member(o, "layer");
            i.where = where == "intake" ? layer::intake
                    : where == "business" ? layer::business
                    : where == "external" ? layer::external
                                          : layer::contract;
            if (const auto* rep = o.if_contains("repairable"); rep && rep->is_bool()) i.repairable = rep->get_bool();
            collect_limit(o, i.code, r.limits);
            if (r.evidence_verdict.empty() && i.code.rfind("EVIDENCE_", 0) == 0) r.evidence_verdict = i.code;
            if (const auto* left = o.if_contains("repairs_remaining"); left && left->is_int64())
                r.repairs_remaining = left->get_int64();
            else if (left && left->is_uint64())
                r.repairs_remaining = static_cast<std::int64_t>(std::min<std::uint64_t>(left->get_uint64(), INT64_MAX));
            auto m = numeric_facts(o);
            m["code"] = i.code;
            m["path"] = i.path;
            m["layer"] = to_string(i.where);
            errors.push_back(std::move(m));
            r.issues.push_back(std::move(i));
        }
    }
    meta["errors"] = std::move(errors);
    return r;
}

void connection::publish(call_record& r, const call_origin& origin) {
    r.time = std::chrono::system_clock::now();
    r.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin.received);
    if (r.what == call_record::kind::tool_call && !r.tool.empty()) {
        // A call that follows answers refused with repairable issues only is a repair attempt.
        auto& streak = repair_streak_[r.tool];
        r.repair_attempt = streak;
        const bool repairable_refusal =
            r.status == "error" && !r.issues.empty() &&
            std::all_of(r.issues.begin(), r.issues.end(), [](const issue_record& i) { return i.repairable; });
        streak = repairable_refusal ? streak + 1 : 0;
    }
    for (const auto& o : observers_) o->on_record(r);
}

}  // namespace candor::mcp
