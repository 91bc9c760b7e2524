// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Log levels (RFC 5424 severities, as MCP's `logging/setLevel` names them) and the
/// server-side log sink.

#include <functional>
#include <optional>
#include <string_view>

namespace candor::mcp {

enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

/// "debug", "info", … "emergency".
std::string_view to_string(log_level l) noexcept;

/// The level named `name`, or nothing.
std::optional<log_level> parse_log_level(std::string_view name) noexcept;

/// Where the server writes its own log (operators' log, not the client's). Never receives
/// raw tool arguments: the framework logs codes, paths and tool names only.
using log_sink = std::function<void(log_level, std::string_view)>;

/// The default sink: one line per record on stderr (stdout belongs to the stdio transport).
log_sink stderr_log_sink();

}  // namespace candor::mcp
