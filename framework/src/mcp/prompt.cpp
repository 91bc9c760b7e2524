// SPDX-License-Identifier: BSL-1.0
// Prompts: the registry and the connection's `prompts/list` and `prompts/get`, with the
// arguments checked against the prompt's declaration before its function runs.

#include "connection_impl.hpp"

namespace candor::mcp {

namespace rpc = jsonrpc;

boost::json::object prompt_message(std::string_view role, boost::json::object content) {
    return boost::json::object{{"role", role}, {"content", std::move(content)}};
}

boost::system::result<void, registration_error> server::add_prompt(prompt_info info, prompt_function get) {
    if (!get) return registration_error::null_handler;
    if (!is_valid_tool_name(info.name)) return registration_error::invalid_name;
    for (std::size_t i = 0; i < info.arguments.size(); ++i) {
        const auto& a = info.arguments[i];
        if (a.name.empty() || a.name.size() > 128) return registration_error::invalid_name;
        for (std::size_t j = 0; j < i; ++j)
            if (info.arguments[j].name == a.name) return registration_error::duplicate_name;
    }
    auto key = info.name;
    return core_->add_entry(core_->prompts, std::move(key),
                            std::make_shared<const detail::server_core::prompt_entry>(
                                detail::server_core::prompt_entry{std::move(info), std::move(get)}),
                            "notifications/prompts/list_changed");
}

bool server::remove_prompt(std::string_view name) {
    {
        std::lock_guard lock(core_->mu);
        auto it = core_->prompts.find(name);
        if (it == core_->prompts.end()) return false;
        core_->prompts.erase(it);
    }
    core_->notify_list_changed("notifications/prompts/list_changed");
    return true;
}

namespace {

boost::json::object describe_prompt(const prompt_info& p, const protocol_rules& rules) {
    boost::json::object o{{"name", p.name}};
    if (rules.titles && !p.title.empty()) o["title"] = p.title;
    if (!p.description.empty()) o["description"] = p.description;
    if (!p.arguments.empty()) {
        boost::json::array args;
        for (const auto& a : p.arguments) {
            boost::json::object ao{{"name", a.name}, {"required", a.required}};
            if (rules.titles && !a.title.empty()) ao["title"] = a.title;
            if (!a.description.empty()) ao["description"] = a.description;
            args.emplace_back(std::move(ao));
        }
        o["arguments"] = std::move(args);
    }
    return o;
}

}  // namespace

void detail::request_dispatcher::on_prompts_list(const rpc::request& req) {
    answer_list(req, c_.core->prompts, "prompts", "prompts",
                [&](const prompt_info& i) { return describe_prompt(i, c_.frame.rules); });
}

void detail::request_dispatcher::on_prompts_get(const rpc::request& req) {
    const auto* name = detail::string_param(req.params, "name");
    if (!name) return c_.send_error(req.id, detail::invalid_params("prompts/get needs params.name (a string)"));
    std::shared_ptr<const detail::server_core::prompt_entry> entry;
    {
        std::lock_guard lock(c_.core->mu);
        if (auto it = c_.core->prompts.find(std::string_view(*name)); it != c_.core->prompts.end()) entry = it->second;
    }
    if (!entry) return c_.send_error(req.id, detail::invalid_params("unknown prompt: " + std::string(*name)));

    // The arguments: an object of strings, each declared, every required one present.
    prompt_request pr;
    pr.name = entry->info.name;
    if (const auto* args = req.params->if_contains("arguments")) {
        if (!args->is_object())
            return c_.send_error(req.id, detail::invalid_params("params.arguments must be an object"));
        for (const auto& member : args->get_object()) {
            const std::string_view key = member.key();
            const auto& value = member.value();
            const auto& declared = entry->info.arguments;
            const bool known = std::any_of(declared.begin(), declared.end(),
                                           [key](const prompt_argument& a) { return a.name == key; });
            if (!known)
                return c_.send_error(
                    req.id, detail::invalid_params("prompt " + pr.name + " has no argument " + std::string(key)));
            if (!value.is_string())
                return c_.send_error(req.id,
                                     detail::invalid_params("argument " + std::string(key) + " must be a string"));
            pr.arguments.emplace(std::string(key), std::string(value.get_string()));
        }
    }
    for (const auto& a : entry->info.arguments)
        if (a.required && !pr.arguments.count(a.name))
            return c_.send_error(req.id, detail::invalid_params("prompt " + pr.name + " needs argument " + a.name));
    pr.caller = c_.opts.caller;
    pr.session = *c_.current.session;
    static const boost::json::value no_arguments = boost::json::object{};
    const auto* given = req.params->if_contains("arguments");
    auto asking = c_.calls.open_request_context(req, entry->info.name, given ? *given : no_arguments);
    if (!asking) return c_.send_error(req.id, asking.error());

    auto op = [](std::shared_ptr<const detail::server_core::prompt_entry> e, prompt_request r,
                 std::shared_ptr<detail::call_state> state) -> boost::asio::awaitable<prompt_result> {
        call_context ctx(state);
        r.context = &ctx;
        co_return co_await e->get(r);
    }(entry, std::move(pr), *asking);
    answer_async(
        req.id, "prompt " + entry->info.name, std::move(op),
        [](prompt_result r) -> std::variant<boost::json::object, rpc::error_object> {
            boost::json::object result;
            if (!r.description.empty()) result["description"] = std::move(r.description);
            result["messages"] = std::move(r.messages);
            return result;
        },
        c_.style_of(), std::move(*asking));
}

}  // namespace candor::mcp
