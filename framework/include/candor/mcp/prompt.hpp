// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Prompts: message templates a client can list (`prompts/list`) and instantiate with string
/// arguments (`prompts/get`). The server checks the arguments against the declared ones
/// (unknown, missing required or non-string → JSON-RPC -32602) before the function runs.

#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {

struct prompt_argument {
    std::string name{};
    std::string title{};
    std::string description{};
    bool required = false;
};

/// A prompt's `prompts/list` entry.
struct prompt_info {
    std::string name{};  ///< 1–128 characters of [A-Za-z0-9_.-], unique per server
    std::string title{};
    std::string description{};
    std::vector<prompt_argument> arguments{};
};

/// What a prompt function is asked for: checked arguments only.
struct prompt_request {
    std::string name{};
    std::map<std::string, std::string, std::less<>> arguments{};
    mcp::principal caller{};
    session_info session{};
    /// Asks the client (elicitation, sampling, roots) and knows the deadline, as a tool's
    /// context does, on both revisions (see `call_context::request_client`). Valid while the
    /// prompt function runs.
    call_context* context = nullptr;
};

/// The `prompts/get` result.
struct prompt_result {
    std::string description{};  ///< omitted when empty
    /// `PromptMessage`s: `{role, content}`; see `prompt_message`.
    boost::json::array messages{};
};

/// `{role, content}` — role is "user" or "assistant", content one MCP content block.
boost::json::object prompt_message(std::string_view role, boost::json::object content);

/// Builds a prompt's messages. Runs as a coroutine on the connection's strand. An exception is
/// a bug: logged, and answered with -32603 without details.
using prompt_function = std::function<boost::asio::awaitable<prompt_result>(const prompt_request&)>;

}  // namespace candor::mcp
