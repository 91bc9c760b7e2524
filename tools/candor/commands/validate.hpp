// SPDX-License-Identifier: BSL-1.0
#pragma once

namespace candor::cli {

/// candor validate --schema SCHEMA.json [--remote URL_PREFIX=DIR]... [--format-assertion]
///                 [--jsonl] [INSTANCE|-]
/// Exit 0 valid, 1 invalid, 2 usage error or invalid schema; verdicts as JSON lines on stdout.
int run_validate(int argc, char** argv);

}  // namespace candor::cli
