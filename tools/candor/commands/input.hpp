// SPDX-License-Identifier: BSL-1.0
#pragma once
// Reading a command's input (a file or stdin) without ever holding more than a bound.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace candor::cli {

struct input {
    std::string text;
    /// True when the source held more than the bound; `text` then holds bound + 1 bytes.
    bool truncated = false;
};

/// Read `path` ("-" = stdin) up to `bound` bytes (one more is read to tell "exactly at the
/// bound" from "over it"). Returns nothing if the file cannot be opened; `error` says why.
std::optional<input> read_bounded(std::string_view path, std::size_t bound, std::string& error);

/// Parse a non-negative decimal integer option value; nothing on junk or overflow.
std::optional<std::size_t> parse_size(std::string_view text);

}  // namespace candor::cli
