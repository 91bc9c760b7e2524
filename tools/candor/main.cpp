// SPDX-License-Identifier: BSL-1.0
// candor: the command-line tool for tool authors and operators.
// Each subcommand lives in commands/<name>.cpp and exposes int run_<name>(argc, argv).

#include "commands/inspect.hpp"
#include "commands/intake.hpp"
#include "commands/remote.hpp"
#include "commands/validate.hpp"

#include <cstring>
#include <iostream>
#include <string_view>

namespace {

struct command {
    std::string_view name;
    int (*run)(int, char**);
    std::string_view summary;
};

constexpr command commands[] = {
    {"call", candor::cli::run_call, "call a tool on an MCP server (a command over stdio, or a URL)"},
    {"inspect", candor::cli::run_inspect, "summarize a server's call journal (--journal PATH)"},
    {"intake", candor::cli::run_intake, "check one JSON text with the strict intake"},
    {"tools", candor::cli::run_tools, "list an MCP server's tools"},
    {"validate", candor::cli::run_validate, "validate JSON instances against a JSON Schema (2020-12)"},
    {"walk", candor::cli::run_walk, "follow a collection tool to its end and say whether the walk is complete"},
};

int usage(std::ostream& os, int code) {
    os << "usage: candor <command> [options]\n\ncommands:\n";
    for (const auto& c : commands) os << "  " << c.name << "\t" << c.summary << "\n";
    os << "\n'candor <command> --help' describes a command.\n";
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage(std::cerr, 2);
    const std::string_view name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") return usage(std::cout, 0);
    for (const auto& c : commands) {
        if (c.name == name) return c.run(argc - 1, argv + 1);
    }
    std::cerr << "candor: unknown command '" << name << "'\n";
    return usage(std::cerr, 2);
}
