// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Log levels (RFC 5424 severities, as MCP's `logging/setLevel` names them) and the
/// server-side log sink.

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace candor::mcp {

enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

/// "debug", "info", … "emergency".
std::string_view to_string(log_level l) noexcept;

/// The level named `name`, or nothing.
std::optional<log_level> parse_log_level(std::string_view name) noexcept;

/// What a line of the server's log is about besides its text, when it concerns a session or a
/// call: names, identifiers and codes — never argument values. Every field may be empty (a
/// line about no call has no tool). The views point into the caller's memory: a sink that keeps
/// them copies them.
struct log_fields {
    /// The registered tool the line is about.
    std::string_view tool{};
    /// The JSON-RPC id of the request, as text (strings capped at 64 bytes, as in the journal).
    std::string_view request_id{};
    /// The caller's principal and the transport's session id.
    std::string_view principal{};
    std::string_view session{};
    /// The codes the line reports (issue, reason or error codes).
    std::span<const std::string_view> codes{};
    /// The W3C trace context of the call (`traceparent`, `tracestate`), when it carries one.
    std::string_view traceparent{};
    std::string_view tracestate{};
};

/// Where the server writes its own log (operators' log, not the client's). Never receives
/// raw tool arguments: the framework logs codes, names and identifiers only.
///
/// A sink is built from a function of `(log_level, std::string_view text, const log_fields&)`,
/// or of `(log_level, std::string_view text)` when the fields do not matter to it. Copies share
/// the function; calling an empty sink does nothing.
class log_sink {
public:
    using function = std::function<void(log_level, std::string_view, const log_fields&)>;

    log_sink() noexcept = default;
    log_sink(std::nullptr_t) noexcept {}

    /// A sink that receives each line's fields.
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, log_sink> &&
             std::is_invocable_v<F&, log_level, std::string_view, const log_fields&>) log_sink(F f)
        : f_(std::move(f)) {}

    /// A sink of text only: the fields are dropped.
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, log_sink> &&
             !std::is_invocable_v<F&, log_level, std::string_view, const log_fields&> &&
             std::is_invocable_v<F&, log_level, std::string_view>) log_sink(F f)
        : f_([g = std::move(f)](log_level l, std::string_view text, const log_fields&) { g(l, text); }) {}

    /// Write one line.
    /// @param l its severity
    /// @param text the message (the framework's own words, codes and names; never argument values)
    /// @param fields what the line is about
    void operator()(log_level l, std::string_view text, const log_fields& fields = {}) const {
        if (f_) f_(l, text, fields);
    }

    explicit operator bool() const noexcept { return static_cast<bool>(f_); }

private:
    function f_;
};

/// One line in the text format, without its newline: `[candor] LEVEL: TEXT` (control characters
/// in TEXT become spaces), followed by the fields that are set, as ` (tool=… request_id=…
/// principal=… session=… codes=A,B traceparent=… tracestate=…)`.
std::string format_log_text(log_level l, std::string_view text, const log_fields& fields = {});

/// The default sink: one line per record on stderr (stdout belongs to the stdio transport), in
/// the text format, written at once by the calling thread. The standard command line replaces
/// it with `ops::log_writer` (a writer thread, `--log-format`, `--log-level`).
log_sink stderr_log_sink();

}  // namespace candor::mcp
