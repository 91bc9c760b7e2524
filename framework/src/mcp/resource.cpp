// SPDX-License-Identifier: BSL-1.0
// Resources: URI and URI-template rules, the registry, and the connection's `resources/*`
// methods (list with paging, templates/list, read, subscribe/unsubscribe).

// GCC 12 at -O1 with the sanitizers reports "may be used uninitialized" for the
// std::optional<std::vector<…>> a co_spawned reader hands to its completion: library code
// instantiated here (co_spawn's result slot), not in this file's logic.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "connection_impl.hpp"

#include <boost/asio/post.hpp>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::size_t max_uri_bytes = 2048;

bool is_alpha(char c) noexcept { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// `scheme:` per RFC 3986 (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), then anything
// without control bytes or spaces.
bool has_uri_shape(std::string_view s) noexcept {
    if (s.empty() || s.size() > max_uri_bytes || !is_alpha(s.front())) return false;
    const auto colon = s.find(':');
    if (colon == std::string_view::npos) return false;
    for (std::size_t i = 1; i < colon; ++i) {
        const char c = s[i];
        if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.') return false;
    }
    for (unsigned char c : s)
        if (c <= 0x20 || c == 0x7f) return false;
    return true;
}

// A template split into alternating literals and variable names: literals[i] comes before
// names[i]; literals has one more element than names.
struct template_parts {
    std::vector<std::string_view> literals;
    std::vector<std::string_view> names;
};

std::optional<template_parts> split_template(std::string_view t) {
    template_parts parts;
    std::size_t pos = 0;
    for (;;) {
        const auto open = t.find('{', pos);
        const auto stray = t.find('}', pos);
        if (open == std::string_view::npos) {
            if (stray != std::string_view::npos) return std::nullopt;
            parts.literals.push_back(t.substr(pos));
            return parts;
        }
        if (stray < open) return std::nullopt;
        const auto close = t.find('}', open);
        if (close == std::string_view::npos) return std::nullopt;
        const auto name = t.substr(open + 1, close - open - 1);
        if (name.empty() || name.size() > 64) return std::nullopt;
        for (char c : name)
            if (!is_alpha(c) && !is_digit(c) && c != '_') return std::nullopt;
        // Two variables in a row would make the split between them ambiguous.
        if (!parts.names.empty() && open == pos) return std::nullopt;
        parts.literals.push_back(t.substr(pos, open - pos));
        parts.names.push_back(name);
        pos = close + 1;
    }
}

boost::json::object describe_template(const resource_template_info& r, const protocol_rules& rules) {
    boost::json::object o{{"uriTemplate", r.uri_template}, {"name", r.name}};
    if (rules.titles && !r.title.empty()) o["title"] = r.title;
    if (!r.description.empty()) o["description"] = r.description;
    if (!r.mime_type.empty()) o["mimeType"] = r.mime_type;
    return o;
}

// -32002 on the handshake revisions; the stateless revision uses -32602 (Invalid params).
rpc::error_object not_found(std::string_view uri, bool stateless = false) {
    return rpc::error_object::make(stateless ? rpc::error_code::invalid_params : rpc::error_code::resource_not_found,
                                   "resource not found", boost::json::value(boost::json::object{{"uri", uri}}));
}

}  // namespace

namespace detail {

boost::json::object describe_resource(const resource_info& r, const protocol_rules& rules) {
    boost::json::object o{{"uri", r.uri}, {"name", r.name}};
    if (rules.titles && !r.title.empty()) o["title"] = r.title;
    if (!r.description.empty()) o["description"] = r.description;
    if (!r.mime_type.empty()) o["mimeType"] = r.mime_type;
    if (r.size) o["size"] = *r.size;
    return o;
}

}  // namespace detail

bool is_valid_resource_uri(std::string_view uri) noexcept {
    return has_uri_shape(uri) && uri.find('{') == std::string_view::npos && uri.find('}') == std::string_view::npos;
}

bool is_valid_uri_template(std::string_view uri_template) noexcept {
    return has_uri_shape(uri_template) && split_template(uri_template).has_value();
}

std::optional<uri_variables> match_uri_template(std::string_view uri_template, std::string_view uri) {
    auto parts = split_template(uri_template);
    if (!parts) return std::nullopt;
    const auto& lits = parts->literals;
    if (uri.substr(0, lits.front().size()) != lits.front()) return std::nullopt;
    std::size_t pos = lits.front().size();
    uri_variables vars;
    for (std::size_t i = 0; i < parts->names.size(); ++i) {
        const auto next = lits[i + 1];
        const bool last = i + 1 == parts->names.size();
        std::size_t end;
        if (last && next.empty()) {
            end = uri.size();
        } else if (last) {
            // The final literal must end the URI.
            if (uri.size() < pos + next.size() || uri.substr(uri.size() - next.size()) != next) return std::nullopt;
            end = uri.size() - next.size();
        } else {
            end = uri.find(next, pos);
            if (end == std::string_view::npos) return std::nullopt;
        }
        const auto value = uri.substr(pos, end - pos);
        if (value.empty() || value.find('/') != std::string_view::npos) return std::nullopt;
        vars.emplace(std::string(parts->names[i]), std::string(value));
        pos = end + next.size();
    }
    if (pos != uri.size()) return std::nullopt;
    return vars;
}

resource_contents resource_contents::of_text(std::string uri, std::string mime_type, std::string text) {
    resource_contents c;
    c.uri = std::move(uri);
    c.mime_type = std::move(mime_type);
    c.text = std::move(text);
    return c;
}

resource_contents resource_contents::of_blob(std::string uri, std::string mime_type, std::string base64) {
    resource_contents c;
    c.uri = std::move(uri);
    c.mime_type = std::move(mime_type);
    c.blob = std::move(base64);
    c.binary = true;
    return c;
}

boost::json::object resource_contents::to_json() const {
    boost::json::object o{{"uri", uri}};
    if (!mime_type.empty()) o["mimeType"] = mime_type;
    if (binary) o["blob"] = blob;
    else o["text"] = text;
    return o;
}

// ---------------------------------------------------------------------------------------------
// registry

namespace {

bool valid_resource_name(std::string_view name) noexcept { return !name.empty() && name.size() <= 256; }

}  // namespace

constexpr std::string_view resources_changed = "notifications/resources/list_changed";

boost::system::result<void, registration_error> server::add_resource(resource_info info, resource_reader read) {
    if (!read) return registration_error::null_handler;
    if (!is_valid_resource_uri(info.uri)) return registration_error::invalid_uri;
    if (!valid_resource_name(info.name)) return registration_error::invalid_name;
    auto key = info.uri;
    return core_->add_entry(core_->resources, std::move(key),
                            std::make_shared<const detail::server_core::resource_entry>(
                                detail::server_core::resource_entry{std::move(info), std::move(read)}),
                            resources_changed);
}

boost::system::result<void, registration_error> server::add_resource_template(resource_template_info info,
                                                                              resource_reader read) {
    if (!read) return registration_error::null_handler;
    if (!is_valid_uri_template(info.uri_template)) return registration_error::invalid_uri;
    if (!valid_resource_name(info.name)) return registration_error::invalid_name;
    auto key = info.uri_template;
    return core_->add_entry(core_->templates, std::move(key),
                            std::make_shared<const detail::server_core::template_entry>(
                                detail::server_core::template_entry{std::move(info), std::move(read)}),
                            resources_changed);
}

bool server::remove_resource(std::string_view uri_or_template) {
    {
        std::lock_guard lock(core_->mu);
        auto r = core_->resources.find(uri_or_template);
        if (r != core_->resources.end()) {
            core_->resources.erase(r);
        } else {
            auto t = core_->templates.find(uri_or_template);
            if (t == core_->templates.end()) return false;
            core_->templates.erase(t);
        }
    }
    core_->notify_list_changed(resources_changed);
    return true;
}

void server::notify_resource_updated(std::string_view uri) { core_->notify_resource_updated(std::string(uri)); }

// ---------------------------------------------------------------------------------------------
// connection: resources/*

void detail::request_dispatcher::on_resources_list(const rpc::request& req) {
    answer_list(req, c_.core->resources, "resources", "resources",
                [&](const resource_info& i) { return describe_resource(i, c_.frame.rules); });
}

void detail::request_dispatcher::on_resource_templates_list(const rpc::request& req) {
    answer_list(req, c_.core->templates, "templates", "resourceTemplates",
                [&](const resource_template_info& i) { return describe_template(i, c_.frame.rules); });
}

namespace {

// The reader for `uri` and the request it gets: a fixed resource first, then the first
// matching template in template order.
std::optional<std::pair<resource_reader, resource_request>> find_reader(const detail::server_core& core,
                                                                        std::string_view uri) {
    std::lock_guard lock(core.mu);
    resource_request rr;
    rr.uri = std::string(uri);
    if (auto it = core.resources.find(uri); it != core.resources.end())
        return std::make_pair(it->second->read, std::move(rr));
    for (const auto& [tmpl, entry] : core.templates) {
        if (auto vars = match_uri_template(tmpl, uri)) {
            rr.variables = std::move(*vars);
            return std::make_pair(entry->read, std::move(rr));
        }
    }
    return std::nullopt;
}

}  // namespace

void detail::request_dispatcher::on_resources_read(const rpc::request& req) {
    const auto* uri = detail::string_param(req.params, "uri");
    if (!uri) return c_.send_error(req.id, detail::invalid_params("resources/read needs params.uri (a string)"));
    if (!is_valid_resource_uri(*uri))
        return c_.send_error(req.id, detail::invalid_params("params.uri is not a valid URI"));
    const bool stateless = c_.current.stateless;
    auto found = find_reader(*c_.core, *uri);
    if (!found) return c_.send_error(req.id, not_found(*uri, stateless));
    auto& [read, rr] = *found;
    rr.caller = c_.opts.caller;
    rr.session = *c_.current.session;
    static const boost::json::value no_arguments = boost::json::object{};
    auto asking = c_.calls.open_request_context(req, *uri, no_arguments);
    if (!asking) return c_.send_error(req.id, asking.error());
    // The reader's request lives in the coroutine frame; the function is copied in too.
    auto op = [](resource_reader fn, resource_request r, std::shared_ptr<detail::call_state> state)
        -> boost::asio::awaitable<std::optional<std::vector<resource_contents>>> {
        call_context ctx(state);
        r.context = &ctx;
        co_return co_await fn(r);
    }(std::move(read), std::move(rr), *asking);
    answer_async(
        req.id, "a resource reader", std::move(op),
        [u = std::string(*uri), stateless](std::optional<std::vector<resource_contents>> contents)
            -> std::variant<boost::json::object, rpc::error_object> {
            if (!contents) return not_found(u, stateless);
            boost::json::array items;
            for (const auto& c : *contents) items.emplace_back(c.to_json());
            return boost::json::object{{"contents", std::move(items)}};
        },
        c_.style_of(&c_.core->opts.caching.reads), std::move(*asking));
}

void detail::subscription_table::on_resources_subscribe(const rpc::request& req, bool subscribe) {
    const auto* uri = detail::string_param(req.params, "uri");
    if (!uri) return c_.send_error(req.id, detail::invalid_params("params.uri (a string) is required"));
    if (!subscribe) {
        if (auto it = uris_.find(std::string_view(*uri)); it != uris_.end()) uris_.erase(it);
        c_.send_result(req.id, boost::json::object{});
        return;
    }
    if (!is_valid_resource_uri(*uri))
        return c_.send_error(req.id, detail::invalid_params("params.uri is not a valid URI"));
    if (!find_reader(*c_.core, *uri)) return c_.send_error(req.id, not_found(*uri));
    if (!uris_.count(std::string_view(*uri)) && uris_.size() >= c_.core->opts.max_subscriptions)
        return c_.send_error(req.id, detail::invalid_params("this session already has " + std::to_string(uris_.size()) +
                                                            " subscriptions"));
    uris_.emplace(*uri);
    c_.send_result(req.id, boost::json::object{});
}

}  // namespace candor::mcp
