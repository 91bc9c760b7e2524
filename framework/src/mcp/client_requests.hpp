// SPDX-License-Identifier: BSL-1.0
#pragma once
// A connection's requests to the client on behalf of its calls (elicitation, sampling): their
// ids, and the replies they await. Private to the mcp module.

#include "server_core.hpp"

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace candor::mcp::detail {

class connection_impl;

/// The requests a connection sent to the client and the replies they await. Touched on the
/// connection's strand only.
class client_requests {
public:
    explicit client_requests(connection_impl& c) noexcept : c_(c) {}
    client_requests(const client_requests&) = delete;
    client_requests& operator=(const client_requests&) = delete;

    /// Send `method` to the client on `route` and register the wait for its reply.
    /// @return the request's id and its pending entry, or `malformed_reply` when the params
    ///         cannot be written (a bug of tool `tool`'s, logged)
    boost::system::result<std::pair<jsonrpc::request_id, std::shared_ptr<pending_reply>>, client_request_error> send(
        const std::string& tool, const std::string& method, const boost::json::object& params,
        std::chrono::milliseconds timeout, const message_route& route);
    /// The wait for request `id` ended without a reply: forget it and send
    /// `notifications/cancelled` for it on `route`.
    void abandon(const jsonrpc::request_id& id, bool timed_out, const message_route& route);
    /// A response of the client's: it wakes the wait for the request it answers.
    void on_response(jsonrpc::response& r);
    /// The connection closed: every wait ends `cancelled`.
    void cancel_all();

private:
    connection_impl& c_;
    /// Requests this server sent to the client (elicitation, sampling) awaiting a reply.
    std::map<jsonrpc::request_id, std::shared_ptr<pending_reply>> pending_;
    std::int64_t next_id_ = 1;
};

}  // namespace candor::mcp::detail
