// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The server's own log for operators and log pipelines: text lines or one JSON object per line
/// on stderr, filtered by level, written by a thread of its own (docs/operations.md, "Logs").
///
/// A JSON line holds `time`, `level`, `message` and, when the line is about a session or a call,
/// `tool`, `request_id`, `principal`, `session`, `codes`, `traceparent`, `tracestate` — the
/// journal's rule holds: names, identifiers and codes, never argument values.

#include <candor/mcp/logging.hpp>
#include <candor/ops/line_writer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace candor::ops {

enum class log_format {
    text,  ///< `[candor] LEVEL: MESSAGE (tool=… request_id=… …)`, as `mcp::format_log_text`
    json,  ///< one JSON object per line
};

/// "text" or "json".
std::string_view to_string(log_format f) noexcept;

/// The format named `name`, or nothing.
std::optional<log_format> parse_log_format(std::string_view name) noexcept;

struct log_options {
    log_format format = log_format::text;
    /// Lines below this severity are dropped before they are formatted.
    mcp::log_level level = mcp::log_level::info;
    /// A longer message is cut (never inside a UTF-8 sequence) and ends in "…".
    std::size_t max_message_bytes = 4096;
    /// Lines waiting for the writer thread; one more is dropped and counted
    /// (`candor_log_dropped_total`).
    std::size_t queue_capacity = 4096;
};

/// One log line in `opts.format`, without its newline. The JSON form always holds valid UTF-8:
/// bytes of the message that are not are replaced by U+FFFD.
/// @param opts the format and the message cap
/// @param time when it happened (`time`: RFC 3339 UTC with milliseconds)
/// @param l its severity (`level`)
/// @param text the message (`message`)
/// @param fields what the line is about; empty fields are left out
std::string format_log_line(const log_options& opts, std::chrono::system_clock::time_point time, mcp::log_level l,
                            std::string_view text, const mcp::log_fields& fields);

/// The server's log on stderr: lines at or above the level are formatted on the calling thread
/// and queued for a writer thread, so that a stalled stderr pipe never blocks a connection (a
/// full queue drops and counts).
class log_writer : public std::enable_shared_from_this<log_writer> {
public:
    /// Start the writer thread.
    static std::shared_ptr<log_writer> open(log_options opts);

    /// The sink to give the server (`mcp::server::set_log`); it keeps the writer alive.
    mcp::log_sink sink();

    /// Write one line now (queued), as the sink does.
    void write(mcp::log_level l, std::string_view text, const mcp::log_fields& fields = {});

    /// Wait until every queued line is on stderr.
    void flush();

    /// Lines dropped because the queue was full.
    std::uint64_t dropped() const;

    const log_options& options() const noexcept { return opts_; }

private:
    log_writer(log_options opts, std::unique_ptr<line_writer> out);

    log_options opts_;
    std::unique_ptr<line_writer> out_;
};

}  // namespace candor::ops
