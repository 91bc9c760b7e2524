// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Outbound JSON-RPC messages, serialized through the guarded writer (`candor::json::write`).

#include <candor/json/write.hpp>
#include <candor/jsonrpc/message.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace candor::jsonrpc {

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
/// @return the text, or why `result` cannot be serialized (e.g. a NaN a tool put in it)
boost::system::result<std::string, json::write_error> encode_result(const request_id& id,
                                                                    const boost::json::value& result);

/// The opening `{"jsonrpc":"2.0","id":…,"result":` of a result message whose result the caller
/// writes as JSON text itself (already serialized by `json::write`), then closes with `}`.
/// Saves serializing a large result twice when its text is needed anyway.
boost::system::result<std::string, json::write_error> open_result(const request_id& id, std::size_t reserve = 0);

/// `{"jsonrpc":"2.0","id":…|null,"error":{code,message,data?}}`. Never fails: data that
/// cannot be serialized is dropped.
std::string encode_error(const std::optional<request_id>& id, const error_object& error);

/// `{"jsonrpc":"2.0","method":…,"params":…}`.
boost::system::result<std::string, json::write_error> encode_notification(std::string_view method,
                                                                          const boost::json::object& params);

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` (server-to-client requests).
boost::system::result<std::string, json::write_error> encode_request(const request_id& id, std::string_view method,
                                                                     const boost::json::object& params);

}  // namespace candor::jsonrpc
