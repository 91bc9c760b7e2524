// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A client's connection to an MCP server: what a transport holds and feeds. Tool authors do
/// not need it (candor/mcp/server.hpp has the server and its options); transports, embedding
/// code and tests that drive a server by hand do.

#include <candor/mcp/server.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace candor::mcp {

namespace detail {
class connection_impl;
}

/// One client's session with the server. Created by `server::connect`; shared between the
/// transport and the calls running on it.
class connection : public std::enable_shared_from_this<connection> {
public:
    using send_function = mcp::send_function;
    using routed_send_function = mcp::routed_send_function;

    ~connection();
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    /// Hand over one inbound message text. Thread-safe; returns at once (the work is posted
    /// to the connection's strand).
    void receive(std::string text);

    /// Hand over a message the transport has read already (with `jsonrpc::read_message` and
    /// the server's `message_limits`, as `receive` would): it is not parsed a second time.
    /// `bytes` is the size of its text, for the call records. Thread-safe, ordered with
    /// `receive`.
    void receive(jsonrpc::inbound message, std::size_t bytes);

    /// For transports without a handshake on this connection (stateless HTTP: each request
    /// stands alone; a session that was initialized on another replica): the connection becomes
    /// initialized as if the client had sent `initialize` for `protocol_version` (with
    /// `client_capabilities`, client `name`/`version` as given) and `notifications/initialized`,
    /// without building and dropping an InitializeResult. The capabilities are what elicitation
    /// and sampling are checked against. Thread-safe; ordered with `receive` (both are posted to
    /// the strand).
    void assume_initialized(std::string protocol_version, std::string client_name, std::string client_version,
                            boost::json::object client_capabilities = {});

    /// The transport authenticated the client anew (same principal id, a new credential: a
    /// refreshed token, or more scopes after a step-up): requests received from now on see
    /// `caller`; calls already running keep theirs. Thread-safe; ordered with `receive`.
    void set_caller(mcp::principal caller);

    /// The transport is gone: cancel every call in flight and send nothing more. Thread-safe.
    void close();
    /// The client will send nothing more (stdio's input ended): the calls in flight go on and
    /// are answered, but the connection hears no more changes (list_changed, resource updates),
    /// so that nothing waits for them. Thread-safe.
    void input_ended();

    /// The strand everything of this connection runs on.
    const boost::asio::any_io_executor& strand() const noexcept;

private:
    friend class server;

    connection(std::shared_ptr<detail::server_core> core, boost::asio::any_io_executor ex, routed_send_function send,
               connection_options opts);

    // Everything else (the session's state, dispatch, calls, tasks, subscriptions) lives in
    // framework/src/mcp: it changes often, and transports need not rebuild when it does. The
    // impl lives exactly as long as the connection; what must keep it alive (posted work, a
    // call's state) holds the connection's own shared ownership, aliased to the impl.
    std::unique_ptr<detail::connection_impl> impl_;
};

}  // namespace candor::mcp
