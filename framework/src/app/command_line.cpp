// SPDX-License-Identifier: BSL-1.0
#include <candor/app/command_line.hpp>

#include <candor/envelope/envelope.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/transport/stdio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/array.hpp>

#include <algorithm>
#include <charconv>
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
    os << "usage: " << self << " [options] (--stdio | ";
    for (const auto& e : opts.extensions)
        if (auto s = e->synopsis(); !s.empty()) os << s << " | ";
    os << "tools | check TOOL [FILE|-])\n";
    if (!opts.summary.empty()) os << "\n" << opts.summary << "\n";
    os << "\ncommands:\n"
          "  --stdio                serve one MCP client over stdin/stdout (logs go to stderr)\n";
    for (const auto& e : opts.extensions) os << e->help();
    os << "  tools                  print the tool list, with schemas, as JSON\n"
          "  check TOOL [FILE|-]    run TOOL's argument contract on the arguments in FILE\n"
          "                         (a JSON object; '-' or absent: stdin) without running the tool;\n"
          "                         exit 0 if accepted, 1 with the issues if not\n"
          "  --help                 this text\n"
          "\n  --max-result-bytes N   the most bytes one tool result may take on the wire (default\n"
          "                         24000; 0: no limit); larger pages end at a whole item, larger\n"
          "                         strings are cut (docs/result-budgets.md)\n"
          "  --result-text json|summary  a result's text block: the envelope as JSON (default), or a\n"
          "                         summary (verdict, reasons, continuation first; data while it fits)\n";
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

// The first flag of `flags` named `arg`, applied (with its value, if it takes one).
// @return nothing if no flag has that name, else the exit status to stop with (0: go on)
std::optional<int> apply_flag(const std::vector<extra_option>& flags, std::string_view arg, int argc, char** argv,
                              int& i) {
    for (const auto& o : flags) {
        if (arg != o.name) continue;
        std::string_view value;
        if (!o.value_name.empty()) {
            if (i + 1 >= argc) return usage_error(o.name + " needs " + o.value_name);
            value = argv[++i];
        }
        return o.apply(value) ? 0 : 2;
    }
    return std::nullopt;
}

}  // namespace

bool refuse(std::string_view message) {
    usage_error(std::string(message));
    return false;
}

int run(mcp::server& srv, int argc, char** argv, const app_options& opts) {
    std::vector<std::string_view> positional;
    bool stdio = false;
    std::vector<extra_option> extension_flags;
    for (const auto& e : opts.extensions)
        for (auto& f : e->flags()) extension_flags.push_back(std::move(f));
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
        if (arg == "--max-result-bytes") {
            const std::string_view v = i + 1 < argc ? std::string_view(argv[++i]) : std::string_view();
            std::size_t n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || (n != 0 && n < 1024))
                return usage_error("--max-result-bytes expects 0 (no limit) or a number of bytes, at least 1024");
            srv.set_max_result_bytes(n);
            continue;
        }
        if (arg == "--result-text") {
            const std::string_view v = i + 1 < argc ? std::string_view(argv[++i]) : std::string_view();
            if (v == "json") srv.set_result_text(mcp::result_text::json);
            else if (v == "summary") srv.set_result_text(mcp::result_text::summary);
            else return usage_error("--result-text expects json or summary");
            continue;
        }
        auto applied = apply_flag(opts.options, arg, argc, argv, i);
        if (!applied) applied = apply_flag(extension_flags, arg, argc, argv, i);
        if (applied) {
            if (*applied != 0) return *applied;
            continue;
        }
        if (arg.size() > 1 && arg.front() == '-') return usage_error("unknown option '" + std::string(arg) + "'");
        positional.push_back(arg);
    }

    // One serving command at most: --stdio or an extension's (--http).
    std::vector<std::string> serving = stdio ? std::vector<std::string>{"--stdio"} : std::vector<std::string>{};
    command_line_extension* server_extension = nullptr;
    for (const auto& e : opts.extensions) {
        if (!e->serving()) continue;
        server_extension = e.get();
        const auto synopsis = e->synopsis();
        serving.push_back(synopsis.substr(0, synopsis.find(' ')));
    }
    if (serving.size() > 1) {
        std::string names = serving[0];
        for (std::size_t k = 1; k < serving.size(); ++k)
            names += (k + 1 == serving.size() ? " and " : ", ") + serving[k];
        return usage_error("choose one of " + names);
    }
    for (const auto& e : opts.extensions)
        if (auto refused = e->check(!serving.empty()); !refused.empty()) return usage_error(refused);
    if (!serving.empty() && !positional.empty()) return usage_error(serving[0] + " takes no command");

    const bool will_run = !serving.empty() || !positional.empty();
    for (const auto& e : opts.extensions)
        if (!e->configure(srv)) return 1;
    if (will_run && opts.prepare && !opts.prepare()) return 1;
    if (!serving.empty()) {
        // Operators' observers and the like: only when serving (tools/check never answer a client).
        for (const auto& e : opts.extensions)
            if (!e->start(srv)) return 1;
        if (server_extension) return server_extension->serve(srv);
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
