// SPDX-License-Identifier: BSL-1.0
// `completion/complete`: the completer registry and the request, for a prompt's arguments or a
// resource template's variables.

#include "connection_impl.hpp"

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::size_t max_values = 100;  // the spec's limit per response

std::string completion_key(const completion_ref& ref) {
    return (ref.of == completion_ref::kind::prompt ? "p:" : "r:") + ref.name;
}

}  // namespace

boost::system::result<void, registration_error> server::add_completion(completion_ref ref, completion_function fn) {
    if (!fn) return registration_error::null_handler;
    if (ref.of == completion_ref::kind::prompt && !is_valid_tool_name(ref.name))
        return registration_error::invalid_name;
    if (ref.of == completion_ref::kind::resource_template && !is_valid_uri_template(ref.name))
        return registration_error::invalid_uri;
    std::lock_guard lock(core_->mu);
    if (!core_->completions.emplace(completion_key(ref), std::make_shared<const completion_function>(std::move(fn)))
             .second)
        return registration_error::duplicate_name;
    return {};
}

void detail::request_dispatcher::on_complete(const rpc::request& req) {
    const auto* ref = req.params ? req.params->if_contains("ref") : nullptr;
    const auto* argument = req.params ? req.params->if_contains("argument") : nullptr;
    if (!ref || !ref->is_object() || !argument || !argument->is_object())
        return c_.send_error(
            req.id, detail::invalid_params("completion/complete needs params.ref and params.argument (objects)"));
    const auto* type = detail::string_param(&ref->get_object(), "type");
    const auto* arg_name = detail::string_param(&argument->get_object(), "name");
    const auto* arg_value = detail::string_param(&argument->get_object(), "value");
    if (!type || !arg_name || !arg_value)
        return c_.send_error(req.id,
                             detail::invalid_params("ref.type, argument.name and argument.value must be strings"));

    completion_request cr;
    cr.argument = std::string(*arg_name);
    cr.value = std::string(*arg_value);
    cr.caller = c_.opts.caller;
    std::shared_ptr<const completion_function> fn;
    {
        std::lock_guard lock(c_.core->mu);
        if (*type == "ref/prompt") {
            const auto* name = detail::string_param(&ref->get_object(), "name");
            if (!name) return c_.send_error(req.id, detail::invalid_params("ref.name (a string) is required"));
            auto it = c_.core->prompts.find(std::string_view(*name));
            if (it == c_.core->prompts.end())
                return c_.send_error(req.id, detail::invalid_params("unknown prompt: " + std::string(*name)));
            const auto& declared = it->second->info.arguments;
            if (std::none_of(declared.begin(), declared.end(),
                             [&](const prompt_argument& a) { return a.name == cr.argument; }))
                return c_.send_error(
                    req.id, detail::invalid_params("prompt " + std::string(*name) + " has no argument " + cr.argument));
            cr.ref = completion_ref{completion_ref::kind::prompt, std::string(*name)};
        } else if (*type == "ref/resource") {
            const auto* uri = detail::string_param(&ref->get_object(), "uri");
            if (!uri) return c_.send_error(req.id, detail::invalid_params("ref.uri (a string) is required"));
            if (!c_.core->templates.count(std::string_view(*uri)))
                return c_.send_error(req.id, detail::invalid_params("unknown resource template: " + std::string(*uri)));
            cr.ref = completion_ref{completion_ref::kind::resource_template, std::string(*uri)};
        } else {
            return c_.send_error(req.id, detail::invalid_params("ref.type must be ref/prompt or ref/resource"));
        }
        if (auto it = c_.core->completions.find(completion_key(cr.ref)); it != c_.core->completions.end())
            fn = it->second;
    }
    if (const auto* context = req.params->if_contains("context"); context && context->is_object()) {
        if (const auto* args = context->get_object().if_contains("arguments"); args && args->is_object())
            for (const auto& [k, v] : args->get_object())
                if (v.is_string()) cr.context.emplace(std::string(k), std::string(v.get_string()));
    }

    auto to_result = [](completion_result r) -> std::variant<boost::json::object, rpc::error_object> {
        if (r.values.size() > max_values) {
            r.values.resize(max_values);
            r.has_more = true;
        }
        boost::json::array values;
        for (auto& v : r.values) values.emplace_back(std::move(v));
        boost::json::object completion{{"values", std::move(values)}, {"hasMore", r.has_more}};
        if (r.total) completion["total"] = *r.total;
        return boost::json::object{{"completion", std::move(completion)}};
    };
    if (!fn) {
        // Declared but without a completer: no suggestions.
        c_.send_result(req.id, std::get<boost::json::object>(to_result(completion_result{})), c_.style_of());
        return;
    }
    auto op = [](std::shared_ptr<const completion_function> f,
                 completion_request r) -> boost::asio::awaitable<completion_result> {
        co_return co_await (*f)(r);
    }(fn, std::move(cr));
    answer_async(req.id, "completer", std::move(op), to_result, c_.style_of());
}

}  // namespace candor::mcp
