// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Every rule that depends on the MCP protocol version, in one place.
///
/// The rest of the server asks a `protocol_rules` value what to do and never compares version
/// strings itself. Two eras are served side by side: the stateless revision (2026-07-28 and
/// later: every request carries its version, capabilities and client in `_meta`; no
/// `initialize`) and the handshake revisions (2025-11-25 and earlier: a session opened by
/// `initialize`).

#include <array>
#include <optional>
#include <string_view>

namespace candor::mcp {

/// Versions this server speaks, newest first (what `server/discover` lists).
inline constexpr std::array<std::string_view, 4> supported_versions = {"2026-07-28", "2025-11-25", "2025-06-18",
                                                                       "2025-03-26"};

/// The stateless revisions: each request names its version in `_meta`.
inline constexpr std::array<std::string_view, 1> stateless_versions = {"2026-07-28"};

/// The handshake revisions, newest first: a client opens a session with `initialize`.
inline constexpr std::array<std::string_view, 3> handshake_versions = {"2025-11-25", "2025-06-18", "2025-03-26"};

/// What a protocol version allows or requires of the server.
struct protocol_rules {
    std::string_view version{};
    /// `Tool.title` and `Implementation.title` (serverInfo) exist (2025-06-18+); before, a
    /// tool's title travels as `annotations.title`.
    bool titles = true;
    /// `Tool.outputSchema` and `CallToolResult.structuredContent` exist (2025-06-18+). Before,
    /// the envelope travels only as the text of `content[0]`.
    bool structured_content = true;
    /// The session starts with `initialize` (every handshake revision).
    bool requires_initialize = true;
    /// The stateless revision: per-request `_meta`, `resultType` on every result, caching
    /// hints on lists and reads, requests to the client as `input_required` results (multi
    /// round-trip requests), `subscriptions/listen` instead of subscriptions and the GET
    /// stream, per-request log level.
    bool stateless = false;
    /// JSON-RPC batches. 2025-03-26 allowed them; Candor refuses them in every version (they
    /// were removed in 2025-06-18 and make per-message limits and cancellation ambiguous).
    bool batches = false;
};

/// The rules of exactly `version`, or nothing if it is not supported.
std::optional<protocol_rules> rules_for(std::string_view version) noexcept;

/// True for a stateless revision this server speaks.
bool is_stateless_version(std::string_view version) noexcept;

/// Version negotiation for `initialize`: the client's version if it is a supported handshake
/// revision, else the latest handshake revision (a stateless revision has no `initialize`).
protocol_rules negotiate(std::string_view requested) noexcept;

/// The latest handshake revision's rules (the tool list the command line prints).
protocol_rules latest_rules() noexcept;

}  // namespace candor::mcp
