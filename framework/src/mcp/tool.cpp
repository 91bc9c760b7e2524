// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/tool.hpp>

#include <candor/json/write.hpp>
#include <candor/schema/validator.hpp>

#include <stdexcept>

namespace candor::mcp {

namespace {

std::unique_ptr<schema::validator> compile_arguments_schema(const tool_info& info) {
    auto v = schema::validator::compile(boost::json::value(info.input_schema));
    if (!v)
        throw std::invalid_argument("tool '" + info.name + "': input schema does not compile at " +
                                    v.error().keyword_location + ": " + v.error().message);
    return std::make_unique<schema::validator>(std::move(*v));
}

// Schema issues of `arguments`, all reported together (one round trip for the model).
issue_list schema_issues(const schema::validator& v, const boost::json::value& arguments) {
    issue_list issues;
    if (!v.validate(arguments, issues)) {
        for (auto& i : issues) i.where = layer::contract;
        if (issues.empty()) {
            issue i;
            i.code = "SCHEMA_MISMATCH";
            i.message = "the arguments do not match the tool's input schema";
            issues.push_back(std::move(i));
        }
    }
    return issues;
}

class function_json_tool final : public json_tool {
public:
    function_json_tool(tool_info info, json_tool_function fn) : json_tool(std::move(info)), fn_(std::move(fn)) {}
    boost::asio::awaitable<envelope::envelope> call(const boost::json::object& arguments, call_context& ctx) override {
        return fn_(arguments, ctx);
    }

private:
    json_tool_function fn_;
};

class function_content_tool final : public content_tool {
public:
    function_content_tool(tool_info info, content_tool_function fn)
        : content_tool(std::move(info)), fn_(std::move(fn)) {}
    boost::asio::awaitable<content_result> call(const boost::json::object& arguments, call_context& ctx) override {
        return fn_(arguments, ctx);
    }

private:
    content_tool_function fn_;
};

}  // namespace

schema_checked_tool::schema_checked_tool(tool_info info)
    : info_(std::move(info)), validator_(compile_arguments_schema(info_)) {}
schema_checked_tool::~schema_checked_tool() = default;

issue_list schema_checked_tool::check_arguments(const boost::json::value& arguments, const json::document*) const {
    return schema_issues(*validator_, arguments);
}

json_tool::json_tool(tool_info info) : schema_checked_tool(std::move(info)) {}

boost::asio::awaitable<tool_outcome> json_tool::invoke(const boost::json::value& arguments, const json::document& doc,
                                                       call_context& ctx) {
    auto issues = check_arguments(arguments, &doc);
    if (!issues.empty()) co_return envelope::failure(std::move(issues));
    co_return co_await call(arguments.get_object(), ctx);
}

content_tool::content_tool(tool_info info) : schema_checked_tool(std::move(info)) {}

boost::asio::awaitable<tool_outcome> content_tool::invoke(const boost::json::value& arguments,
                                                          const json::document& doc, call_context& ctx) {
    auto issues = check_arguments(arguments, &doc);
    if (!issues.empty()) {
        // Low-level tools have no envelope; the error envelope still travels as text so the
        // model gets the same codes and paths.
        auto sealed = envelope::seal(envelope::failure(std::move(issues)), info().name);
        const boost::json::object env =
            sealed ? std::move(sealed).value() : envelope::internal_error_envelope(info().name);
        boost::json::object block;
        block["type"] = "text";
        block["text"] = json::to_string(env).value();
        content_result r;
        r.is_error = true;
        r.content.emplace_back(std::move(block));
        co_return r;
    }
    co_return co_await call(arguments.get_object(), ctx);
}

std::shared_ptr<tool_handler> make_tool(tool_info info, json_tool_function fn) {
    return std::make_shared<function_json_tool>(std::move(info), std::move(fn));
}

std::shared_ptr<tool_handler> make_content_tool(tool_info info, content_tool_function fn) {
    return std::make_shared<function_content_tool>(std::move(info), std::move(fn));
}

}  // namespace candor::mcp
