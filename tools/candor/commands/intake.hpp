// SPDX-License-Identifier: BSL-1.0
#pragma once

namespace candor::cli {

/// candor intake [--max-bytes N] [--max-depth N] [--max-nodes N] [FILE|-]
/// Exit 0 accepted, 1 rejected, 2 usage error; one line of JSON on stdout.
int run_intake(int argc, char** argv);

}  // namespace candor::cli
