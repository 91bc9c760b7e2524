// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/log.hpp>

#include <candor/json/write.hpp>
#include <candor/ops/journal.hpp>

namespace candor::ops {

namespace {

// `text` as a JSON string literal: valid UTF-8 whatever it held, at most `max` bytes of it.
void append_json_text(std::string_view text, std::string& out, std::size_t max = SIZE_MAX) {
    std::string valid;
    const bool cut = json::append_valid_utf8(text, valid, max) < text.size();
    if (cut) valid += "\u2026";
    // Valid UTF-8 by construction: the writer cannot refuse it.
    (void)json::write_string(valid, out);
}

void append_member(std::string& out, std::string_view name, std::string_view value) {
    if (value.empty()) return;
    out += ",\"";
    out += name;
    out += "\":";
    append_json_text(value, out);
}

}  // namespace

std::string_view to_string(log_format f) noexcept { return f == log_format::json ? "json" : "text"; }

std::optional<log_format> parse_log_format(std::string_view name) noexcept {
    if (name == "text") return log_format::text;
    if (name == "json") return log_format::json;
    return std::nullopt;
}

std::string format_log_line(const log_options& opts, std::chrono::system_clock::time_point time, mcp::log_level l,
                            std::string_view text, const mcp::log_fields& fields) {
    if (opts.format == log_format::text) {
        if (text.size() <= opts.max_message_bytes) return mcp::format_log_text(l, text, fields);
        std::string cut;
        json::append_valid_utf8(text, cut, opts.max_message_bytes);
        cut += "\u2026";
        return mcp::format_log_text(l, cut, fields);
    }
    std::string line = "{\"time\":\"" + format_time(time) + "\",\"level\":\"";
    line += mcp::to_string(l);
    line += "\",\"message\":";
    append_json_text(text, line, opts.max_message_bytes);
    append_member(line, "tool", fields.tool);
    append_member(line, "request_id", fields.request_id);
    append_member(line, "principal", fields.principal);
    append_member(line, "session", fields.session);
    if (!fields.codes.empty()) {
        line += ",\"codes\":[";
        for (std::size_t i = 0; i < fields.codes.size(); ++i) {
            if (i) line += ',';
            append_json_text(fields.codes[i], line);
        }
        line += ']';
    }
    append_member(line, "traceparent", fields.traceparent);
    append_member(line, "tracestate", fields.tracestate);
    line += '}';
    return line;
}

std::shared_ptr<log_writer> log_writer::open(log_options opts) {
    // Without a file nothing can fail to open.
    auto out = line_writer::open({.to_stderr = true, .queue_capacity = opts.queue_capacity}).value();
    return std::shared_ptr<log_writer>(new log_writer(opts, std::move(out)));
}

log_writer::log_writer(log_options opts, std::unique_ptr<line_writer> out) : opts_(opts), out_(std::move(out)) {}

mcp::log_sink log_writer::sink() {
    return [self = shared_from_this()](mcp::log_level l, std::string_view text, const mcp::log_fields& fields) {
        self->write(l, text, fields);
    };
}

void log_writer::write(mcp::log_level l, std::string_view text, const mcp::log_fields& fields) {
    if (l < opts_.level) return;
    out_->write_line(format_log_line(opts_, std::chrono::system_clock::now(), l, text, fields));
}

void log_writer::flush() { out_->flush(); }

std::uint64_t log_writer::dropped() const { return out_->dropped(); }

}  // namespace candor::ops
