// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Resources: data a server exposes by URI (`resources/list`, `resources/read`), URI templates
/// for families of them (`resources/templates/list`), and subscriptions to their changes.
///
/// Register with `server::add_resource` / `server::add_resource_template`; tell subscribers
/// about a change with `server::notify_resource_updated`.

#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {

/// A resource's `resources/list` entry.
struct resource_info {
    std::string uri{};                    ///< absolute URI (`scheme:…`), unique per server
    std::string name{};                   ///< short programmatic name (required by the spec)
    std::string title{};                  ///< display name (2025-06-18+)
    std::string description{};            ///< what it holds; omitted when empty
    std::string mime_type{};              ///< omitted when empty
    std::optional<std::uint64_t> size{};  ///< bytes, if known
};

/// A family of resources, `resources/templates/list` entry. The template is RFC 6570 level 1:
/// literal text and `{name}` variables, each standing for one or more characters other than
/// `/`; two variables may not touch.
struct resource_template_info {
    std::string uri_template{};
    std::string name{};
    std::string title{};
    std::string description{};
    std::string mime_type{};
};

/// Values of a template's variables in a URI, by variable name.
using uri_variables = std::map<std::string, std::string, std::less<>>;

/// One item of a `resources/read` result: text, or binary data as base64 (`blob`).
struct resource_contents {
    std::string uri{};
    std::string mime_type{};
    std::string text{};
    std::string blob{};
    bool binary = false;

    static resource_contents of_text(std::string uri, std::string mime_type, std::string text);
    static resource_contents of_blob(std::string uri, std::string mime_type, std::string base64);
    /// `{uri, mimeType?, text}` or `{uri, mimeType?, blob}`.
    boost::json::object to_json() const;
};

/// What a reader is asked for.
struct resource_request {
    std::string uri{};
    /// The template's variables (empty for a fixed resource).
    uri_variables variables{};
    mcp::principal caller{};
    session_info session{};
    /// Asks the client (elicitation, sampling, roots) and knows the deadline, as a tool's
    /// context does, on both revisions (see `call_context::request_client`). Valid while the
    /// reader runs.
    call_context* context = nullptr;
};

/// Reads a resource. Runs as a coroutine on the connection's strand; nothing (`nullopt`) means
/// "no such resource" and is answered with error -32002. An exception is a bug: logged, and
/// answered with -32603 without details.
using resource_reader =
    std::function<boost::asio::awaitable<std::optional<std::vector<resource_contents>>>(const resource_request&)>;

/// True for `scheme:rest` with a valid RFC 3986 scheme, at most 2048 bytes, no control bytes.
bool is_valid_resource_uri(std::string_view uri) noexcept;

/// True for a level-1 template (see `resource_template_info`) that is also a valid URI shape.
bool is_valid_uri_template(std::string_view uri_template) noexcept;

/// The variables of `uri` if it matches `uri_template`, else nothing. Linear in the lengths,
/// no recursion. Values are returned as they appear in the URI (no percent-decoding).
std::optional<uri_variables> match_uri_template(std::string_view uri_template, std::string_view uri);

}  // namespace candor::mcp
