// SPDX-License-Identifier: BSL-1.0
#pragma once

namespace candor::cli {

/// candor call [SERVER] TOOL [ARGUMENTS]   (SERVER: --url URL [--token T] | -- COMMAND...)
/// Prints the tools/call result; exit 0, 1 (isError), 2 usage, 3 no answer.
int run_call(int argc, char** argv);

/// candor walk [SERVER] [--max-calls N] [--max-items N] [--deadline-ms N] [--json] [--items] TOOL [ARGUMENTS]
/// Follows the tool's next_cursor to the end and prints a completeness summary; exit 0 complete,
/// 1 not complete, 2 usage, 3 no session.
int run_walk(int argc, char** argv);

/// candor tools [SERVER]: every tool's name and description, from all pages of tools/list.
int run_tools(int argc, char** argv);

}  // namespace candor::cli
