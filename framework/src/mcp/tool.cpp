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

// A low-level tool returning content blocks, from a function.
class function_content_tool final : public tool_handler {
public:
    function_content_tool(tool_info info, content_tool_function fn)
        : info_(std::move(info)), validator_(compile_arguments_schema(info_)), fn_(std::move(fn)) {}

    const tool_info& info() const noexcept override { return info_; }
    bool returns_envelope() const noexcept override { return false; }
    issue_list check_arguments(const boost::json::value& arguments, const json::document*) const override {
        return schema_issues(*validator_, arguments);
    }
    boost::asio::awaitable<tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                call_context& ctx) override {
        auto issues = check_arguments(arguments, &doc);
        if (!issues.empty()) {
            // Low-level tools have no envelope; the error envelope still travels as text so the
            // model gets the same codes and paths.
            auto sealed = envelope::seal(envelope::failure(std::move(issues)), info_.name);
            const boost::json::object env =
                sealed ? std::move(sealed).value() : envelope::internal_error_envelope(info_.name);
            boost::json::object block;
            block["type"] = "text";
            block["text"] = json::to_string(env).value();
            content_result r;
            r.is_error = true;
            r.content.emplace_back(std::move(block));
            co_return r;
        }
        co_return co_await fn_(arguments.get_object(), ctx);
    }

private:
    tool_info info_;
    std::unique_ptr<schema::validator> validator_;
    content_tool_function fn_;
};

}  // namespace

json_tool::json_tool(tool_info info) : info_(std::move(info)), validator_(compile_arguments_schema(info_)) {}
json_tool::~json_tool() = default;

issue_list json_tool::check_arguments(const boost::json::value& arguments, const json::document*) const {
    return schema_issues(*validator_, arguments);
}

boost::asio::awaitable<tool_outcome> json_tool::invoke(const boost::json::value& arguments, const json::document& doc,
                                                       call_context& ctx) {
    auto issues = check_arguments(arguments, &doc);
    if (!issues.empty()) co_return envelope::failure(std::move(issues));
    co_return co_await call(arguments.get_object(), ctx);
}

std::shared_ptr<tool_handler> make_tool(tool_info info, json_tool_function fn) {
    return std::make_shared<function_json_tool>(std::move(info), std::move(fn));
}

std::shared_ptr<tool_handler> make_content_tool(tool_info info, content_tool_function fn) {
    return std::make_shared<function_content_tool>(std::move(info), std::move(fn));
}

}  // namespace candor::mcp
