// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The observer hook: what the server tells operators' tools (journal, metrics, console) about
/// every answered tool call and every refused protocol message.
///
/// A `call_record` holds metadata only — codes, paths, counts, times, sizes — never argument
/// values, result data or message texts (messages may echo what a caller sent). Observers run
/// on the connection's strand right before the answer is handed to the transport, so they must
/// not block: queue, count, return. The record of an irreversible action (a call of a tool of
/// action class `irreversible_write` that got past its arguments' checks) goes to
/// `on_durable_record`, and its answer waits until every observer stored it.

#include <candor/error/issue.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace candor::mcp {

/// One issue of an error envelope, without its message.
struct issue_record {
    std::string code{};
    /// JSON Pointer into the arguments. A segment that is a caller-chosen key (the last
    /// segment of `UNKNOWN_FIELD` and `DUPLICATE_KEY`) is replaced by `*`.
    std::string path{};
    layer where = layer::contract;
    bool repairable = true;
};

/// A limit that stopped or cut a call: the code that reported it and the limit's value.
struct limit_record {
    std::string code{};
    std::uint64_t limit = 0;
};

struct call_record {
    enum class kind {
        tool_call,         ///< a `tools/call` that got a CallToolResult
        protocol_refusal,  ///< a message answered with a JSON-RPC error
    };
    kind what = kind::tool_call;
    /// When the answer was sent.
    std::chrono::system_clock::time_point time{};
    /// The request id as text (strings capped at 64 bytes); empty when the message had none.
    std::string request_id{};
    std::string session{};
    std::string principal{};
    std::string client_name{};
    std::string client_version{};
    /// The protocol revision the request was served under (the session's, or the stateless
    /// request's own); empty before `initialize`.
    std::string protocol_version{};
    /// W3C Trace Context (`traceparent`, `tracestate`) from the request's `_meta`, as sent (at
    /// most 512 bytes each; longer or malformed values are dropped); empty when absent.
    std::string traceparent{};
    std::string tracestate{};
    /// A known MCP method (`tools/call`, `initialize`, …), or "other" for anything else: method
    /// names a client invents are not recorded.
    std::string method{};
    /// The tool (registered tools only; an unknown name a client sent is not recorded).
    std::string tool{};
    std::string contract_version{};
    /// "read_only", "reversible_write", "irreversible_write"; empty without a tool.
    std::string action_class{};
    /// From the arrival of the message to the answer.
    std::chrono::nanoseconds duration{0};
    std::size_t bytes_in = 0;
    std::size_t bytes_out = 0;
    /// "complete", "partial" or "error" for envelopes; "content" or "content_error" for tools
    /// that return raw content; "refused" for protocol refusals; "task" for a call answered
    /// with a task, "failed" or "cancelled" for a task's end without a result.
    std::string status{};
    std::optional<bool> complete{};
    std::vector<std::string> reason_codes{};
    std::vector<std::string> warning_codes{};
    std::vector<issue_record> issues{};
    std::vector<limit_record> limits{};
    /// Tasks extension: the task a `tools/call` created (status "task") or whose end this
    /// records (its final status, "failed" or "cancelled" besides the envelope statuses); empty
    /// for calls answered in their request.
    std::string task_id{};
    /// The JSON-RPC error code of a protocol refusal (or of a task that failed).
    std::optional<int> rpc_error{};
    /// The `EVIDENCE_*` code that refused an action, "accepted" when a gated action ran (set by
    /// code that knows), empty when no evidence gate was seen.
    std::string evidence_verdict{};
    /// 0 for a first attempt; n when this call of the same tool on the same connection follows
    /// n answers that were refused with repairable issues only. The validation module may set
    /// its own count through `repairs_remaining` in an issue's details (see docs/operations.md).
    unsigned repair_attempt = 0;
    /// `repairs_remaining` from an issue's details, when the validation module reports it.
    std::optional<std::int64_t> repairs_remaining{};
    /// The envelope without `data` and without any message or string detail: status,
    /// complete, codes, numeric details, continuation kind, scope. Empty for content tools and
    /// protocol refusals, and when no observer reads it (`reads_envelope_metadata`).
    boost::json::object envelope_metadata{};
};

/// One step in the life of a client session, for observers that follow sessions one by one
/// (e.g. to tell sessions in use from sessions a client opened and left).
struct session_event {
    enum class kind {
        opened,  ///< initialized (`initialize`, or a transport without a handshake)
        used,    ///< its first request after `initialize` (sent once per session)
        closed,  ///< its connection went away
    };
    kind what = kind::opened;
    /// Tells the session apart from every other session open at the same time (a key may be
    /// used again once its session is closed).
    std::uintptr_t key = 0;
};

/// Receives call records. Thread-safe: called from every connection's strand.
class call_observer {
public:
    virtual ~call_observer() = default;
    /// A tool call started running (after its arguments passed the intake).
    virtual void on_call_started() {}
    /// A started call is over: answered, cancelled, or its connection went away.
    virtual void on_call_finished() {}
    /// A call (started or refused before it ran) or a refused message was answered.
    virtual void on_record(const call_record& r) = 0;
    /// The record of a call of a tool of action class `irreversible_write` that got past its
    /// arguments' checks (an answer with intake or contract issues only did nothing). Its
    /// answer is sent only once every observer has called `stored` (exactly once, from any
    /// thread): an observer that keeps records somewhere lasting calls it when the record is
    /// there (the journal: written and flushed). Never block here; a failure to store still
    /// calls `stored` (the action happened, its answer must go out) and is the observer's to
    /// report. Default: `on_record(r)`, then `stored()`.
    virtual void on_durable_record(const call_record& r, std::function<void()> stored) {
        on_record(r);
        stored();
    }
    /// A client session was initialized (`opened`) or its connection went away.
    virtual void on_session(bool opened) { (void)opened; }
    /// A session was opened, used for the first time, or closed. By default, `opened` and
    /// `closed` are passed on to `on_session`; an observer that overrides this gets every
    /// event here only.
    virtual void on_session_event(const session_event& e) {
        if (e.what != session_event::kind::used) on_session(e.what == session_event::kind::opened);
    }
    /// Whether this observer reads `call_record::envelope_metadata`. When no observer of a
    /// server does, records come without it (everything else in them is filled as usual).
    virtual bool reads_envelope_metadata() const noexcept { return true; }
};

}  // namespace candor::mcp
