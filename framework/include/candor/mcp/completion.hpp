// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Argument completion (`completion/complete`): suggestions for a prompt's argument or a
/// resource template's variable while the user types.

#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace candor::mcp {

/// What is being completed: an argument of a prompt (`ref/prompt`, by name) or a variable of a
/// resource template (`ref/resource`, by its URI template).
struct completion_ref {
    enum class kind { prompt, resource_template };
    kind of = kind::prompt;
    std::string name{};
};

struct completion_request {
    completion_ref ref{};
    std::string argument{};  ///< the argument's (variable's) name
    std::string value{};     ///< what the user typed so far
    /// Values of the other arguments already chosen (`context.arguments`).
    std::map<std::string, std::string, std::less<>> context{};
    mcp::principal caller{};
};

struct completion_result {
    /// Best first. More than 100 are cut to 100 (the spec's limit) and `has_more` is set.
    std::vector<std::string> values{};
    std::optional<std::uint64_t> total{};
    bool has_more = false;
};

/// Suggests values. Runs as a coroutine on the connection's strand.
using completion_function = std::function<boost::asio::awaitable<completion_result>(const completion_request&)>;

}  // namespace candor::mcp
