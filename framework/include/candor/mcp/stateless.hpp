// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The stateless revision of MCP (2026-07-28) beside the handshake revisions, on one endpoint.
///
/// A request belongs to the stateless revision when its `params._meta` names a protocol
/// version (`io.modelcontextprotocol/protocolVersion`); then it carries its client's
/// capabilities and identity itself and is served without any session. Anything else —
/// `initialize`, and every request of a session it opened — is served as the handshake
/// revision it negotiated, unchanged. Transports classify with `claims_stateless` and, where
/// they have headers (Streamable HTTP), run `server::preflight` before handing the message on;
/// the connection runs the same checks without headers (stdio).

#include <candor/jsonrpc/message.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace candor::mcp {

/// `_meta` keys of the stateless revision.
namespace meta_key {
inline constexpr std::string_view protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view client_capabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view client_info = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view server_info = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view log_level = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view subscription_id = "io.modelcontextprotocol/subscriptionId";
/// W3C Trace Context, carried into call records (any revision).
inline constexpr std::string_view traceparent = "traceparent";
inline constexpr std::string_view tracestate = "tracestate";
}  // namespace meta_key

/// True when the request's `params._meta` names a protocol version: it is to be served as
/// the stateless revision (even when the version is one this server does not speak: then it
/// is refused with `-32022`, never served as a handshake request).
bool claims_stateless(const jsonrpc::request& req) noexcept;

/// Why a stateless request is refused before it runs, and the HTTP status Streamable HTTP
/// answers it with (400 for malformed `_meta`, header mismatches, unsupported versions and
/// missing client capabilities; 404 for methods the revision does not have).
struct request_refusal {
    unsigned http_status = 400;
    jsonrpc::error_object error{};
};

/// A request header by name (case-insensitive), for the checks that only exist over HTTP.
using header_lookup = std::function<std::optional<std::string_view>(std::string_view name)>;

/// Seals the `requestState` of multi round-trip requests, so that it comes back from the client
/// unchanged or not at all. `evidence::state_sealer_from` implements it with the server's key
/// ring (any replica holding the same keys can continue a request another one started).
class state_sealer {
public:
    virtual ~state_sealer() = default;
    /// An opaque text carrying `payload`, integrity-protected.
    virtual std::string seal(std::string_view payload) const = 0;
    /// The payload of a text `seal` produced with one of this sealer's keys; nothing for a
    /// text that was tampered with, truncated, or sealed elsewhere.
    virtual std::optional<std::string> open(std::string_view sealed) const = 0;
    /// A keyed digest of `text`: binds a sealed state to a request (its arguments, its caller)
    /// without carrying the request itself.
    virtual std::string digest(std::string_view text) const = 0;
};

/// What a stateless revision request's `_meta` says (views into the request; valid while it is).
struct request_meta {
    std::string_view protocol_version{};
    const boost::json::object* client_capabilities = nullptr;
    /// Null when the client did not identify itself (a SHOULD, not a MUST).
    const boost::json::object* client_info = nullptr;
    /// Set when the client asked for `notifications/message` on this request.
    std::optional<std::string_view> log_level{};
    std::string_view traceparent{};
    std::string_view tracestate{};
};

/// Read and check `params._meta` of a stateless request: an object with a string
/// `protocolVersion`, an object `clientCapabilities`, an optional object `clientInfo`, an
/// optional known `logLevel`. @return the fields, or the `-32602` error to answer
boost::system::result<request_meta, jsonrpc::error_object> read_request_meta(const jsonrpc::request& req);

/// A tool parameter that HTTP clients mirror into an `Mcp-Param-<name>` header (`x-mcp-header`
/// in the tool's input schema), so that a proxy can route on it without reading the body.
struct header_param {
    enum class kind { string, integer, boolean };
    std::string name;               ///< the header's name part
    std::vector<std::string> path;  ///< property names from the arguments' root
    kind type = kind::string;
};

/// The `x-mcp-header` annotations of an input schema, or why they make the tool invalid (an
/// annotation off a `properties` chain, on a non-primitive property, not a token, repeated).
/// Servers refuse such a tool; clients do not call it.
boost::system::result<std::vector<header_param>, std::string> header_params_of(const boost::json::object& schema);

/// A header value as the transport writes it: visible ASCII (spaces inside) as it is, anything
/// else (non-ASCII, control characters, leading or trailing whitespace) as `=?base64?…?=`.
std::string encode_header_value(std::string_view text);

/// The `Mcp-Param-*` headers a call with `arguments` carries: one per annotated parameter whose
/// value is present, not null and of its type (a string, an integer, a boolean), encoded.
std::vector<std::pair<std::string, std::string>> param_headers(const std::vector<header_param>& params,
                                                               const boost::json::object& arguments);

}  // namespace candor::mcp
