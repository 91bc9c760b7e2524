// SPDX-License-Identifier: BSL-1.0
#include <candor/app/command_line.hpp>

#include <candor/envelope/envelope.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/ops/admin.hpp>
#include <candor/transport/http.hpp>
#include <candor/transport/stdio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/array.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

namespace candor::app {

namespace {

void print_help(const mcp::server& srv, const app_options& opts, const char* argv0, std::ostream& os) {
    const std::string self = argv0 ? argv0 : srv.options().name;
    os << "usage: " << self << " [options] (--stdio | --http [HOST:]PORT | tools | check TOOL [FILE|-])\n";
    if (!opts.summary.empty()) os << "\n" << opts.summary << "\n";
    os << "\ncommands:\n"
          "  --stdio                serve one MCP client over stdin/stdout (logs go to stderr)\n"
          "  --http [HOST:]PORT     serve MCP over Streamable HTTP at /mcp (HOST default 127.0.0.1)\n"
          "    --stateless          no sessions; every POST is self-contained\n"
          "    --tokens FILE        require bearer tokens: lines 'TOKEN PRINCIPAL' ('#' comments)\n"
          "    --allow-origin O     accept browser Origin O besides loopback ones (repeatable)\n"
          "    --threads N          I/O threads (default: one per core)\n"
          "    --no-metrics         do not serve GET /metrics (Prometheus text format; on by default)\n"
          "    --ops-token TOKEN    serve the operations console at GET /ops to bearers of TOKEN\n"
          "                         (8-256 characters of [A-Za-z0-9._~-]; off without it: 404)\n"
          "  --journal PATH         append one JSON line per tool call and refused message to PATH\n"
          "                         ('-': stderr); rotated at 64 MiB, 3 old files kept\n"
          "    --journal-max-bytes N  rotate the journal at N bytes (0: never)\n"
          "  --log-format FORMAT    the server's log on stderr: text (default) or json (one object per line)\n"
          "  --log-level LEVEL      lowest severity logged: debug, info (default), notice, warning, error,\n"
          "                         critical, alert, emergency\n"
          "  tools                  print the tool list, with schemas, as JSON\n"
          "  check TOOL [FILE|-]    run TOOL's argument contract on the arguments in FILE\n"
          "                         (a JSON object; '-' or absent: stdin) without running the tool;\n"
          "                         exit 0 if accepted, 1 with the issues if not\n"
          "  --help                 this text\n";
    if (!opts.options.empty()) {
        os << "\noptions:\n";
        for (const auto& o : opts.options) {
            std::string lhs = o.name + (o.value_name.empty() ? "" : " " + o.value_name);
            os << "  " << lhs << std::string(lhs.size() < 23 ? 23 - lhs.size() : 1, ' ') << o.help << "\n";
        }
    }
}

int usage_error(const std::string& message) {
    std::cerr << "error: " << message << " (see --help)\n";
    return 2;
}

// The tool list exactly as a client sees it: initialize, then every page of tools/list.
int print_tools(mcp::server& srv) {
    boost::asio::io_context ioc;
    mcp::memory_client client(srv, ioc);
    client.initialize();
    boost::json::array tools;
    boost::json::object params;
    for (;;) {
        auto response = client.request("tools/list", params);
        const auto* result = response.as_object().if_contains("result");
        if (!result) {
            std::cerr << "error: tools/list failed: " << json::to_string(response).value() << "\n";
            return 1;
        }
        for (const auto& t : result->at("tools").as_array()) tools.push_back(t);
        const auto* next = result->as_object().if_contains("nextCursor");
        if (!next || !next->is_string()) break;
        params = {{"cursor", *next}};
    }
    std::cout << json::to_string(boost::json::object{{"tools", std::move(tools)}}).value() << "\n";
    return 0;
}

// Read FILE ("-" = stdin), never more than `bound` + 1 bytes.
std::optional<std::string> read_bounded(std::string_view path, std::size_t bound, bool& too_large) {
    std::FILE* f = stdin;
    if (path != "-") f = std::fopen(std::string(path).c_str(), "rb");
    if (!f) return std::nullopt;
    std::string text;
    char buf[64 * 1024];
    while (text.size() <= bound) {
        const std::size_t n = std::fread(buf, 1, std::min(sizeof buf, bound + 1 - text.size()), f);
        if (n == 0) break;
        text.append(buf, n);
    }
    const bool failed = std::ferror(f) != 0;
    if (f != stdin) std::fclose(f);
    if (failed) return std::nullopt;
    too_large = text.size() > bound;
    return text;
}

// The whole argument pipeline of one tool, offline: the tool never runs.
int check_tool(mcp::server& srv, std::string_view tool, std::string_view path) {
    const std::size_t bound = srv.options().message_limits.max_bytes;
    bool too_large = false;
    auto text = read_bounded(path, bound, too_large);
    if (!text) return usage_error("cannot read '" + std::string(path) + "'");
    issue_list issues;
    if (too_large) {
        issue i;
        i.code = "INPUT_TOO_LARGE";
        i.message = "arguments are larger than " + std::to_string(bound) + " bytes";
        i.where = layer::intake;
        i.details["limit"] = bound;
        issues.push_back(std::move(i));
    } else {
        auto checked = srv.check_arguments(tool, *text);
        if (!checked) return usage_error("unknown tool '" + std::string(tool) + "' (see the 'tools' command)");
        issues = std::move(*checked);
    }
    if (issues.empty()) {
        std::cout << R"({"ok":true})"
                  << "\n";
        return 0;
    }
    boost::json::array errors;
    for (const auto& i : issues) errors.push_back(envelope::to_json(i));
    std::cout << json::to_string(boost::json::object{{"ok", false}, {"errors", std::move(errors)}}).value() << "\n";
    return 1;
}

bool valid_ops_token(std::string_view t) {
    if (t.size() < 8 || t.size() > 256) return false;
    return std::all_of(t.begin(), t.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '~' || c == '-';
    });
}

// "[HOST:]PORT" (IPv6 hosts in brackets: "[::1]:8080").
bool parse_listen(std::string_view text, transport::http_options& http) {
    std::string_view port = text;
    if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
        auto host = text.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        if (host.empty()) return false;
        http.host = std::string(host);
        port = text.substr(colon + 1);
    }
    if (port.empty() || port.size() > 5) return false;
    unsigned value = 0;
    for (char c : port) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535) return false;
    http.port = static_cast<std::uint16_t>(value);
    return true;
}

// Lines "TOKEN PRINCIPAL"; blank lines and lines starting with '#' are skipped.
bool read_tokens(const std::string& path, transport::http_options& http) {
    std::ifstream in(path);
    if (!in) {
        std::cerr << "error: cannot read tokens file '" << path << "'\n";
        return false;
    }
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto gap = line.find_first_of(" \t", first);
        const auto second = gap == std::string::npos ? gap : line.find_first_not_of(" \t", gap);
        if (second == std::string::npos) {
            std::cerr << "error: " << path << ":" << n << ": expected 'TOKEN PRINCIPAL'\n";
            return false;
        }
        auto principal = line.substr(second);
        principal.erase(principal.find_last_not_of(" \t") + 1);
        http.tokens[line.substr(first, gap - first)] = mcp::principal{principal};
    }
    if (http.tokens.empty()) {
        std::cerr << "error: tokens file '" << path << "' has no tokens\n";
        return false;
    }
    return true;
}

}  // namespace

int run(mcp::server& srv, int argc, char** argv, const app_options& opts) {
    std::vector<std::string_view> positional;
    bool stdio = false;
    bool http = false;
    bool http_only_flag = false;  // --stateless/--tokens/... without --http
    transport::http_options http_opts;
    ops::journal_options journal_opts;
    bool journal = false;
    bool metrics = true;
    std::string ops_token;
    ops::log_options log_opts;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            print_help(srv, opts, argv[0], std::cout);
            return 0;
        }
        if (arg == "--stdio") {
            stdio = true;
            continue;
        }
        if (arg == "--http" || arg == "--tokens" || arg == "--allow-origin" || arg == "--threads") {
            if (i + 1 >= argc) return usage_error(std::string(arg) + " needs a value");
            const std::string_view value = argv[++i];
            if (arg == "--http") {
                http = true;
                if (!parse_listen(value, http_opts))
                    return usage_error("--http expects [HOST:]PORT, got '" + std::string(value) + "'");
            } else if (arg == "--tokens") {
                http_only_flag = true;
                if (!read_tokens(std::string(value), http_opts)) return 2;
            } else if (arg == "--allow-origin") {
                http_only_flag = true;
                http_opts.allowed_origins.emplace_back(value);
            } else {
                http_only_flag = true;
                const auto n = std::strtoul(std::string(value).c_str(), nullptr, 10);
                if (n == 0 || n > 1024) return usage_error("--threads expects 1..1024");
                http_opts.threads = n;
            }
            continue;
        }
        if (arg == "--log-format" || arg == "--log-level") {
            if (i + 1 >= argc) return usage_error(std::string(arg) + " needs a value");
            const std::string_view value = argv[++i];
            if (arg == "--log-format") {
                const auto format = ops::parse_log_format(value);
                if (!format) return usage_error("--log-format expects text or json, got '" + std::string(value) + "'");
                log_opts.format = *format;
            } else {
                const auto level = mcp::parse_log_level(value);
                if (!level)
                    return usage_error(
                        "--log-level expects debug, info, notice, warning, error, critical, alert or emergency, got '" +
                        std::string(value) + "'");
                log_opts.level = *level;
            }
            continue;
        }
        if (arg == "--journal" || arg == "--journal-max-bytes" || arg == "--ops-token") {
            if (i + 1 >= argc) return usage_error(std::string(arg) + " needs a value");
            const std::string_view value = argv[++i];
            if (arg == "--journal") {
                journal = true;
                if (value == "-") journal_opts.to_stderr = true;
                else journal_opts.path = std::string(value);
            } else if (arg == "--journal-max-bytes") {
                char* end = nullptr;
                const std::string v(value);
                journal_opts.max_bytes = std::strtoull(v.c_str(), &end, 10);
                if (v.empty() || *end != '\0') return usage_error("--journal-max-bytes expects a number of bytes");
            } else {
                http_only_flag = true;
                if (!valid_ops_token(value))
                    return usage_error("--ops-token expects 8-256 characters of [A-Za-z0-9._~-]");
                ops_token = std::string(value);
            }
            continue;
        }
        if (arg == "--no-metrics") {
            metrics = false;
            continue;
        }
        if (arg == "--stateless") {
            http_only_flag = true;
            http_opts.stateless = true;
            continue;
        }
        bool matched = false;
        for (const auto& o : opts.options) {
            if (arg != o.name) continue;
            matched = true;
            std::string_view value;
            if (!o.value_name.empty()) {
                if (i + 1 >= argc) return usage_error(o.name + " needs " + o.value_name);
                value = argv[++i];
            }
            if (!o.apply(value)) return 2;
            break;
        }
        if (matched) continue;
        if (arg.size() > 1 && arg.front() == '-') return usage_error("unknown option '" + std::string(arg) + "'");
        positional.push_back(arg);
    }

    if (http_only_flag && !http)
        return usage_error("--stateless, --tokens, --allow-origin, --threads and --ops-token need --http");
    if (stdio && http) return usage_error("choose one of --stdio and --http");
    // From here on the server's log (and `prepare`'s) is in the chosen format, written by a
    // thread of its own; whatever is queued is written before this function returns.
    ops::admin_options admin;
    admin.log = ops::log_writer::open(log_opts);
    srv.set_log(admin.log->sink());
    struct flush_on_return {
        std::shared_ptr<ops::log_writer> log;
        ~flush_on_return() { log->flush(); }
    } flush_log{admin.log};
    const bool will_run = http || stdio || !positional.empty();
    if (will_run && opts.prepare && !opts.prepare()) return 1;
    // Operators' observers: only when serving (tools/check never answer a client).
    if (journal && (stdio || http)) {
        auto opened = ops::journal::open(journal_opts);
        if (!opened) {
            admin.log->write(mcp::log_level::error,
                             "cannot open journal '" + journal_opts.path + "': " + opened.error().message());
            return 1;
        }
        admin.journal = *opened;
        srv.add_observer(admin.journal);
    }
    if (http) {
        if (metrics) {
            admin.metrics = std::make_shared<ops::call_metrics>(
                ops::metrics_options{.server_name = srv.options().name, .server_version = srv.options().version});
            srv.add_observer(admin.metrics);
        }
        if (!ops_token.empty()) {
            admin.console = std::make_shared<ops::console>();
            admin.console_token = ops_token;
            srv.add_observer(admin.console);
        }
        if (admin.metrics || admin.console) http_opts.admin = ops::make_admin_handler(admin);
    }
    if (http) {
        if (!positional.empty()) return usage_error("--http takes no command");
        return transport::serve_http(srv, http_opts);
    }
    if (stdio) {
        if (!positional.empty()) return usage_error("--stdio takes no command");
        transport::stdio_options stdio_opts;
        stdio_opts.connection.caller = opts.stdio_caller;
        return transport::serve_stdio(srv, stdio_opts);
    }
    if (positional.empty()) {
        print_help(srv, opts, argv[0], std::cerr);
        return 2;
    }
    const std::string_view command = positional.front();
    if (command == "tools") {
        if (positional.size() != 1) return usage_error("'tools' takes no arguments");
        return print_tools(srv);
    }
    if (command == "check") {
        if (positional.size() < 2 || positional.size() > 3) return usage_error("usage: check TOOL [FILE|-]");
        return check_tool(srv, positional[1], positional.size() == 3 ? positional[2] : "-");
    }
    return usage_error("unknown command '" + std::string(command) + "'");
}

}  // namespace candor::app
