// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Records of the HTTP transport's sessions (2025-11-25 wire, `Mcp-Session-Id`) kept where
/// every replica behind one load balancer reads them, so that a session initialized on one
/// replica goes on on another (`http_options::shared_sessions`). A record holds what a replica
/// needs to take the session over: whose it is and what the client said in `initialize`. What
/// is live — the MCP connection, its calls, its streams, its log level and resource
/// subscriptions — stays on the replica that holds it.
///
/// The implementation on a SQL database that the replicas share is
/// `state::sql_session_records` (candor/state/sql_session_records.hpp, component sqlite).
/// Every method blocks: the transport calls them on a `offload::worker` thread, never on an I/O
/// thread.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace candor::transport {

/// What one session's record holds.
struct session_record {
    /// The session id (`Mcp-Session-Id`).
    std::string id{};
    /// The id of the principal that initialized it (empty without authentication): only the same
    /// principal may use the session, on any replica.
    std::string owner{};
    /// The protocol version `initialize` negotiated.
    std::string protocol_version{};
    /// `clientInfo` of `initialize`.
    std::string client_name{};
    std::string client_version{};
    /// `capabilities` of `initialize`, as JSON text (an object).
    std::string client_capabilities = "{}";
    /// When a replica last recorded a use (touches are throttled: see `session_records::touch`).
    std::chrono::system_clock::time_point last_used{};
    /// From then on the session is gone on every replica.
    std::chrono::system_clock::time_point expires{};
};

/// Why the records could not be read or written (for the server log; the client is answered
/// 503 `SESSION_STORE_UNAVAILABLE`).
struct session_records_error {
    std::string message{};
};
[[noreturn]] inline void throw_exception_from_error(const session_records_error& e, const boost::source_location&) {
    throw std::runtime_error(e.message);
}

template <class T>
using session_records_result = boost::system::result<T, session_records_error>;

/// Session records shared by the replicas. Thread-safe; every method may block.
class session_records {
public:
    virtual ~session_records() = default;

    /// Write the record of a session just initialized (replacing one with the same id).
    virtual session_records_result<void> put(const session_record& r) = 0;

    /// The record of session `id`, or nothing when there is none or it expired before `now`.
    virtual session_records_result<std::optional<session_record>> find(std::string_view id,
                                                                       std::chrono::system_clock::time_point now) = 0;

    /// Record a use at `now`: the session then expires at `now + idle`. Throttled so that a busy
    /// session does not write on every request: nothing is written while the recorded use is
    /// less than a quarter of `idle` old, so a session counts as idle from a use up to that much
    /// before its last request. An expired or unknown session stays gone.
    /// @return whether the record was written
    virtual session_records_result<bool> touch(std::string_view id, std::chrono::system_clock::time_point now,
                                               std::chrono::milliseconds idle) = 0;

    /// Remove session `id` (DELETE): no replica may use it any more.
    /// @return whether there was a record
    virtual session_records_result<bool> remove(std::string_view id) = 0;

    /// Remove the records that expired before `now`. @return how many
    virtual session_records_result<std::size_t> purge(std::chrono::system_clock::time_point now) = 0;
};

}  // namespace candor::transport
