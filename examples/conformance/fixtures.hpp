// SPDX-License-Identifier: BSL-1.0
#pragma once
// The conformance fixture server's parts.

#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace conformance {

/// A tool result of one text block (a plain function: GCC 12 miscompiles string literals in
/// braced initializers inside coroutine bodies).
inline candor::mcp::content_result text_result(std::string t, bool is_error = false) {
    return candor::mcp::content_result{
        boost::json::array{boost::json::object{{"type", "text"}, {"text", std::move(t)}}}, std::nullopt, is_error};
}

/// The fixtures of the 2026-07-28 scenarios (multi round-trip tools and prompt, a tool that
/// needs a client capability, list changes, a mirrored header parameter).
void add_stateless_fixtures(candor::mcp::server& srv);

/// The fixtures of the tasks scenarios: tools with task support (a slow one that honours
/// cancellation, one that fails, one that faults, ones that ask the user).
void add_task_fixtures(candor::mcp::server& srv);

/// The fixtures of the skills extension's scenarios: two skills, one nested under a prefix, with
/// supporting files in a subdirectory.
void add_skill_fixtures(candor::mcp::server& srv);

}  // namespace conformance
