// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/logging.hpp>

#include <array>
#include <cstdio>
#include <string>

namespace candor::mcp {

namespace {
constexpr std::array<std::string_view, 8> level_names = {"debug", "info",     "notice", "warning",
                                                         "error", "critical", "alert",  "emergency"};
}

std::string_view to_string(log_level l) noexcept { return level_names[static_cast<std::size_t>(l)]; }

std::optional<log_level> parse_log_level(std::string_view name) noexcept {
    for (std::size_t i = 0; i < level_names.size(); ++i)
        if (level_names[i] == name) return static_cast<log_level>(i);
    return std::nullopt;
}

std::string format_log_text(log_level l, std::string_view text, const log_fields& fields) {
    std::string line = "[candor] ";
    line += to_string(l);
    line += ": ";
    // One record, one line: control characters (a newline in an exception's text) become spaces.
    for (char c : text) line += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    bool first = true;
    const auto name = [&](std::string_view n) {
        line += first ? " (" : " ";
        first = false;
        line += n;
        line += '=';
    };
    const auto field = [&](std::string_view n, std::string_view value) {
        if (value.empty()) return;
        name(n);
        line += value;
    };
    field("tool", fields.tool);
    field("request_id", fields.request_id);
    field("principal", fields.principal);
    field("session", fields.session);
    if (!fields.codes.empty()) {
        name("codes");
        for (std::size_t i = 0; i < fields.codes.size(); ++i) line.append(i ? "," : "").append(fields.codes[i]);
    }
    field("traceparent", fields.traceparent);
    field("tracestate", fields.tracestate);
    if (!first) line += ')';
    return line;
}

log_sink stderr_log_sink() {
    return [](log_level l, std::string_view text, const log_fields& fields) {
        std::string line = format_log_text(l, text, fields);
        line += '\n';
        std::fwrite(line.data(), 1, line.size(), stderr);
    };
}

}  // namespace candor::mcp
