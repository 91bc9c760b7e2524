// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The standard command line every Candor server binary gets (like FastMCP's CLI):
///
///     SERVER --stdio                 serve one client over stdin/stdout
///     SERVER tools                   print the tool list (with schemas) as JSON
///     SERVER check TOOL [FILE|-]     run TOOL's whole argument contract on FILE offline
///     SERVER --help
///
/// and, for operators, `--journal PATH`, `--no-metrics`, `--ops-token TOKEN`, `--log-format
/// text|json` and `--log-level LEVEL` (docs/operations.md). The server's log (`server::set_log`)
/// is replaced by an `ops::log_writer` on stderr in the chosen format before `prepare` runs.
///
/// A server's `main` is then `return candor::app::run(srv, argc, argv);`.

#include <candor/mcp/server.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::app {

/// A flag of the server's own (e.g. `--db PATH`), parsed before the standard ones.
struct extra_option {
    std::string name;        ///< e.g. "--db"
    std::string value_name;  ///< e.g. "PATH"; empty for a switch
    std::string help;
    /// Receives the value ("" for a switch). Return false (and say why on stderr) to refuse it.
    std::function<bool(std::string_view)> apply;
};

struct app_options {
    /// One-line description for --help.
    std::string summary;
    std::vector<extra_option> options;
    /// The caller of every tool call over `--stdio` (stdio has no authentication of its own:
    /// whoever starts the process is the caller). Empty: anonymous.
    mcp::principal stdio_caller;
    /// Runs once the whole command line is parsed (every `extra_option` applied) and before
    /// any command: open what the flags name, register the tools that depend on them. Return
    /// false (and say why in the server's log, `server::options().log`, which has the
    /// operator's format and level by then) to exit with status 1.
    std::function<bool()> prepare;
};

/// Parse the command line and do what it says.
/// @return the process exit status: 0 success, 1 failure (e.g. `check` found issues),
///         2 usage error
int run(mcp::server& srv, int argc, char** argv, const app_options& opts = {});

}  // namespace candor::app
