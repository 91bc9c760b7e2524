// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// JSON-RPC 2.0 messages as MCP uses them: requests, notifications and responses, one per
/// text (no batches), ids that are strings or integers and never `null`.

#include <candor/json/document.hpp>
#include <candor/json/violation.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace candor::jsonrpc {

/// The standard JSON-RPC error codes Candor answers with.
enum class error_code : int {
    parse_error = -32700,         ///< not JSON, or the intake refused the text (codes in `data`)
    invalid_request = -32600,     ///< JSON, but not a valid JSON-RPC 2.0 message
    method_not_found = -32601,    ///< no such method
    invalid_params = -32602,      ///< the method's parameters are wrong (unknown tool, bad cursor…)
    internal_error = -32603,      ///< a bug on the server side
    resource_not_found = -32002,  ///< MCP: `resources/read` (or subscribe) of an unknown URI
    /// A resource reader, prompt or completer ran past its deadline and was stopped (the
    /// TypeScript SDK's `RequestTimeout`); `data.code` is `DEADLINE_EXCEEDED`.
    request_timeout = -32001,
    /// MCP 2026-07-28, Streamable HTTP: a required header (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`, `Mcp-Param-…`) is missing, malformed, or does not match the body.
    header_mismatch = -32020,
    /// MCP 2026-07-28: the request needs a client capability it did not declare in `_meta`
    /// (`data.requiredCapabilities`).
    missing_required_client_capability = -32021,
    /// MCP 2026-07-28: the protocol version in `_meta` is not served (`data.supported`,
    /// `data.requested`).
    unsupported_protocol_version = -32022,
};

/// A request id: a string or an integer that fits in 64 bits signed.
class request_id {
public:
    request_id(std::int64_t n) : v_(n) {}              // NOLINT: ids are spelled as literals in tests
    request_id(std::string s) : v_(std::move(s)) {}    // NOLINT
    request_id(const char* s) : v_(std::string(s)) {}  // NOLINT

    bool is_string() const noexcept { return std::holds_alternative<std::string>(v_); }
    /// The id as it goes on the wire.
    boost::json::value to_json() const;

    auto operator<=>(const request_id&) const = default;
    bool operator==(const request_id&) const = default;

private:
    std::variant<std::int64_t, std::string> v_;
};

/// `{code, message, data?}` of an error response.
struct error_object {
    int code = static_cast<int>(error_code::internal_error);
    std::string message{};
    std::optional<boost::json::value> data{};

    static error_object make(error_code c, std::string text, std::optional<boost::json::value> data = {});
};

/// A message that expects a response.
struct request {
    request_id id;
    std::string method{};
    /// Points into the inbound document; null when the message has no `params`.
    const boost::json::object* params = nullptr;
};

/// A message that expects none.
struct notification {
    std::string method{};
    const boost::json::object* params = nullptr;
};

/// A client's answer to a server-to-client request.
struct response {
    /// Absent only for an error response with `id: null` (the client could not read one of
    /// our messages); such a response is never answered.
    std::optional<request_id> id{};
    /// Exactly one of these is set.
    const boost::json::value* result = nullptr;
    std::optional<error_object> error{};
};

using message = std::variant<request, notification, response>;

/// One accepted message and the document its values live in.
struct inbound {
    /// Owns every value the message points to (params, arguments, their number texts). Shared
    /// so that a tool call can keep its arguments alive for as long as it runs.
    std::shared_ptr<const json::document> doc{};
    jsonrpc::message msg;
    /// Duplicate keys and non-finite numbers found inside `params`, with paths relative to
    /// `params` (e.g. "/arguments/limit"). The method decides what they mean: `tools/call`
    /// reports those inside its arguments as the tool's error.
    std::vector<json::violation> param_violations{};
};

/// Why a text was refused, and the error response it gets. `id` is set when it could be read
/// reliably (never from a duplicated `id` key); otherwise the response carries `id: null`.
struct rejection {
    std::optional<request_id> id{};
    error_object error{};
};

/// Makes `result<T, rejection>::value()` throw `std::logic_error` (the caller should have
/// checked).
[[noreturn]] void throw_exception_from_error(const rejection& r, const boost::source_location& loc);
/// The same for `result<T, error_object>`.
[[noreturn]] void throw_exception_from_error(const error_object& e, const boost::source_location& loc);

/// `{code, path, message, limit?, offset?}`: an intake violation as error data.
boost::json::object to_json(const json::violation& v);

}  // namespace candor::jsonrpc
