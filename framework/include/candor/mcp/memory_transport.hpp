// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// An in-memory transport and client: a test talks to a server with no process and no port.
///
/// The client drives the `io_context` it was given until the answer it waits for arrives, so
/// tests are deterministic and need no sleeps. Everything the server sends is recorded.

#include <candor/mcp/server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {

class memory_client {
public:
    /// Connect to `srv` over a connection running on `ioc`.
    memory_client(server& srv, boost::asio::io_context& ioc, connection_options opts = {});
    ~memory_client();

    /// Send a raw message text exactly as a transport would deliver it. Does not run the
    /// io_context.
    void send(std::string text);

    /// Send a request with a fresh integer id and run until its response arrives.
    /// @return the whole response message (`{jsonrpc, id, result|error}`)
    boost::json::value request(std::string_view method, boost::json::object params = {});

    /// Send a notification and run until the server has processed it (and everything it
    /// triggered without waiting).
    void notify(std::string_view method, boost::json::object params = {});

    /// `initialize` (with `version` and the client `capabilities`, e.g. `{"elicitation":{}}`)
    /// followed by `notifications/initialized`.
    /// @return the initialize response
    boost::json::value initialize(std::string_view version = "2025-11-25", boost::json::object capabilities = {});

    /// Send a raw text and run until a message with this id — or, for `null`, any error with a
    /// null id — arrives. @return that message
    boost::json::value exchange(std::string text, const boost::json::value& id);

    /// Run until `done()` is true or no work is left. @return `done()`
    bool run_until(const std::function<bool()>& done);

    /// Run every handler that is ready now, without waiting for timers.
    void run_ready();

    /// The id the next `request` will use.
    std::int64_t next_id() const noexcept { return next_id_; }

    /// Everything received so far, parsed, in order.
    const std::vector<boost::json::value>& received() const noexcept { return received_; }
    /// The size of each received message as the server wrote it, in bytes, in the same order.
    const std::vector<std::size_t>& received_bytes() const noexcept { return received_bytes_; }
    /// The received messages that are notifications (no id), optionally of one method.
    std::vector<boost::json::value> notifications(std::string_view method = {}) const;
    /// The received message with this id, or null.
    boost::json::value response_to(const boost::json::value& id) const;

    const std::shared_ptr<mcp::connection>& connection() const noexcept { return conn_; }

private:
    boost::asio::io_context& ioc_;
    std::shared_ptr<mcp::connection> conn_;
    std::shared_ptr<std::vector<boost::json::value>> inbox_;
    std::vector<boost::json::value> received_;
    std::shared_ptr<std::vector<std::size_t>> inbox_bytes_;
    std::vector<std::size_t> received_bytes_;
    std::int64_t next_id_ = 1;
    void collect();
};

}  // namespace candor::mcp
