#pragma once
/// @file
/// What a running tool call can know and do besides reading its arguments: its deadline and
/// cancellation, progress, logging to the client, the caller's principal and the session.

#include <candor/mcp/logging.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace candor::mcp {

/// Who is calling, as the transport established it (bearer token, OS user, …). An empty `id`
/// is an anonymous caller (e.g. stdio without authentication).
struct principal {
    std::string id;
};

/// The connection-level facts a tool may want: who the client is and what it speaks.
struct session_info {
    /// Transport session id (HTTP `Mcp-Session-Id`); empty for stdio and in-memory.
    std::string id;
    /// The negotiated protocol version; empty before `initialize`.
    std::string protocol_version;
    std::string client_name;
    std::string client_version;
    /// `capabilities` the client declared in `initialize` (elicitation, sampling, …).
    boost::json::object client_capabilities;
};

namespace detail {
class call_state;
}

/// Handed to a tool for the duration of one call. Use it from the tool's coroutine: it runs on
/// the connection's strand, where sending progress and log messages is ordered before the
/// call's response.
class call_context {
public:
    explicit call_context(std::shared_ptr<detail::call_state> state) noexcept;

    /// The tool's name.
    const std::string& tool() const noexcept;
    /// When the framework stops the call and answers `DEADLINE_EXCEEDED`. A tool that can
    /// return partial data should watch it and return `TIME_BUDGET_EXCEEDED` before then.
    std::chrono::steady_clock::time_point deadline() const noexcept;
    /// Time left until the deadline (zero when past it).
    std::chrono::milliseconds remaining() const noexcept;
    /// True once the call was cancelled (by the client or by the deadline). Asynchronous
    /// operations awaited by the tool are cancelled too, through the coroutine's cancellation
    /// slot; this flag is for loops that do not await.
    bool cancelled() const noexcept;

    /// Send `notifications/progress` if the request carried `_meta.progressToken`; otherwise do
    /// nothing. Values that do not increase are dropped (the spec requires an increase).
    void progress(double done, std::optional<double> total = {}, std::string message = {});

    /// Send `notifications/message` to the client if `level` passes the client's
    /// `logging/setLevel`. Put facts here, never the raw arguments.
    void log(log_level level, std::string message, boost::json::object data = {});

    const mcp::principal& caller() const noexcept;
    const session_info& session() const noexcept;
    /// The executor the call runs on (the connection's strand).
    boost::asio::any_io_executor executor() const;

private:
    std::shared_ptr<detail::call_state> state_;
};

}  // namespace candor::mcp
