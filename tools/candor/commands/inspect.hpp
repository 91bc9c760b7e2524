// SPDX-License-Identifier: BSL-1.0
#pragma once

namespace candor::cli {

/// candor inspect JOURNAL [--since T] [--tool NAME] [--json]
/// Streams a call journal (docs/operations.md) and prints summary tables, or one JSON object.
/// Exit 0, 1 when the journal cannot be read, 2 usage error.
int run_inspect(int argc, char** argv);

}  // namespace candor::cli
