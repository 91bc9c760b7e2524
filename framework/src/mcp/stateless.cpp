// SPDX-License-Identifier: BSL-1.0
// The stateless revision's request checks (shared by every transport; HTTP adds its headers),
// tool parameters mirrored into headers (`x-mcp-header`), and the `_meta`, `resultType` and
// caching hints every stateless result carries.

#include "server_core.hpp"

#include <candor/envelope/codes.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/base64.hpp>
#include <candor/mcp/stateless.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

const boost::json::object* meta_of(const rpc::request& req) noexcept {
    if (!req.params) return nullptr;
    const auto* m = req.params->if_contains("_meta");
    return m ? m->if_object() : nullptr;
}

rpc::error_object invalid_meta(std::string text) {
    return rpc::error_object::make(rpc::error_code::invalid_params, std::move(text));
}

rpc::error_object header_mismatch(std::string text) {
    return rpc::error_object::make(rpc::error_code::header_mismatch, "Header mismatch: " + std::move(text));
}

char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string_view trim_ows(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// RFC 9110 tchar.
bool is_tchar(char c) noexcept {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
    constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
    return extra.find(c) != std::string_view::npos;
}

// A header value as the client meant it: plain visible ASCII (space and tab inside), or the
// `=?base64?…?=` sentinel around base64 of UTF-8. Nothing for a value that is neither.
std::optional<std::string> header_value(std::string_view raw) {
    raw = trim_ows(raw);
    constexpr std::string_view open = "=?base64?", close = "?=";
    if (raw.size() >= open.size() + close.size() && raw.substr(0, open.size()) == open &&
        raw.substr(raw.size() - close.size()) == close)
        return base64_decode(raw.substr(open.size(), raw.size() - open.size() - close.size()));
    for (unsigned char c : raw)
        if ((c < 0x20 && c != '\t') || c >= 0x7f) return std::nullopt;
    return std::string(raw);
}

// What `Mcp-Name` must equal for `method`: the tool or prompt name, the resource URI, the task
// id; nothing for methods without one.
std::optional<std::string_view> name_of(const rpc::request& req) noexcept {
    std::string_view key;
    if (req.method == "tools/call" || req.method == "prompts/get") key = "name";
    else if (req.method == "resources/read") key = "uri";
    else if (req.method == "tasks/get" || req.method == "tasks/update" || req.method == "tasks/cancel") key = "taskId";
    else return std::nullopt;
    const auto* v = req.params ? req.params->if_contains(key) : nullptr;
    if (!v || !v->is_string()) return std::string_view{};
    return std::string_view(v->get_string());
}

// The instance value at `path` (a chain of property names) of the arguments, or null.
const boost::json::value* value_at(const boost::json::object& arguments, const std::vector<std::string>& path) {
    const boost::json::object* at = &arguments;
    const boost::json::value* v = nullptr;
    for (const auto& key : path) {
        if (!at) return nullptr;
        v = at->if_contains(key);
        if (!v) return nullptr;
        at = v->if_object();
    }
    return v;
}

// The body value as a header carries it; nothing for a value of another type.
std::optional<std::string> header_text(const boost::json::value& v, header_param::kind k) {
    switch (k) {
        case header_param::kind::string:
            if (const auto* s = v.if_string()) return std::string(*s);
            return std::nullopt;
        case header_param::kind::boolean:
            if (const auto* b = v.if_bool()) return std::string(*b ? "true" : "false");
            return std::nullopt;
        case header_param::kind::integer:
            if (const auto* i = v.if_int64()) return std::to_string(*i);
            if (const auto* u = v.if_uint64()) return std::to_string(*u);
            if (const auto* d = v.if_double(); d && std::isfinite(*d) && *d == std::floor(*d) && std::fabs(*d) < 9.1e15)
                return std::to_string(static_cast<std::int64_t>(*d));
            return std::nullopt;
    }
    return std::nullopt;
}

// Integers compare numerically ("42" and "42.0" are the same number).
bool same_integer(std::string_view header, std::string_view body) {
    auto parse = [](std::string_view s) -> std::optional<double> {
        if (s.empty() || s.size() > 32) return std::nullopt;
        std::string t(s);
        char* end = nullptr;
        const double d = std::strtod(t.c_str(), &end);
        if (end != t.c_str() + t.size() || !std::isfinite(d)) return std::nullopt;
        return d;
    };
    auto a = parse(header), b = parse(body);
    return a && b && *a == *b;
}

}  // namespace

bool claims_stateless(const rpc::request& req) noexcept {
    const auto* meta = meta_of(req);
    return meta && meta->contains(meta_key::protocol_version);
}

boost::system::result<request_meta, rpc::error_object> read_request_meta(const rpc::request& req) {
    const boost::json::value* raw = req.params ? req.params->if_contains("_meta") : nullptr;
    if (!raw)
        return invalid_meta(
            "params._meta is required: every request of this protocol revision names its "
            "protocolVersion and clientCapabilities there");
    const auto* meta = raw->if_object();
    if (!meta) return invalid_meta("params._meta must be an object");
    request_meta m;
    const auto* version = meta->if_contains(meta_key::protocol_version);
    if (!version || !version->is_string())
        return invalid_meta("params._meta[\"io.modelcontextprotocol/protocolVersion\"] (a string) is required");
    m.protocol_version = version->get_string();
    const auto* caps = meta->if_contains(meta_key::client_capabilities);
    if (!caps || !caps->is_object())
        return invalid_meta("params._meta[\"io.modelcontextprotocol/clientCapabilities\"] (an object) is required");
    m.client_capabilities = &caps->get_object();
    if (const auto* info = meta->if_contains(meta_key::client_info)) {
        if (!info->is_object())
            return invalid_meta("params._meta[\"io.modelcontextprotocol/clientInfo\"] must be an object");
        m.client_info = &info->get_object();
    }
    if (const auto* level = meta->if_contains(meta_key::log_level)) {
        if (!level->is_string() || !parse_log_level(level->get_string()))
            return invalid_meta(
                "params._meta[\"io.modelcontextprotocol/logLevel\"] must be one of debug, info, notice, "
                "warning, error, critical, alert, emergency");
        m.log_level = std::string_view(level->get_string());
    }
    if (const auto* t = meta->if_contains(meta_key::traceparent); t && t->is_string()) m.traceparent = t->get_string();
    if (const auto* t = meta->if_contains(meta_key::tracestate); t && t->is_string()) m.tracestate = t->get_string();
    return m;
}

boost::system::result<std::vector<header_param>, std::string> header_params_of(const boost::json::object& schema) {
    std::vector<header_param> out;
    // Walk the `properties` chains with an explicit stack (schemas are registered by the
    // server's own code, but they may be large); annotations reachable any other way are
    // found by the second walk below and refused.
    struct frame {
        const boost::json::object* schema;
        std::vector<std::string> path;
    };
    std::vector<frame> stack{{&schema, {}}};
    std::size_t visited = 0;
    while (!stack.empty()) {
        frame f = std::move(stack.back());
        stack.pop_back();
        if (++visited > 10'000) return std::string("the input schema is too large to inspect for x-mcp-header");
        if (const auto* ann = f.schema->if_contains("x-mcp-header")) {
            if (f.path.empty()) return std::string("x-mcp-header on the schema root");
            const auto* name = ann->if_string();
            if (!name || name->empty() || !std::all_of(name->begin(), name->end(), is_tchar))
                return std::string("x-mcp-header must be a non-empty HTTP token");
            const auto* type = f.schema->if_contains("type");
            const auto* t = type ? type->if_string() : nullptr;
            header_param p;
            if (t && *t == "string") p.type = header_param::kind::string;
            else if (t && *t == "integer") p.type = header_param::kind::integer;
            else if (t && *t == "boolean") p.type = header_param::kind::boolean;
            else
                return "x-mcp-header '" + std::string(*name) +
                       "' is on a property that is not a string, integer or boolean";
            for (const auto& other : out)
                if (iequals(other.name, *name))
                    return "x-mcp-header '" + std::string(*name) + "' is used twice (names are case-insensitive)";
            p.name = std::string(*name);
            p.path = f.path;
            out.push_back(std::move(p));
        }
        if (const auto* props = f.schema->if_contains("properties"); props && props->is_object()) {
            for (const auto& [key, sub] : props->get_object()) {
                if (const auto* o = sub.if_object()) {
                    auto path = f.path;
                    path.emplace_back(key);
                    stack.push_back({o, std::move(path)});
                }
            }
        }
    }
    // Any other place an annotation stands (under items, anyOf, $defs, …) makes the tool
    // invalid for every client: count all occurrences and compare.
    std::size_t total = 0;
    std::vector<const boost::json::object*> objects{&schema};
    std::vector<const boost::json::array*> arrays;
    std::size_t seen = 0;
    while (!objects.empty() || !arrays.empty()) {
        if (++seen > 100'000) return std::string("the input schema is too large to inspect for x-mcp-header");
        if (!arrays.empty()) {
            const auto* a = arrays.back();
            arrays.pop_back();
            for (const auto& v : *a) {
                if (const auto* o = v.if_object()) objects.push_back(o);
                else if (const auto* inner = v.if_array()) arrays.push_back(inner);
            }
            continue;
        }
        const auto* o = objects.back();
        objects.pop_back();
        for (const auto& [key, v] : *o) {
            if (key == "x-mcp-header") ++total;
            if (const auto* inner = v.if_object()) objects.push_back(inner);
            else if (const auto* arr = v.if_array()) arrays.push_back(arr);
        }
    }
    if (total != out.size())
        return std::string("x-mcp-header may only stand on properties reachable from the root through properties");
    return out;
}

std::string encode_header_value(std::string_view text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }) &&
                       (text.empty() || (text.front() != ' ' && text.back() != ' ')) &&
                       text.substr(0, 9) != "=?base64?";
    if (plain) return std::string(text);
    return "=?base64?" + base64_encode(text) + "?=";
}

std::vector<std::pair<std::string, std::string>> param_headers(const std::vector<header_param>& params,
                                                               const boost::json::object& arguments) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& p : params) {
        const auto* v = value_at(arguments, p.path);
        if (!v || v->is_null()) continue;
        if (auto text = header_text(*v, p.type)) out.emplace_back("Mcp-Param-" + p.name, encode_header_value(*text));
    }
    return out;
}

namespace detail {

bool is_stateless_method(std::string_view method) noexcept {
    static constexpr std::array<std::string_view, 16> methods = {"server/discover",
                                                                 "tools/list",
                                                                 "tools/call",
                                                                 "resources/list",
                                                                 "resources/templates/list",
                                                                 "resources/read",
                                                                 "prompts/list",
                                                                 "prompts/get",
                                                                 "completion/complete",
                                                                 "subscriptions/listen",
                                                                 "tasks/get",
                                                                 "tasks/update",
                                                                 "tasks/cancel",
                                                                 "skills/list",
                                                                 "skills/get",
                                                                 "resources/directory/read"};
    return std::find(methods.begin(), methods.end(), method) != methods.end();
}

}  // namespace detail

std::optional<request_refusal> server::preflight(const rpc::request& req, const header_lookup* headers,
                                                 detail::registry_cache* registry) const {
    return detail::preflight(*core_, req, headers, registry);
}

std::optional<request_refusal> detail::preflight(const server_core& core, const rpc::request& req,
                                                 const header_lookup* headers, registry_cache* registry) {
    // The order the conformance suite and the reference SDKs agree on: the body's _meta, the
    // version header against it, the version, the method headers, the method, the client's
    // capabilities, the mirrored parameters.
    auto meta = read_request_meta(req);
    if (!meta) return request_refusal{400, meta.error()};
    if (headers) {
        auto version = (*headers)("MCP-Protocol-Version");
        if (!version) return request_refusal{400, header_mismatch("the MCP-Protocol-Version header is required")};
        if (trim_ows(*version) != meta->protocol_version)
            return request_refusal{
                400, header_mismatch("MCP-Protocol-Version header value '" + std::string(trim_ows(*version)) +
                                     "' does not match _meta protocolVersion '" + std::string(meta->protocol_version) +
                                     "'")};
    }
    if (!is_stateless_version(meta->protocol_version)) {
        boost::json::array supported;
        for (auto v : stateless_versions) supported.emplace_back(v);
        return request_refusal{
            400, rpc::error_object::make(
                     rpc::error_code::unsupported_protocol_version, "Unsupported protocol version",
                     boost::json::object{{"supported", std::move(supported)}, {"requested", meta->protocol_version}})};
    }
    if (headers) {
        auto method = (*headers)("Mcp-Method");
        if (!method) return request_refusal{400, header_mismatch("the Mcp-Method header is required")};
        if (trim_ows(*method) != req.method)
            return request_refusal{400, header_mismatch("Mcp-Method header value '" + std::string(trim_ows(*method)) +
                                                        "' does not match body method '" + req.method + "'")};
        if (auto expected = name_of(req)) {
            auto name = (*headers)("Mcp-Name");
            if (!name)
                return request_refusal{400, header_mismatch("the Mcp-Name header is required for " + req.method)};
            auto decoded = header_value(*name);
            if (!decoded) return request_refusal{400, header_mismatch("the Mcp-Name header value is malformed")};
            if (*decoded != *expected)
                return request_refusal{
                    400, header_mismatch("Mcp-Name header value '" + *decoded + "' does not match body value '" +
                                         std::string(*expected) + "'")};
        }
    }
    if (!detail::is_stateless_method(req.method))
        return request_refusal{
            404, rpc::error_object::make(rpc::error_code::method_not_found, "Method not found: " + req.method)};
    if (detail::is_task_method(req.method)) {
        // Before the task is looked up: a client that did not declare the extension learns
        // nothing about task ids.
        if (!detail::declares_tasks_extension(*meta->client_capabilities))
            return request_refusal{
                400, detail::tasks_extension_required(req.method +
                                                      " needs the client to declare the io.modelcontextprotocol/tasks "
                                                      "extension in its capabilities")};
        return std::nullopt;
    }
    if (req.method != "tools/call") return std::nullopt;
    const auto* name = detail::string_param(req.params, "name");
    if (!name) return std::nullopt;  // the method answers -32602 itself
    // The tool and its mirrored parameters, kept by the thread's snapshot or, without one, by
    // copies taken under the registry's lock.
    std::shared_ptr<tool_handler> tool_copy;
    std::shared_ptr<const std::vector<header_param>> mirrored_copy;
    const tool_handler* tool = nullptr;
    const std::vector<header_param>* mirrored = nullptr;
    const std::string_view tool_name = *name;
    if (registry) {
        const auto& snap = registry->now();
        if (auto it = snap->tools.find(tool_name); it != snap->tools.end()) tool = it->second.get();
        if (auto it = snap->tool_headers.find(tool_name); it != snap->tool_headers.end()) mirrored = it->second.get();
    } else {
        {
            std::lock_guard lock(core.mu);
            if (auto it = core.tools.find(tool_name); it != core.tools.end()) tool_copy = it->second;
            if (auto it = core.tool_headers.find(tool_name); it != core.tool_headers.end()) mirrored_copy = it->second;
        }
        tool = tool_copy.get();
        mirrored = mirrored_copy.get();
    }
    if (!tool) return std::nullopt;  // unknown tool: -32602 from the method, HTTP 200
    const auto& needs = tool->info().required_client_capabilities;
    boost::json::object missing;
    for (const auto& [capability, settings] : needs)
        if (!meta->client_capabilities->contains(capability)) missing[capability] = settings;
    if (!missing.empty()) {
        std::string names;
        for (const auto& [capability, settings] : missing)
            names += (names.empty() ? "" : ", ") + std::string(capability);
        return request_refusal{
            400, rpc::error_object::make(rpc::error_code::missing_required_client_capability,
                                         "tool " + tool->info().name + " needs the client capabilities: " + names,
                                         boost::json::object{{"requiredCapabilities", std::move(missing)}})};
    }
    if (tool->info().tasks == task_support::required && !detail::declares_tasks_extension(*meta->client_capabilities))
        return request_refusal{400, detail::tasks_extension_required(
                                        "tool " + tool->info().name +
                                        " runs only as a task: declare the io.modelcontextprotocol/tasks extension")};
    if (!headers || !mirrored) return std::nullopt;
    static const boost::json::object no_arguments;
    const auto* args_value = req.params->if_contains("arguments");
    const auto& args = args_value && args_value->is_object() ? args_value->get_object() : no_arguments;
    for (const auto& p : *mirrored) {
        const std::string header = "Mcp-Param-" + p.name;
        auto raw = (*headers)(header);
        const auto* v = value_at(args, p.path);
        if (!v || v->is_null()) {
            // No value in the body: no header expected (one sent anyway must still be well formed).
            if (raw && !header_value(*raw))
                return request_refusal{400, header_mismatch("the " + header + " header value is malformed")};
            continue;
        }
        if (!raw) return request_refusal{400, header_mismatch("the " + header + " header is required")};
        auto decoded = header_value(*raw);
        if (!decoded) return request_refusal{400, header_mismatch("the " + header + " header value is malformed")};
        auto body = header_text(*v, p.type);
        const bool same =
            body && (p.type == header_param::kind::integer ? same_integer(*decoded, *body) : *decoded == *body);
        if (!same)
            return request_refusal{400,
                                   header_mismatch(header + " header value does not match the argument it mirrors")};
    }
    return std::nullopt;
}

}  // namespace candor::mcp

namespace candor::mcp::detail {

namespace {

bool is_lower_hex(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zero(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}

// W3C Trace Context: version "00"..."fe" - 32 hex trace id (not all zero) - 16 hex parent id
// (not all zero) - 2 hex flags; later versions may append fields after another '-'.
bool valid_traceparent(std::string_view t) noexcept {
    if (t.size() < 55 || (t.size() > 55 && t[55] != '-') || t.size() > 512) return false;
    if (t[2] != '-' || t[35] != '-' || t[52] != '-') return false;
    const auto version = t.substr(0, 2), trace = t.substr(3, 32), parent = t.substr(36, 16), flags = t.substr(53, 2);
    if (!is_lower_hex(version) || version == "ff" || (version == "00" && t.size() != 55)) return false;
    return is_lower_hex(trace) && !all_zero(trace) && is_lower_hex(parent) && !all_zero(parent) && is_lower_hex(flags);
}

bool valid_tracestate(std::string_view t) noexcept {
    if (t.empty() || t.size() > 512) return false;
    return std::all_of(t.begin(), t.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

}  // namespace

std::optional<jsonrpc::error_object> trace_context(const jsonrpc::request& req, std::string& traceparent,
                                                   std::string& tracestate) {
    traceparent.clear();
    tracestate.clear();
    const auto* meta = meta_of(req);
    if (!meta) return std::nullopt;
    // Past any size W3C allows (a baggage header holds at most 8,192 bytes; traceparent and
    // tracestate far fewer): refused, not silently dropped like a value merely malformed.
    for (const std::string_view key : {meta_key::traceparent, meta_key::tracestate, std::string_view("baggage")}) {
        const auto* v = meta->if_contains(key);
        const auto* text = v ? v->if_string() : nullptr;
        if (text && text->size() > max_trace_context_bytes)
            return jsonrpc::error_object::make(
                jsonrpc::error_code::invalid_params,
                "_meta." + std::string(key) + " is larger than " + std::to_string(max_trace_context_bytes) +
                    " bytes, more than W3C Trace Context and Baggage allow",
                boost::json::object{{"code", envelope::error_codes::trace_context_too_large},
                                    {"limit", max_trace_context_bytes}});
    }
    const auto* parent = meta->if_contains(meta_key::traceparent);
    if (!parent || !parent->is_string() || !valid_traceparent(parent->get_string())) return std::nullopt;
    traceparent = parent->get_string();
    if (const auto* state = meta->if_contains(meta_key::tracestate);
        state && state->is_string() && valid_tracestate(state->get_string()))
        tracestate = state->get_string();
    return std::nullopt;
}

bool same_client(const session_info& s, const boost::json::object& client_info) {
    const auto* n = client_info.if_contains("name");
    const auto* v = client_info.if_contains("version");
    const std::string_view name = n && n->is_string() ? std::string_view(n->get_string()) : std::string_view();
    const std::string_view version = v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
    return s.client_name == name && s.client_version == version;
}

boost::json::object server_identity(const server_options& o) {
    boost::json::object info{{"name", o.name}, {"version", o.version}};
    if (!o.title.empty()) info["title"] = o.title;
    return info;
}

std::string stateless_call_fields(const server_options& o) {
    std::string fields = R"(,"resultType":"complete","_meta":{")";
    fields += meta_key::server_info;
    fields += R"(":)";
    // The identity is the server's own configuration: always serializable.
    (void)json::write(boost::json::value(server_identity(o)), fields);
    fields += '}';
    return fields;
}

}  // namespace candor::mcp::detail

namespace candor::mcp::detail {

bool canonical_json(const boost::json::value& root, std::string& out) {
    // A frame per open container: its members in key order (objects) or its elements.
    struct frame {
        const boost::json::object* object = nullptr;
        std::vector<const boost::json::key_value_pair*> members;
        const boost::json::array* array = nullptr;
        std::size_t next = 0;
    };
    auto scalar = [&out](const boost::json::value& v) {
        if (const auto* d = v.if_double()) {
            // An integral double in the exact range is the same number as the integer.
            if (std::isfinite(*d) && *d == std::floor(*d) && std::fabs(*d) < 9007199254740992.0) {
                out += std::to_string(static_cast<std::int64_t>(*d));
                return;
            }
        }
        out += boost::json::serialize(v);
    };
    auto open = [&](const boost::json::value& v, std::vector<frame>& stack) -> bool {
        if (const auto* o = v.if_object()) {
            if (stack.size() >= json::depth_ceiling) return false;
            frame f;
            f.object = o;
            f.members.reserve(o->size());
            for (const auto& kv : *o) f.members.push_back(&kv);
            std::sort(f.members.begin(), f.members.end(),
                      [](const auto* a, const auto* b) { return a->key() < b->key(); });
            out += '{';
            stack.push_back(std::move(f));
            return true;
        }
        if (const auto* a = v.if_array()) {
            if (stack.size() >= json::depth_ceiling) return false;
            frame f;
            f.array = a;
            out += '[';
            stack.push_back(std::move(f));
            return true;
        }
        scalar(v);
        return true;
    };
    std::vector<frame> stack;
    if (!open(root, stack)) return false;
    while (!stack.empty()) {
        auto& f = stack.back();
        const std::size_t count = f.object ? f.members.size() : (f.array ? f.array->size() : 0);
        if (f.next == count) {
            out += f.object ? '}' : ']';
            stack.pop_back();
            continue;
        }
        if (f.next > 0) out += ',';
        const boost::json::value* v;
        if (f.object) {
            const auto* kv = f.members[f.next];
            out += boost::json::serialize(boost::json::string_view(kv->key()));
            out += ':';
            v = &kv->value();
        } else {
            v = &(*f.array)[f.next];
        }
        ++f.next;
        if (!open(*v, stack)) return false;  // `f` may dangle after a push: not used again
    }
    return true;
}

}  // namespace candor::mcp::detail
