// SPDX-License-Identifier: BSL-1.0
#include <candor/mcp/logging.hpp>

#include <array>
#include <cstdio>
#include <string>

namespace candor::mcp {

namespace {
constexpr std::array<std::string_view, 8> level_names = {"debug", "info",     "notice", "warning",
                                                         "error", "critical", "alert",  "emergency"};
}

std::string_view to_string(log_level l) noexcept { return level_names[static_cast<std::size_t>(l)]; }

std::optional<log_level> parse_log_level(std::string_view name) noexcept {
    for (std::size_t i = 0; i < level_names.size(); ++i)
        if (level_names[i] == name) return static_cast<log_level>(i);
    return std::nullopt;
}

log_sink stderr_log_sink() {
    return [](log_level l, std::string_view text) {
        std::string line = "[candor] ";
        line += to_string(l);
        line += ": ";
        line += text;
        line += '\n';
        std::fwrite(line.data(), 1, line.size(), stderr);
    };
}

}  // namespace candor::mcp
