// SPDX-License-Identifier: BSL-1.0
#pragma once
// Sessions of the HTTP transport and the routing of outbound messages to streams. Private to
// the transport module.
//
// An MCP connection emits messages on its strand; the HTTP side reads them on the strand of
// the TCP connection that holds the stream. Between the two sits an `exchange` — a bounded,
// thread-safe channel per stream — so neither side ever blocks the other.

#include "session_policy.hpp"

#include <candor/mcp/connection.hpp>
#include <candor/mcp/server.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace candor::transport::detail {

/// Why a stream ended before its last message.
enum class end_reason { none, cancelled, session_closed, shutdown, overflow, superseded };

/// One stream: the answer to one POSTed request, or one GET stream. Messages are pushed from
/// the MCP connection's strand and received by the coroutine that writes the HTTP response.
class exchange {
public:
    using channel = boost::asio::experimental::concurrent_channel<void(boost::system::error_code, std::string, bool)>;

    /// @param max_messages messages queued and not yet taken by the writer
    /// @param max_bytes their bytes (one message is always taken into an empty queue, however
    /// large: a response must never be refused for its size alone)
    exchange(boost::asio::any_io_executor ex, std::size_t max_messages, std::size_t max_bytes)
        : channel_(std::move(ex), max_messages), max_bytes_(max_bytes) {}

    /// Queue one message (`final`: the response that completes the stream). Never blocks; a
    /// reader that fell `max_messages` messages or `max_bytes` bytes behind loses its stream
    /// (reason `overflow`).
    void push(std::string text, bool final);
    /// The next message: `(error, text, final)`; an error once the stream ended (`reason()` says
    /// why).
    boost::asio::awaitable<std::tuple<boost::system::error_code, std::string, bool>> next();
    /// End the stream; the reader's next receive fails and `reason()` says why.
    void end(end_reason why);
    end_reason reason() const noexcept { return reason_.load(); }

private:
    channel channel_;
    std::size_t max_bytes_;
    std::atomic<std::size_t> queued_bytes_{0};
    std::atomic<end_reason> reason_{end_reason::none};
};

/// One MCP session over HTTP: its connection, the streams waiting for its messages, and the
/// principal it belongs to.
class http_session : public std::enable_shared_from_this<http_session> {
public:
    /// @param owner whose share of the session table it counts against (see session_policy.hpp)
    http_session(std::string id, mcp::principal caller, std::string owner = {})
        : id_(std::move(id)), caller_(std::move(caller)), owner_(std::move(owner)), credential_(caller_.credential) {
        touch();
        checked_.store(last_used_.load());  // its record, if any, is written or read just now
    }

    void attach(std::shared_ptr<mcp::connection> c) { connection_ = std::move(c); }
    mcp::connection& connection() const noexcept { return *connection_; }
    const std::string& id() const noexcept { return id_; }
    const std::string& owner() const noexcept { return owner_; }
    const mcp::principal& caller() const noexcept { return caller_; }
    /// A request of this session came with `who`'s credential (same principal id): when it is
    /// another credential than the last one (a refreshed token, more scopes after a step-up),
    /// the connection's calls see it from now on.
    void update_caller(const mcp::principal& who);

    /// The send function for `server::connect_routed`: a message for a request goes to that
    /// request's stream, anything else to the newest GET stream; with no stream, it is dropped.
    /// (Holds the session weakly: the session owns the connection that owns this function.)
    mcp::connection::routed_send_function router();

    /// Register the stream for request `id` before the request is handed to the connection.
    /// @return false if a request with this id is still being answered
    bool open_request(const jsonrpc::request_id& id, std::shared_ptr<exchange> ex);
    /// The client cancelled request `id`: no response will come, so its stream ends.
    void cancel_request(const jsonrpc::request_id& id);
    /// Forget request `id`'s stream (its writer is done).
    void forget_request(const jsonrpc::request_id& id);
    /// Register a GET stream, logged as `log_id` (empty: not logged). A client that resumes
    /// stream `resumes` has lost it, whether or not this replica noticed yet: that stream, if
    /// open here, ends (reason `superseded`) and frees its slot for the new one.
    /// @return false if `max` streams are already open
    bool open_stream(std::shared_ptr<exchange> ex, std::size_t max, std::string log_id = {},
                     std::string_view resumes = {});
    void close_stream(const std::shared_ptr<exchange>& ex);

    /// End every stream with `why` and close the connection (cancelling its calls).
    void close(end_reason why);

    void touch() noexcept { last_used_.store(std::chrono::steady_clock::now().time_since_epoch().count()); }
    /// The session was initialized on another replica and taken over here from its shared
    /// record: its first request here is not its `initialize`, so it counts as used.
    void taken_over();
    /// Whether its shared record is due for a check (none for `every` since the last one); if
    /// so, the check is claimed (one request of many at once does it).
    bool claim_check(std::chrono::steady_clock::time_point now, std::chrono::milliseconds every) noexcept;
    /// Unused for `idle` and no stream open.
    bool expired(std::chrono::steady_clock::time_point now, std::chrono::milliseconds idle) const;
    /// What the session table's admission rule needs to know (valid while this session lives).
    session_facts facts(std::chrono::steady_clock::time_point now, std::chrono::milliseconds idle) const;

private:
    void deliver(std::string text, const mcp::message_route& route);
    std::chrono::steady_clock::time_point last_used() const noexcept {
        return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last_used_.load()));
    }

    std::string id_;
    mcp::principal caller_;
    std::string owner_;
    std::shared_ptr<mcp::connection> connection_;
    std::shared_ptr<const mcp::credential> credential_;  // the latest one handed on; guarded by mu_
    std::atomic<std::chrono::steady_clock::rep> last_used_{0};
    std::atomic<std::chrono::steady_clock::rep> checked_{0};  // when its shared record was last checked
    // Guards the stream tables only; held for lookups, never while sending.
    mutable std::mutex mu_;
    std::map<jsonrpc::request_id, std::shared_ptr<exchange>> requests_;
    struct get_stream {
        std::shared_ptr<exchange> ex;
        std::string log_id;
    };
    std::vector<get_stream> streams_;
    std::size_t requests_opened_ = 0;  // its initialize is the first
    bool stream_opened_ = false;
    bool closed_ = false;
};

/// The live sessions, bounded in number and per owner (session_policy.hpp), expiring when idle.
class session_table {
public:
    session_table(session_limits limits, std::chrono::milliseconds idle) : limits_(limits), idle_(idle) {}

    /// Add a session, after closing the one that must give way for it, if any.
    /// @return nothing, or why it was refused (then nothing was closed)
    std::optional<http_policy::refusal> add(std::shared_ptr<http_session> s);
    /// Add a session taken over from its shared record, unless one with its id is here already
    /// (another request took it over first), under the same admission rule as `add`.
    /// @return the session now under that id (`s` or the one found), or why `s` was refused
    std::variant<std::shared_ptr<http_session>, http_policy::refusal> adopt(std::shared_ptr<http_session> s);
    /// The live session with this id, or null (unknown or expired; an expired one is closed).
    std::shared_ptr<http_session> find(std::string_view id);
    /// Remove and return the session (DELETE).
    std::shared_ptr<http_session> remove(std::string_view id);
    /// Close and remove expired sessions.
    void sweep();
    /// Close and remove all (shutdown).
    void close_all(end_reason why);
    std::size_t size() const;

private:
    // Admit `s` (under `mu_`). @return the session that gave way for it, or why `s` was refused
    std::variant<std::shared_ptr<http_session>, http_policy::refusal> admit_locked(std::shared_ptr<http_session> s);

    session_limits limits_;
    std::chrono::milliseconds idle_;
    mutable std::mutex mu_;
    std::unordered_map<std::string, std::shared_ptr<http_session>> sessions_;
};

}  // namespace candor::transport::detail
