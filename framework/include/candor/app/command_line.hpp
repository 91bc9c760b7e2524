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
/// A server's `main` is then `return candor::app::run(srv, argc, argv);`. Components other than
/// `core` add to it through `app_options::extensions`: `--http [HOST:]PORT` and its options
/// (`http_command_line`, component http) and, for operators, `--journal PATH`, `--no-metrics`,
/// `--ops-token TOKEN`, `--log-format text|json` and `--log-level LEVEL` (`ops_command_line`,
/// component ops; docs/operations.md). `core` knows none of them, so a stdio server links neither
/// the HTTP transport nor OpenSSL.

#include <candor/mcp/server.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace candor::app {

/// A flag of the server's own (e.g. `--db PATH`), or of an extension.
struct extra_option {
    std::string name{};        ///< e.g. "--db"
    std::string value_name{};  ///< e.g. "PATH"; empty for a switch
    std::string help{};
    /// Receives the value ("" for a switch). Return false (and say why on stderr) to refuse it.
    std::function<bool(std::string_view)> apply{};
};

/// A part of the standard command line that a component other than `core` adds (`--http`, the
/// operators' flags). `run` parses its flags, asks it whether they fit, starts it before serving,
/// and lets it serve when the command line chose its serving command.
class command_line_extension {
public:
    virtual ~command_line_extension() = default;

    /// Its flags, parsed like `app_options::options` (after them); each `apply` records into the
    /// extension (and says on stderr why it refuses a value: exit 2). Called once per `run`.
    virtual std::vector<extra_option> flags() = 0;

    /// Its lines in --help's list of commands, each ending in a newline.
    virtual std::string help() const = 0;

    /// The serving command it adds, for the usage line (e.g. "--http [HOST:]PORT"); empty: none.
    virtual std::string synopsis() const { return {}; }

    /// Whether the command line chose its serving command.
    virtual bool serving() const { return false; }

    /// Once every argument is parsed, before `prepare`: settle what the flags leave to the
    /// environment, and say why they do not fit the command line (a usage error, exit 2), or
    /// nothing.
    /// @param serving whether the command line serves (`--stdio` or an extension's command)
    virtual std::string check([[maybe_unused]] bool serving) { return {}; }

    /// Once the command line is accepted, before `prepare`, whatever the command: what must hold
    /// from the first line the server logs (e.g. the log's format). Return false (having said why)
    /// to exit 1.
    virtual bool configure([[maybe_unused]] mcp::server& srv) { return true; }

    /// When the command line serves, after `prepare` and before serving: attach observers, open
    /// files. Return false (having said why on stderr) to exit 1.
    virtual bool start([[maybe_unused]] mcp::server& srv) { return true; }

    /// Serve until told to stop; called only when `serving()`.
    /// @return the process exit status
    virtual int serve([[maybe_unused]] mcp::server& srv) { return 2; }
};

struct app_options {
    /// One-line description for --help.
    std::string summary{};
    std::vector<extra_option> options{};
    /// The caller of every tool call over `--stdio` (stdio has no authentication of its own:
    /// whoever starts the process is the caller). Empty: anonymous.
    mcp::principal stdio_caller{};
    /// Runs once the whole command line is parsed (every `extra_option` applied) and before
    /// any command: open what the flags name, register the tools that depend on them. Return
    /// false (and say why on stderr) to exit with status 1.
    std::function<bool()> prepare{};
    /// What other components add to the command line, e.g.
    /// `{std::make_shared<http_command_line>()}` for `--http` (candor/http/command_line.hpp).
    /// An extension records the flags of one `run`.
    std::vector<std::shared_ptr<command_line_extension>> extensions{};
};

/// Say on stderr why a flag's value is refused, the way `run` words its own usage errors.
/// @return false, for `extra_option::apply`: `return app::refuse("--db needs a path");`
bool refuse(std::string_view message);

/// Parse the command line and do what it says.
/// @return the process exit status: 0 success, 1 failure (e.g. `check` found issues),
///         2 usage error
int run(mcp::server& srv, int argc, char** argv, const app_options& opts = {});

}  // namespace candor::app
