// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/command_line.hpp>

#include <candor/ops/admin.hpp>

#include <algorithm>
#include <cstdlib>

namespace candor::ops {

namespace {

bool valid_ops_token(std::string_view t) {
    if (t.size() < 8 || t.size() > 256) return false;
    return std::all_of(t.begin(), t.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '~' || c == '-';
    });
}

}  // namespace

command_line::command_line(std::shared_ptr<app::http_command_line> http) : http_(std::move(http)) {}

std::vector<app::extra_option> command_line::flags() {
    std::vector<app::extra_option> flags{
        {"--journal", "PATH", "",
         [this](std::string_view v) {
             journal_ = true;
             if (v == "-") journal_opts_.to_stderr = true;
             else journal_opts_.path = std::string(v);
             return true;
         }},
        {"--journal-max-bytes", "N", "",
         [this](std::string_view v) {
             const std::string text(v);
             char* end = nullptr;
             journal_opts_.max_bytes = std::strtoull(text.c_str(), &end, 10);
             return (!text.empty() && *end == '\0') || app::refuse("--journal-max-bytes expects a number of bytes");
         }},
        {"--journal-sync", "", "",
         [this](std::string_view) {
             journal_opts_.sync = true;
             return true;
         }},
    };
    flags.push_back({"--log-format", "FORMAT", "", [this](std::string_view v) {
                         const auto format = ops::parse_log_format(v);
                         if (!format)
                             return app::refuse("--log-format expects text or json, got '" + std::string(v) + "'");
                         log_opts_.format = *format;
                         return true;
                     }});
    flags.push_back({"--log-level", "LEVEL", "", [this](std::string_view v) {
                         const auto level = mcp::parse_log_level(v);
                         if (!level)
                             return app::refuse(
                                 "--log-level expects debug, info, notice, warning, error, critical, alert or "
                                 "emergency, got '" +
                                 std::string(v) + "'");
                         log_opts_.level = *level;
                         return true;
                     }});
    if (!http_) return flags;
    flags.push_back({"--no-metrics", "", "", [this](std::string_view) {
                         metrics_ = false;
                         return true;
                     }});
    flags.push_back({"--ops-token", "TOKEN", "", [this](std::string_view v) {
                         if (!valid_ops_token(v))
                             return app::refuse("--ops-token expects 8-256 characters of [A-Za-z0-9._~-]");
                         ops_token_ = std::string(v);
                         return true;
                     }});
    return flags;
}

std::string command_line::help() const {
    std::string text;
    if (http_)
        text =
            "    --no-metrics         do not serve GET /metrics (Prometheus text format; on by default)\n"
            "    --ops-token TOKEN    serve the operations console at GET /ops to bearers of TOKEN\n"
            "                         (8-256 characters of [A-Za-z0-9._~-]; off without it: 404)\n";
    return text +
           "  --journal PATH         append one JSON line per tool call and refused message to PATH\n"
           "                         ('-': stderr); rotated at 64 MiB, 3 old files kept\n"
           "    --journal-max-bytes N  rotate the journal at N bytes (0: never)\n"
           "    --journal-sync       fdatasync the line of an irreversible action before its reply\n"
           "                         (always: written and flushed before the reply)\n"
           "  --log-format FORMAT    the server's log on stderr: text (default) or json (one object per line)\n"
           "  --log-level LEVEL      lowest severity logged: debug, info (default), notice, warning, error,\n"
           "                         critical, alert, emergency\n";
}

std::string command_line::check(bool) {
    if (!ops_token_.empty() && !(http_ && http_->serving())) return "--ops-token needs --http";
    return {};
}

bool command_line::configure(mcp::server& srv) {
    // From here on the server's log (and `prepare`'s) is in the chosen format, written by a thread
    // of its own; the writer writes what is queued before it goes (with the server's sink).
    log_ = ops::log_writer::open(log_opts_);
    srv.set_log(log_->sink());
    return true;
}

bool command_line::start(mcp::server& srv) {
    ops::admin_options admin;
    admin.log = log_;
    if (journal_) {
        auto opened = ops::journal::open(journal_opts_);
        if (!opened) {
            log_->write(mcp::log_level::error,
                        "cannot open journal '" + journal_opts_.path + "': " + opened.error().message());
            log_->flush();
            return false;
        }
        admin.journal = *opened;
        srv.add_observer(admin.journal);
    }
    if (!http_ || !http_->serving()) return true;
    if (metrics_) {
        admin.metrics = std::make_shared<ops::call_metrics>(
            ops::metrics_options{.server_name = srv.options().name, .server_version = srv.options().version});
        srv.add_observer(admin.metrics);
    }
    if (!ops_token_.empty()) {
        admin.console = std::make_shared<ops::console>();
        admin.console_token = ops_token_;
        srv.add_observer(admin.console);
    }
    if (admin.metrics || admin.console) http_->http_options().admin = ops::make_admin_handler(admin);
    return true;
}

}  // namespace candor::ops
