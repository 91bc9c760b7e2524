// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Every rule that depends on the negotiated MCP protocol version, in one place.
///
/// The rest of the server asks a `protocol_rules` value what to do and never compares version
/// strings itself, so adding a revision (e.g. the sessionless 2026-07-28 one, which drops
/// `initialize`) means adding one entry here and the behaviour it switches.

#include <array>
#include <optional>
#include <string_view>

namespace candor::mcp {

/// Versions this server speaks, newest first.
inline constexpr std::array<std::string_view, 3> supported_versions = {"2025-11-25", "2025-06-18", "2025-03-26"};

/// What a protocol version allows or requires of the server.
struct protocol_rules {
    std::string_view version;
    /// `Tool.title` and `Implementation.title` (serverInfo) exist (2025-06-18+); before, a
    /// tool's title travels as `annotations.title`.
    bool titles = true;
    /// `Tool.outputSchema` and `CallToolResult.structuredContent` exist (2025-06-18+). Before,
    /// the envelope travels only as the text of `content[0]`.
    bool structured_content = true;
    /// The session starts with `initialize` (every version so far).
    bool requires_initialize = true;
    /// JSON-RPC batches. 2025-03-26 allowed them; Candor refuses them in every version (they
    /// were removed in 2025-06-18 and make per-message limits and cancellation ambiguous).
    bool batches = false;
};

/// The rules of exactly `version`, or nothing if it is not supported.
std::optional<protocol_rules> rules_for(std::string_view version) noexcept;

/// Version negotiation for `initialize`: the client's version if supported, else the latest.
protocol_rules negotiate(std::string_view requested) noexcept;

/// The latest supported version's rules.
protocol_rules latest_rules() noexcept;

}  // namespace candor::mcp
