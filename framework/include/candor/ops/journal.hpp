// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The call journal: one JSON line per answered tool call and per refused protocol message,
/// for operators (fields in docs/operations.md). Metadata only — never argument values,
/// result data or message texts.
///
/// Lines are formatted on the caller's thread and handed to a writer thread through a bounded
/// queue: a connection never waits for the disk. When the queue is full the line is dropped
/// and counted (`dropped()`, and `candor_journal_dropped_total` on /metrics).
///
/// The line of an irreversible action (`on_durable_record`) is never dropped: the writer
/// acknowledges it once it is written and flushed to the file (and `fdatasync`ed with
/// `journal_options::sync`), and only then does the server send the action's reply. The
/// connection does not wait meanwhile: its strand serves other messages, and the reply is
/// posted back to it by the acknowledgement.

#include <candor/json/time.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/observer.hpp>
#include <candor/ops/line_writer.hpp>

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace candor::ops {

/// Where the journal goes: a file (rotated at a size cap) and/or stderr, through a writer thread
/// with a bounded queue (`line_writer_options`: path, to_stderr, max_bytes, keep_files,
/// queue_capacity, sync).
using journal_options = line_writer_options;

/// The journal line's field names, named once for its writer (`to_json`) and its readers
/// (`candor inspect`), so that neither can drift from the other.
namespace journal_field {
inline constexpr std::string_view time = "time";
inline constexpr std::string_view kind = "kind";
inline constexpr std::string_view request_id = "request_id";
inline constexpr std::string_view session = "session";
inline constexpr std::string_view principal = "principal";
inline constexpr std::string_view client_name = "client_name";
inline constexpr std::string_view client_version = "client_version";
/// The protocol revision the request was served under.
inline constexpr std::string_view protocol_version = "protocol_version";
/// W3C Trace Context of the request (present only when the request carried it).
inline constexpr std::string_view traceparent = "traceparent";
inline constexpr std::string_view tracestate = "tracestate";
inline constexpr std::string_view method = "method";
inline constexpr std::string_view tool = "tool";
inline constexpr std::string_view contract_version = "contract_version";
inline constexpr std::string_view action_class = "action_class";
inline constexpr std::string_view duration_ms = "duration_ms";
inline constexpr std::string_view bytes_in = "bytes_in";
inline constexpr std::string_view bytes_out = "bytes_out";
inline constexpr std::string_view status = "status";
/// `ops::call_outcome`: the status, with a partial result told apart as "paged" or "incomplete"
inline constexpr std::string_view outcome = "outcome";
inline constexpr std::string_view complete = "complete";
inline constexpr std::string_view reasons = "reasons";
inline constexpr std::string_view warnings = "warnings";
inline constexpr std::string_view issues = "issues";  ///< [{code, path, layer, repairable}]
inline constexpr std::string_view limits = "limits";  ///< [{code, limit}]
inline constexpr std::string_view evidence_verdict = "evidence_verdict";
inline constexpr std::string_view repair_attempt = "repair_attempt";
inline constexpr std::string_view repairs_remaining = "repairs_remaining";
inline constexpr std::string_view rpc_error = "rpc_error";
/// The task a call created or whose end the line records (present only then).
inline constexpr std::string_view task_id = "task_id";
// Inside `issues` and `limits`.
inline constexpr std::string_view code = "code";
inline constexpr std::string_view path = "path";
inline constexpr std::string_view layer = "layer";
inline constexpr std::string_view repairable = "repairable";
inline constexpr std::string_view limit = "limit";
// The values of `kind`.
inline constexpr std::string_view kind_tool_call = "tool_call";
inline constexpr std::string_view kind_protocol_refusal = "protocol_refusal";
}  // namespace journal_field

/// The journal line of a record, as a JSON object (field order as documented).
boost::json::object to_json(const mcp::call_record& r);

/// The same line as text: `json::to_string(to_json(r))`, written without building the object
/// (the journal writes one per call).
/// @return the line, or `invalid_utf8` when a string of the record is not valid UTF-8
boost::system::result<std::string, json::write_error> to_line(const mcp::call_record& r);

/// RFC 3339 UTC time with milliseconds, e.g. "2026-11-29T16:28:39.123Z" (`json::format_time`).
using json::format_time;

class journal : public mcp::call_observer {
public:
    /// Open (create or append to) the file and start the writer thread.
    /// @return the journal, or why the file cannot be opened
    static boost::system::result<std::shared_ptr<journal>> open(journal_options opts);

    journal(const journal&) = delete;
    journal& operator=(const journal&) = delete;

    void on_record(const mcp::call_record& r) override;
    /// Queue the line past the capacity, and call `stored` once it is written and flushed
    /// (and synced with `sync`), or could not be (then the failure is counted and reported on
    /// stderr).
    void on_durable_record(const mcp::call_record& r, std::function<void()> stored) override;

    // As `line_writer`'s, on the journal's writer.
    bool write_line(std::string line);
    void flush();
    std::uint64_t written() const;
    std::uint64_t dropped() const;
    std::uint64_t rotations() const;
    /// Batches whose write, flush or sync failed (their lines may be lost; reported on stderr).
    std::uint64_t failures() const;

private:
    explicit journal(std::unique_ptr<line_writer> out);

    std::unique_ptr<line_writer> out_;  ///< its destructor writes what is queued
};

}  // namespace candor::ops
