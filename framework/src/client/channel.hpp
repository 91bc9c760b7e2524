// SPDX-License-Identifier: BSL-1.0
#pragma once
// How a session's messages travel: a started process's pipes, or HTTP POSTs. A channel sends
// one message and reads what comes back until the answer to it, handing every other message
// to the session on the way.
#include <candor/client/client.hpp>
#include <candor/json/intake.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace candor::client::detail {

template <class T>
using outcome = boost::system::result<T, client_error>;

/// What HTTP needs to know of a message besides its text.
struct message_facts {
    std::string protocol_version{};  ///< MCP-Protocol-Version
    std::string method{};            ///< Mcp-Method
    std::string name{};              ///< Mcp-Name, when the method has one
    bool modern = false;
    /// How long to wait for the answer.
    std::chrono::milliseconds timeout{30'000};
    /// More headers (`Mcp-Param-*`), already encoded.
    std::vector<std::pair<std::string, std::string>> headers{};
};

/// A message read from the server: parsed strictly, owning its memory.
using message = boost::json::object;

/// Called with each message read before the awaited answer: a reply to send back (a request
/// from the server), or nothing.
using on_other_message = std::function<boost::asio::awaitable<std::optional<std::string>>(const message&)>;

class channel {
public:
    virtual ~channel() = default;
    /// Send `text` (a request with id `id_text`, serialized) and read until its answer.
    virtual boost::asio::awaitable<outcome<message>> exchange(std::string text, std::string id_text,
                                                              const message_facts& facts,
                                                              const on_other_message& other) = 0;
    /// Send a notification.
    virtual boost::asio::awaitable<outcome<void>> notify(std::string text, const message_facts& facts) = 0;
    /// Read what the server sends on its own (HTTP, 2025-11-25: the session's GET stream) until
    /// `close`, handing each message to `other`; returns once it reads. A channel without such a
    /// stream has nothing to do.
    virtual boost::asio::awaitable<void> listen(on_other_message /*other*/, message_facts /*facts*/) { co_return; }
    virtual boost::asio::awaitable<void> close() = 0;
};

/// The intake limits of every text from the server.
json::limits limits_of(const session_options& o);

/// A JSON text from the server (a message, or a tool's content), read under the session's limits.
outcome<boost::json::value> read_json(std::string_view text, const session_options& o);

/// One message text from the server, read under the session's limits: a JSON object with
/// `"jsonrpc": "2.0"`.
outcome<message> read_message(std::string_view text, const session_options& o);

/// The JSON text of a message's `id` (how answers are matched), or empty.
std::string id_text_of(const message& m);

client_error error(std::string code, std::string message, std::string detail = {});

outcome<std::unique_ptr<channel>> open_stdio(boost::asio::any_io_executor ex, const endpoint& where,
                                             const session_options& o);
outcome<std::unique_ptr<channel>> open_http(boost::asio::any_io_executor ex, const endpoint& where,
                                            const session_options& o);

}  // namespace candor::client::detail
