// SPDX-License-Identifier: BSL-1.0
// Who hears about changes: the stateless revision's `subscriptions/listen` (change
// notifications for the clients that asked for them) and, for a session, every list change and
// the resources it subscribed to (`resources/subscribe` is in resource.cpp).

#include "connection_impl.hpp"

#include <candor/mcp/stateless.hpp>

namespace candor::mcp {

namespace rpc = jsonrpc;

void detail::subscription_table::on_listen(const rpc::request& req) {
    if (listeners_.count(req.id) || c_.calls.in_flight(req.id))
        return c_.send_error(
            req.id, rpc::error_object::make(rpc::error_code::invalid_request, "a request with this id is still open"));
    // A connection that serves this one request is told of changes from now on.
    if (c_.opts.single_request && !c_.enlisted) c_.core->enlist(c_.weak_from_this());
    listener l;
    boost::json::object honored;
    const auto* filter = req.params ? req.params->if_contains("notifications") : nullptr;
    if (filter && !filter->is_object())
        return c_.send_error(req.id, detail::invalid_params("params.notifications must be an object"));
    if (filter) {
        const auto& f = filter->get_object();
        auto flag = [&](std::string_view key, bool& into) -> bool {
            const auto* v = f.if_contains(key);
            if (!v) return true;
            if (!v->is_bool()) return false;
            into = v->get_bool();
            if (into) honored[key] = true;
            return true;
        };
        if (!flag("toolsListChanged", l.tools) || !flag("promptsListChanged", l.prompts) ||
            !flag("resourcesListChanged", l.resources))
            return c_.send_error(req.id,
                                 detail::invalid_params("toolsListChanged, promptsListChanged and resourcesListChanged "
                                                        "must be booleans"));
        if (const auto* uris = f.if_contains("resourceSubscriptions")) {
            if (!uris->is_array())
                return c_.send_error(req.id, detail::invalid_params("resourceSubscriptions must be an array of URIs"));
            if (uris->get_array().size() > c_.core->opts.max_subscriptions)
                return c_.send_error(
                    req.id, detail::invalid_params("resourceSubscriptions names more than " +
                                                   std::to_string(c_.core->opts.max_subscriptions) + " resources"));
            boost::json::array accepted;
            for (const auto& u : uris->get_array()) {
                if (!u.is_string() || !is_valid_resource_uri(u.get_string()))
                    return c_.send_error(
                        req.id, detail::invalid_params("resourceSubscriptions must be an array of valid URIs"));
                if (l.uris.emplace(std::string(u.get_string())).second) accepted.emplace_back(u.get_string());
            }
            if (!accepted.empty()) honored["resourceSubscriptions"] = std::move(accepted);
        }
    }
    const auto id = req.id;
    listeners_.emplace(id, std::move(l));
    c_.send_notification("notifications/subscriptions/acknowledged",
                         boost::json::object{{"notifications", std::move(honored)},
                                             {"_meta", boost::json::object{{meta_key::subscription_id, id.to_json()}}}},
                         message_route{id, false});
}

void detail::subscription_table::list_changed(std::string_view method) {
    if (c_.lifecycle != phase::awaiting_initialize) c_.send_notification(method, {});
    notify_listeners(method, nullptr);
}

void detail::subscription_table::resource_updated(const std::string& uri) {
    if (uris_.count(uri)) c_.send_notification("notifications/resources/updated", boost::json::object{{"uri", uri}});
    notify_listeners("notifications/resources/updated", &uri);
}

void detail::subscription_table::notify_listeners(std::string_view method, const std::string* uri) {
    for (const auto& [id, l] : listeners_) {
        const bool wanted = uri ? l.uris.count(*uri) > 0
                                : (method == "notifications/tools/list_changed" && l.tools) ||
                                      (method == "notifications/prompts/list_changed" && l.prompts) ||
                                      (method == "notifications/resources/list_changed" && l.resources);
        if (!wanted) continue;
        boost::json::object params{{"_meta", boost::json::object{{meta_key::subscription_id, id.to_json()}}}};
        if (uri) params["uri"] = *uri;
        c_.send_notification(method, params, message_route{id, false});
    }
}

void detail::subscription_table::end_listeners() {
    // A graceful end: the listen request's own response, tagged like every message of it.
    auto open = std::move(listeners_);
    listeners_.clear();
    for (const auto& [id, l] : open) {
        boost::json::object result{
            {"resultType", "complete"},
            {"_meta", boost::json::object{{meta_key::subscription_id, id.to_json()},
                                          {meta_key::server_info, detail::server_identity(c_.core->opts)}}}};
        c_.send_result(id, boost::json::value(std::move(result)));
    }
}

}  // namespace candor::mcp
