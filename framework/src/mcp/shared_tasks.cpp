// SPDX-License-Identifier: BSL-1.0
// A task record as the shared task table stores it.

#include <candor/mcp/shared_tasks.hpp>

namespace candor::mcp {

namespace {

std::int64_t ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::chrono::system_clock::time_point from_ms(std::int64_t v) {
    return std::chrono::system_clock::time_point(std::chrono::milliseconds(v));
}

}  // namespace

boost::json::object record_to_json(const task_record& r) {
    boost::json::object o{{"id", r.id},
                          {"owner", r.owner},
                          {"tool", r.tool},
                          {"status", to_string(r.status)},
                          {"created", ms(r.created)},
                          {"updated", ms(r.updated)}};
    if (!r.status_message.empty()) o["status_message"] = r.status_message;
    if (!r.input_requests.empty()) o["input_requests"] = r.input_requests;
    if (!r.result.empty()) o["result"] = r.result;
    if (!r.error.empty()) o["error"] = r.error;
    if (r.expires) o["expires"] = ms(*r.expires);
    return o;
}

std::optional<task_record> record_from_json(const boost::json::object& o) {
    auto text = [&](std::string_view key) -> const boost::json::string* {
        const auto* v = o.if_contains(key);
        return v ? v->if_string() : nullptr;
    };
    auto number = [&](std::string_view key) -> std::optional<std::int64_t> {
        const auto* v = o.if_contains(key);
        if (!v || !v->is_int64()) return std::nullopt;
        return v->get_int64();
    };
    auto object = [&](std::string_view key) -> boost::json::object {
        const auto* v = o.if_contains(key);
        return v && v->is_object() ? v->get_object() : boost::json::object{};
    };
    const auto* id = text("id");
    const auto* owner = text("owner");
    const auto* tool = text("tool");
    const auto* status = text("status");
    const auto created = number("created");
    const auto updated = number("updated");
    if (!id || !owner || !tool || !status || !created || !updated) return std::nullopt;
    const auto s = task_status_from(*status);
    if (!s) return std::nullopt;
    task_record r;
    r.id = std::string(*id);
    r.owner = std::string(*owner);
    r.tool = std::string(*tool);
    r.status = *s;
    r.created = from_ms(*created);
    r.updated = from_ms(*updated);
    if (const auto* m = text("status_message")) r.status_message = std::string(*m);
    r.input_requests = object("input_requests");
    r.result = object("result");
    r.error = object("error");
    if (const auto e = number("expires")) r.expires = from_ms(*e);
    return r;
}

}  // namespace candor::mcp
