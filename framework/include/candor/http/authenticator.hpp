// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The seam between the HTTP transport and whatever decides who a caller is (OAuth 2.1 in
/// `candor::auth`): the transport awaits an authenticator for every request to its endpoint,
/// asks it whether a request may go on to the MCP server, and lets it answer public documents
/// (RFC 9728 protected resource metadata). The transport knows nothing of tokens beyond this.

#include <candor/http/server.hpp>
#include <candor/jsonrpc/message.hpp>
#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace candor::transport {

/// Why an authenticator refused a request. The transport answers `status` with its usual
/// refusal body (a JSON-RPC error, `error.data.code` = `code`) and `headers` (e.g.
/// `WWW-Authenticate`, `Retry-After`).
struct auth_refusal {
    unsigned status = 401;
    /// Stable UPPER_SNAKE code (a string with static storage), catalogued in docs/codes.md.
    std::string_view code{};
    /// For people; never holds a token.
    std::string message{};
    std::vector<std::pair<std::string, std::string>> headers{};
};

/// Who is calling, or why not.
using auth_outcome = std::variant<mcp::principal, auth_refusal>;

/// Decides who sends each request to the MCP endpoint. Shared by every connection of the
/// transport: implementations are thread-safe.
class authenticator {
public:
    virtual ~authenticator() = default;

    /// Who sends a request with this `Authorization` header value. Awaited on the TCP
    /// connection's strand for every request to the endpoint (POST, GET, DELETE): it must not
    /// block — anything slow (fetching keys) is asynchronous.
    /// @param authorization the header's value; empty when the request has none
    /// @return the principal (it owns the sessions it opens), or why the request is refused
    virtual boost::asio::awaitable<auth_outcome> authenticate(std::string_view authorization) = 0;

    /// Whether `who` may send `request` (e.g. the scopes a tool requires), asked before the
    /// request reaches the MCP server. Must not block.
    /// @return nothing to let it through, or the refusal
    virtual std::optional<auth_refusal> authorize(const mcp::principal& who, const jsonrpc::request& request) const {
        (void)who;
        (void)request;
        return std::nullopt;
    }

    /// Documents served to anyone, without authentication, at paths other than the endpoint
    /// (after the transport's `Host` check). Must not block.
    /// @return the answer, or nothing when the path is not the authenticator's
    virtual std::optional<admin_response> serve_public(const admin_request& request) const {
        (void)request;
        return std::nullopt;
    }
};

}  // namespace candor::transport
