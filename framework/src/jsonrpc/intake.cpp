// SPDX-License-Identifier: BSL-1.0
#include <candor/jsonrpc/intake.hpp>

#include <limits>
#include <string>

namespace candor::jsonrpc {

namespace {

constexpr std::string_view params_prefix = "/params/";

bool is_under_params(const std::string& path) {
    return path.size() > params_prefix.size() && path.compare(0, params_prefix.size(), params_prefix) == 0;
}

bool has_violation_at(const std::vector<json::violation>& vs, std::string_view path) {
    for (const auto& v : vs)
        if (v.path == path) return true;
    return false;
}

// An id read from a JSON value; nullopt when it is not a string or a 64-bit signed integer.
std::optional<request_id> to_id(const boost::json::value& v) {
    if (const auto* s = v.if_string()) return request_id(std::string(*s));
    if (const auto* i = v.if_int64()) return request_id(*i);
    if (const auto* u = v.if_uint64()) {
        if (*u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return request_id(static_cast<std::int64_t>(*u));
    }
    return std::nullopt;
}

// The id to answer a refused message with: only one that was read unambiguously.
std::optional<request_id> readable_id(const boost::json::value& root, const std::vector<json::violation>& vs) {
    const auto* o = root.if_object();
    if (!o || has_violation_at(vs, "/id")) return std::nullopt;
    const auto* id = o->if_contains("id");
    return id ? to_id(*id) : std::nullopt;
}

rejection refuse(std::optional<request_id> id, error_code c, std::string text,
                 std::optional<boost::json::value> data = {}) {
    return rejection{std::move(id), error_object::make(c, std::move(text), std::move(data))};
}

boost::system::result<error_object, std::string> read_error_member(const boost::json::value& v) {
    const auto* o = v.if_object();
    if (!o) return std::string("error must be an object");
    const auto* code = o->if_contains("code");
    const auto* msg = o->if_contains("message");
    if (!code || !(code->is_int64() || code->is_uint64())) return std::string("error.code must be an integer");
    if (!msg || !msg->is_string()) return std::string("error.message must be a string");
    error_object e;
    e.code = code->is_int64() ? static_cast<int>(code->get_int64()) : 0;
    e.message = std::string(msg->get_string());
    if (const auto* d = o->if_contains("data")) e.data = *d;
    return e;
}

}  // namespace

boost::system::result<inbound, rejection> read_message(std::string_view text, const json::limits& lim) {
    auto scanned = json::scan(text, lim);
    if (!scanned) {
        // Syntax errors and resource limits stop the parse: nothing in the text can be trusted,
        // the id included.
        return refuse(std::nullopt, error_code::parse_error, scanned.error().message,
                      boost::json::value(to_json(scanned.error())));
    }
    auto doc = std::make_shared<json::document>(std::move(scanned->doc));
    auto& violations = scanned->violations;
    const boost::json::value& root = doc->root();

    const auto safe_id = readable_id(root, violations);
    std::vector<json::violation> in_params;
    for (auto& v : violations) {
        if (is_under_params(v.path)) {
            v.path.erase(0, params_prefix.size() - 1);
            in_params.push_back(std::move(v));
        } else {
            // A duplicated `id`, `method`, `jsonrpc` or `params`, or a bad number outside the
            // parameters: the message is ambiguous and is refused as a whole.
            return refuse(safe_id, error_code::parse_error, v.message, boost::json::value(to_json(v)));
        }
    }

    if (root.is_array())
        return refuse(std::nullopt, error_code::invalid_request,
                      "batches are not supported: send one JSON-RPC message per text");
    const auto* obj = root.if_object();
    if (!obj) return refuse(std::nullopt, error_code::invalid_request, "a JSON-RPC message must be an object");

    const auto* id_value = obj->if_contains("id");
    std::optional<request_id> id = id_value ? to_id(*id_value) : std::nullopt;

    for (const auto& kv : *obj) {
        const auto k = kv.key();
        if (k != "jsonrpc" && k != "id" && k != "method" && k != "params" && k != "result" && k != "error")
            return refuse(id, error_code::invalid_request,
                          "unknown member '" + std::string(k) + "' in a JSON-RPC message");
    }
    const auto* version = obj->if_contains("jsonrpc");
    if (!version || !version->is_string() || version->get_string() != "2.0")
        return refuse(id, error_code::invalid_request, "jsonrpc must be \"2.0\"");
    const auto* method = obj->if_contains("method");
    if (!method && id_value && id_value->is_null() && obj->contains("error") && !obj->contains("result")) {
        // The client's error about a message of ours it could not read: a response, which is
        // never answered (not even with an error).
        auto e = read_error_member(obj->at("error"));
        if (!e) return refuse(std::nullopt, error_code::invalid_request, e.error());
        in_params.clear();
        inbound r{doc, response{std::nullopt, nullptr, std::move(*e)}, {}};
        return r;
    }
    if (id_value && !id) {
        return refuse(std::nullopt, error_code::invalid_request,
                      id_value->is_null() ? "id must be a string or an integer, never null"
                                          : "id must be a string or an integer (64-bit signed)");
    }

    inbound in{doc, notification{}, {}};

    if (method) {
        if (!method->is_string() || method->get_string().empty())
            return refuse(id, error_code::invalid_request, "method must be a non-empty string");
        if (obj->contains("result") || obj->contains("error"))
            return refuse(id, error_code::invalid_request, "a request cannot carry result or error");
        const boost::json::object* params = nullptr;
        if (const auto* p = obj->if_contains("params")) {
            if (p->is_array())
                return refuse(id, error_code::invalid_params,
                              "params must be an object: MCP methods take named parameters");
            if (!p->is_object()) return refuse(id, error_code::invalid_request, "params must be an object");
            params = &p->get_object();
        }
        std::string name(method->get_string());
        if (id) in.msg = request{*id, std::move(name), params};
        else in.msg = notification{std::move(name), params};
        in.param_violations = std::move(in_params);
        return in;
    }

    // No method: a response to one of our requests.
    if (!id) return refuse(std::nullopt, error_code::invalid_request, "a message needs a method or an id");
    if (obj->contains("params")) return refuse(id, error_code::invalid_request, "a response cannot carry params");
    const auto* result = obj->if_contains("result");
    const auto* error = obj->if_contains("error");
    if ((result != nullptr) == (error != nullptr))
        return refuse(id, error_code::invalid_request, "a response carries exactly one of result and error");
    if (!in_params.empty())
        return refuse(id, error_code::parse_error, in_params.front().message,
                      boost::json::value(to_json(in_params.front())));
    response r{*id, result, std::nullopt};
    if (error) {
        auto e = read_error_member(*error);
        if (!e) return refuse(id, error_code::invalid_request, e.error());
        r.error = std::move(*e);
    }
    in.msg = std::move(r);
    return in;
}

}  // namespace candor::jsonrpc
