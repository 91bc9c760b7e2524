// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Typed tools: arguments declared as a described struct, checked by the contract before the
/// tool's code runs.
///
/// @code
/// struct search_args { std::string query; int limit = 5; };
/// BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))
/// inline void describe_contract(candor::contract::spec<search_args>& s) {
///     s.field(&search_args::query).length(1, 200);
///     s.field(&search_args::limit).range(1, 10).optional();
/// }
///
/// struct search_notes : candor::mcp::tool<search_args> {
///     search_notes() : tool(candor::mcp::tool_info("search_notes", "Find notes by words")) {}
///     boost::asio::awaitable<candor::envelope::envelope> call(search_args a, candor::mcp::call_context&) override {
///         co_return candor::envelope::complete(find(a.query, a.limit));
///     }
/// };
/// server.add_tool(std::make_shared<search_notes>()).value();
/// @endcode
///
/// The input schema is generated from the struct (never written by hand, so it cannot drift
/// from the code that reads the arguments); contract issues become an error envelope with layer
/// `contract` and the handler does not run.

#include <candor/contract/contract.hpp>
#include <candor/envelope/envelope.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace candor::mcp {

namespace detail {
/// The contract's generated schema as a `tools/list` input schema (an object).
boost::json::object input_schema_from(const boost::json::value& schema);
}  // namespace detail

/// Base of a typed data tool: derive, pass a `tool_info`, implement `call`.
template <class Args>
class tool : public tool_handler {
public:
    /// @param info the tool's declaration; its `input_schema` is replaced by the contract's
    ///        and its `budget` is handed to the contract
    /// @param contract_version the argument contract's version (recorded in the call journal)
    explicit tool(tool_info info, std::string contract_version = "1")
        : contract_(contract_version, contract::contract_options{info.budget}), info_(std::move(info)) {
        info_.input_schema = detail::input_schema_from(contract_.schema());
        info_.contract_version = std::move(contract_version);
    }

    const tool_info& info() const noexcept final { return info_; }

    issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const final {
        auto args = contract_.check(arguments, doc);
        return args ? issue_list{} : std::move(args.error());
    }

    boost::asio::awaitable<tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                call_context& ctx) final {
        auto args = contract_.check(arguments, &doc);
        if (!args) co_return envelope::failure(std::move(args.error()));
        co_return co_await call(std::move(*args), ctx);
    }

    /// The tool's work, on arguments that passed the contract.
    virtual boost::asio::awaitable<envelope::envelope> call(Args args, call_context& ctx) = 0;

    const contract::contract<Args>& argument_contract() const noexcept { return contract_; }

private:
    contract::contract<Args> contract_;
    tool_info info_;
};

/// A typed tool from a function, for tools that need no state of their own:
/// `server.add_tool(make_typed_tool<search_args>(tool_info("search_notes", "…"), fn)).value();`
template <class Args>
std::shared_ptr<tool_handler> make_typed_tool(
    tool_info info, std::function<boost::asio::awaitable<envelope::envelope>(Args, call_context&)> fn) {
    class function_tool final : public tool<Args> {
    public:
        function_tool(tool_info i, std::function<boost::asio::awaitable<envelope::envelope>(Args, call_context&)> f)
            : tool<Args>(std::move(i)), fn_(std::move(f)) {}
        boost::asio::awaitable<envelope::envelope> call(Args args, call_context& ctx) override {
            return fn_(std::move(args), ctx);
        }

    private:
        std::function<boost::asio::awaitable<envelope::envelope>(Args, call_context&)> fn_;
    };
    return std::make_shared<function_tool>(std::move(info), std::move(fn));
}

}  // namespace candor::mcp
