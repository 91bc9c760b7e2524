// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The HTTP transport's header rules as pure functions, testable without a socket: content
/// negotiation, DNS-rebinding checks, bearer tokens, protocol versions, session ids, and the
/// body of a transport-level refusal.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::transport::http_policy {

/// The protocol version assumed when a request has no `MCP-Protocol-Version` header (the
/// spec's rule for clients that predate the header).
inline constexpr std::string_view assumed_protocol_version = "2025-03-26";

/// True if the `Accept` header lists `media_type` (e.g. "text/event-stream") itself —
/// parameters ignored, case-insensitive; wildcards do not count and `q=0` excludes.
/// @complexity linear in the size of `accept`
bool lists_media_type(std::string_view accept, std::string_view media_type) noexcept;

/// True if `Content-Type` is `application/json` (parameters such as charset allowed).
bool is_json(std::string_view content_type) noexcept;

/// True if `origin` (scheme://host[:port]) is a loopback origin or listed in `extra`
/// (exact match, or "*"). DNS-rebinding protection for servers on localhost.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& extra) noexcept;

/// True if the `Host` header names localhost, 127.0.0.1 or [::1] (any port) or a host
/// listed in `extra` (case-insensitive, port ignored; "*" allows all).
bool host_allowed(std::string_view host, const std::vector<std::string>& extra) noexcept;

/// The token of `Authorization: Bearer <token>`, or nothing for another scheme or an empty
/// token. The scheme is case-insensitive.
std::optional<std::string_view> bearer_token(std::string_view authorization) noexcept;

/// True if `version` is a handshake revision this server speaks (see
/// `candor::mcp::handshake_versions`): what the `MCP-Protocol-Version` header of a request of an
/// `initialize` session may name.
bool protocol_version_supported(std::string_view version) noexcept;

/// True if an `MCP-Protocol-Version` header value claims the stateless revision: present and
/// not a handshake revision (an unknown version is the stateless path's to refuse, with -32022).
bool claims_stateless_version(std::string_view version) noexcept;

/// A new session id: 32 hex digits from 128 bits of OpenSSL's CSPRNG (visible ASCII, as the
/// spec requires). @throws std::runtime_error if the CSPRNG fails (no entropy: a broken host)
std::string new_session_id();

/// Why the transport refused a request before it reached the MCP server.
struct refusal {
    unsigned status = 400;
    /// Stable UPPER_SNAKE code, e.g. `SESSION_NOT_FOUND` (catalogue in docs/http.md).
    std::string_view code{};
    std::string message{};
};

/// The body of a refusal: a JSON-RPC error response with `id: null`, code -32000 and the
/// refusal's code in `error.data.code`.
std::string refusal_body(const refusal& r);

}  // namespace candor::transport::http_policy
