// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Strict intake of one JSON-RPC message.
///
/// The whole text goes through `candor::json::scan` with the server-wide limits, so a message
/// that is too large, too deep or too wide is refused before anything looks at it. Duplicate
/// keys and non-finite numbers are collected rather than fatal: inside `params` they are
/// handed to the method (with paths relative to `params`); anywhere else — including a
/// duplicated `id` or `method`, which would make the message ambiguous — they refuse the
/// message with -32700 and the intake code in `error.data`. The id of a refused message is
/// reported when it was read unambiguously, so the client can match the error to its request.
///
/// Then the JSON-RPC 2.0 shape is checked strictly: a batch, an id that is null or not a
/// 64-bit integer or a string, an unknown member or `jsonrpc` other than "2.0" is -32600;
/// positional (array) `params` are -32602.

#include <candor/json/intake.hpp>
#include <candor/jsonrpc/message.hpp>

#include <boost/system/result.hpp>

#include <string_view>

namespace candor::jsonrpc {

/// Read one message.
/// @param text the raw message (one JSON text)
/// @param lim the server-wide message limits
/// @return the message, or the rejection to answer with
/// @complexity linear in the size of `text`
boost::system::result<inbound, rejection> read_message(std::string_view text, const json::limits& lim);

}  // namespace candor::jsonrpc
