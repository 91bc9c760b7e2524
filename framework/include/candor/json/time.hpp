// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Times as Candor's JSON documents write them (journal lines, log lines, MCP tasks).

#include <chrono>
#include <string>

namespace candor::json {

/// RFC 3339 UTC time with milliseconds, e.g. "2026-11-29T16:28:39.123Z".
std::string format_time(std::chrono::system_clock::time_point t);

}  // namespace candor::json
