// SPDX-License-Identifier: BSL-1.0
// A connection's inbound side: intake, the lifecycle, which request goes where (both protocol
// families), tools/list, logging/setLevel, notifications. Tool calls are in call.cpp.
#include "connection_impl.hpp"

#include <candor/jsonrpc/intake.hpp>
#include <candor/mcp/stateless.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace candor::mcp::detail {

namespace rpc = jsonrpc;

bool request_dispatcher::begin_message(std::size_t bytes) {
    if (c_.closed) return false;
    c_.current = call_origin{std::chrono::steady_clock::now(), bytes, nullptr};
    c_.current_method = {};
    return true;
}

void request_dispatcher::handle(std::string text) {
    if (!begin_message(text.size())) return;
    auto in = rpc::read_message(text, c_.core->opts.message_limits);
    if (!in) {
        c_.send_error(in.error().id, in.error().error);
        return;
    }
    dispatch_message(*in);
}

void request_dispatcher::dispatch_message(rpc::inbound& in) {
    if (auto* req = std::get_if<rpc::request>(&in.msg)) {
        c_.current_method = detail::known_method(req->method);
        handle_request(in, *req);
    } else if (auto* n = std::get_if<rpc::notification>(&in.msg)) {
        handle_notification(in, *n);
    } else {
        c_.to_client.on_response(std::get<rpc::response>(in.msg));
    }
}

void request_dispatcher::handle_request(rpc::inbound& in, rpc::request& req) {
    if (!used_ && c_.lifecycle != phase::awaiting_initialize && req.method != "initialize") {
        used_ = true;
        c_.tell_session(session_event::kind::used);
    }
    // Only tools/call gives meaning to violations inside its params (those in `arguments`);
    // for every other method they make the message ambiguous.
    if (req.method != "tools/call" && !in.param_violations.empty()) {
        auto& v = in.param_violations.front();
        v.path.insert(0, "/params");
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::parse_error, v.message,
                                                      boost::json::value(rpc::to_json(v))));
        return;
    }
    if (auto refused = detail::trace_context(req, c_.current.traceparent, c_.current.tracestate)) {
        c_.send_error(req.id, std::move(*refused));
        return;
    }
    if (claims_stateless(req)) return handle_stateless(in, req);
    enter_session_frame();
    if (req.method == "ping") {
        c_.send_result(req.id, boost::json::object{});
        return;
    }
    if (req.method == "initialize") {
        on_initialize(req);
        return;
    }
    if (c_.rules.requires_initialize && c_.lifecycle == phase::awaiting_initialize) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_request,
                                                      "the session is not initialized: send initialize first"));
        return;
    }
    if (req.method == "tools/list") return on_tools_list(req);
    if (req.method == "tools/call") return c_.calls.on_tools_call(in, req);
    if (req.method == "logging/setLevel") return on_set_level(req);
    if (req.method == "resources/list") return on_resources_list(req);
    if (req.method == "resources/templates/list") return on_resource_templates_list(req);
    if (req.method == "resources/read") return on_resources_read(req);
    if (req.method == "resources/subscribe") return c_.subscriptions.on_resources_subscribe(req, true);
    if (req.method == "resources/unsubscribe") return c_.subscriptions.on_resources_subscribe(req, false);
    if (req.method == "prompts/list") return on_prompts_list(req);
    if (req.method == "prompts/get") return on_prompts_get(req);
    if (req.method == "completion/complete") return on_complete(req);
    if (req.method == "skills/list") return on_skills_list(req);
    if (req.method == "skills/get") return on_skills_get(req);
    if (req.method == "resources/directory/read") return on_directory_read(req);
    c_.send_error(req.id,
                  rpc::error_object::make(rpc::error_code::method_not_found, "method not found: " + req.method));
}

void request_dispatcher::enter_session_frame() {
    c_.current.session = c_.session;
    c_.current.stateless = false;
    c_.frame.rules = c_.rules;
    c_.frame.log_threshold.reset();
}

void request_dispatcher::handle_stateless(rpc::inbound& in, rpc::request& req) {
    c_.current.stateless = true;
    if (!c_.opts.preflighted) {
        if (auto refused = detail::preflight(*c_.core, req, nullptr, c_.opts.registry.get())) {
            c_.send_error(req.id, refused->error);
            return;
        }
    }
    const auto meta = read_request_meta(req).value();  // preflight accepted it
    c_.frame.rules = *rules_for(meta.protocol_version);
    c_.frame.log_threshold.reset();
    if (meta.log_level) c_.frame.log_threshold = parse_log_level(*meta.log_level);
    // The client facts of this request. A client sends the same _meta on every request: the
    // last one's facts are reused while nothing in them changed.
    const auto& last = stateless_session_;
    const bool same = last && last->protocol_version == meta.protocol_version &&
                      last->client_capabilities == *meta.client_capabilities &&
                      (meta.client_info ? detail::same_client(*last, *meta.client_info)
                                        : last->client_name.empty() && last->client_version.empty());
    if (!same) {
        auto fresh = std::make_shared<session_info>();
        fresh->id = c_.opts.session_id;
        fresh->protocol_version = std::string(meta.protocol_version);
        fresh->client_capabilities = json::detach(boost::json::value(*meta.client_capabilities)).as_object();
        if (meta.client_info) {
            if (const auto* n = meta.client_info->if_contains("name"); n && n->is_string())
                fresh->client_name = n->get_string();
            if (const auto* v = meta.client_info->if_contains("version"); v && v->is_string())
                fresh->client_version = v->get_string();
        }
        stateless_session_ = std::move(fresh);
    }
    c_.current.session = stateless_session_;
    const auto& m = req.method;
    if (m == "server/discover") return on_discover(req);
    if (m == "tools/list") return on_tools_list(req);
    if (m == "tools/call") return c_.calls.on_tools_call(in, req);
    if (m == "resources/list") return on_resources_list(req);
    if (m == "resources/templates/list") return on_resource_templates_list(req);
    if (m == "resources/read") return on_resources_read(req);
    if (m == "prompts/list") return on_prompts_list(req);
    if (m == "prompts/get") return on_prompts_get(req);
    if (m == "completion/complete") return on_complete(req);
    if (m == "skills/list") return on_skills_list(req);
    if (m == "skills/get") return on_skills_get(req);
    if (m == "resources/directory/read") return on_directory_read(req);
    if (m == "subscriptions/listen") return c_.subscriptions.on_listen(req);
    if (m == "tasks/get") return c_.tasks.on_tasks_get(req);
    if (m == "tasks/update") return c_.tasks.on_tasks_update(req);
    if (m == "tasks/cancel") return c_.tasks.on_tasks_cancel(req);
    // preflight refuses every other method
    c_.send_error(req.id, rpc::error_object::make(rpc::error_code::method_not_found, "Method not found: " + m));
}

void request_dispatcher::handle_notification(rpc::inbound&, rpc::notification& n) {
    if (n.method == "notifications/initialized") {
        if (c_.lifecycle == phase::initializing) c_.lifecycle = phase::ready;
    } else if (n.method == "notifications/cancelled") {
        on_cancelled(n);
    } else {
        // Notifications are never answered, not even with an error. Their names are the
        // client's text: only known ones are logged by name.
        c_.log(log_level::debug, "ignored notification " + std::string(detail::known_method(n.method)));
    }
}

namespace {

const boost::json::value* member(const boost::json::object* o, std::string_view key) {
    return o ? o->if_contains(key) : nullptr;
}

// A copy that owns its memory (values in an inbound document live in its arena).
boost::json::value detached(const boost::json::value& v) { return boost::json::value(v, boost::json::storage_ptr()); }

// The server's capabilities: tools and logging always, the others only when something of the
// kind is registered; `tasks`: the tasks extension too, when a tool can run as a task (tasks/*
// are served either way).
boost::json::object capabilities(const server_core& core, bool tasks) {
    boost::json::object out{{"tools", boost::json::object{{"listChanged", true}}}, {"logging", boost::json::object{}}};
    std::lock_guard lock(core.mu);
    if (!core.resources.empty() || !core.templates.empty())
        out["resources"] = boost::json::object{{"subscribe", true}, {"listChanged", true}};
    if (!core.prompts.empty()) out["prompts"] = boost::json::object{{"listChanged", true}};
    if (!core.completions.empty()) out["completions"] = boost::json::object{};
    if (tasks && std::any_of(core.tools.begin(), core.tools.end(),
                             [](const auto& t) { return t.second->info().tasks != task_support::none; }))
        advertise_tasks(out);
    if (!core.skills.empty()) advertise_skills(out);
    return out;
}

}  // namespace

void request_dispatcher::on_initialize(const rpc::request& req) {
    if (c_.lifecycle != phase::awaiting_initialize) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_request,
                                                      "initialize may be sent once per session"));
        return;
    }
    const auto* version = member(req.params, "protocolVersion");
    if (!version || !version->is_string()) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "initialize needs params.protocolVersion (a string)"));
        return;
    }
    const auto* caps = member(req.params, "capabilities");
    const auto* client = member(req.params, "clientInfo");
    if ((caps && !caps->is_object()) || (client && !client->is_object())) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "capabilities and clientInfo must be objects"));
        return;
    }
    c_.rules = negotiate(version->get_string());
    auto fresh = std::make_shared<session_info>(*c_.session);
    fresh->protocol_version = std::string(c_.rules.version);
    if (caps) fresh->client_capabilities = detached(*caps).as_object();
    if (client) {
        const auto& ci = client->get_object();
        if (const auto* n = ci.if_contains("name"); n && n->is_string()) fresh->client_name = n->get_string();
        if (const auto* v = ci.if_contains("version"); v && v->is_string()) fresh->client_version = v->get_string();
    }
    c_.session = std::move(fresh);

    const auto& o = c_.core->opts;
    boost::json::object info{{"name", o.name}, {"version", o.version}};
    if (c_.rules.titles && !o.title.empty()) info["title"] = o.title;
    boost::json::object result;
    result["protocolVersion"] = c_.rules.version;
    // Only what something is registered for (at the time of initialize).
    result["capabilities"] = capabilities(*c_.core, false);
    result["serverInfo"] = std::move(info);
    if (!o.instructions.empty()) result["instructions"] = o.instructions;
    c_.lifecycle = phase::initializing;
    c_.send_result(req.id, result);
    c_.tell_session(session_event::kind::opened);
}

void request_dispatcher::on_discover(const rpc::request& req) {
    const auto& o = c_.core->opts;
    boost::json::array versions;
    for (auto v : supported_versions) versions.emplace_back(v);
    // Change notifications reach a stateless client through subscriptions/listen, which this
    // server implements for every list and for resource updates.
    boost::json::object result{{"supportedVersions", std::move(versions)},
                               {"capabilities", capabilities(*c_.core, true)}};
    if (!o.instructions.empty()) result["instructions"] = o.instructions;
    c_.send_result(req.id, std::move(result), c_.style_of(&o.caching.discover));
}

void request_dispatcher::on_tools_list(const rpc::request& req) {
    std::optional<std::string> cursor;
    if (!detail::read_cursor(req.params, cursor)) {
        c_.send_error(req.id, detail::invalid_params("cursor must be a string"));
        return;
    }
    auto page = c_.core->list(cursor);
    if (!page) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "invalid cursor: pass a nextCursor from an earlier tools/list"));
        return;
    }
    const auto& listed = page.value();
    boost::json::array tools;
    for (const auto& t : listed.tools) tools.emplace_back(detail::describe(*t, c_.frame.rules));
    boost::json::object result{{"tools", std::move(tools)}};
    if (listed.next_cursor) result["nextCursor"] = listed.next_cursor.value();
    c_.send_result(req.id, std::move(result), c_.style_of(&c_.core->opts.caching.lists));
}

void request_dispatcher::on_set_level(const rpc::request& req) {
    const auto* level = member(req.params, "level");
    std::optional<log_level> parsed;
    if (level && level->is_string()) parsed = parse_log_level(level->get_string());
    if (!parsed) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "level must be one of debug, info, notice, warning, "
                                                      "error, critical, alert, emergency"));
        return;
    }
    c_.client_level = *parsed;
    c_.send_result(req.id, boost::json::object{});
}

void request_dispatcher::on_cancelled(const rpc::notification& n) {
    const auto* id_value = member(n.params, "requestId");
    if (!id_value) return;
    std::optional<rpc::request_id> id;
    if (const auto* s = id_value->if_string()) id = rpc::request_id(std::string(*s));
    else if (const auto* i = id_value->if_int64()) id = rpc::request_id(*i);
    if (!id) return;
    // A subscription ends without a response (the client closed it).
    if (c_.subscriptions.cancel(*id)) return;
    if (c_.calls.in_flight(*id) || !c_.session || c_.session->id.empty()) {
        c_.calls.cancel(*id);
        return;
    }
    // Not a call of this replica's: the session's call may run on another one.
    c_.core->share({notice::kind::cancelled, c_.session->id, boost::json::serialize(id->to_json())});
}

}  // namespace candor::mcp::detail
