// SPDX-License-Identifier: BSL-1.0
#include "commands/input.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>

namespace candor::cli {

std::optional<input> read_bounded(std::string_view path, std::size_t bound, std::string& error) {
    std::FILE* f = stdin;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> owned(nullptr, &std::fclose);
    if (path != "-") {
        f = std::fopen(std::string(path).c_str(), "rb");
        if (!f) {
            error = "cannot open '" + std::string(path) + "': " + std::strerror(errno);
            return std::nullopt;
        }
        owned.reset(f);
    }
    input in;
    const std::size_t want = bound == static_cast<std::size_t>(-1) ? bound : bound + 1;
    char buf[64 * 1024];
    while (in.text.size() < want) {
        const std::size_t n = std::fread(buf, 1, std::min(sizeof buf, want - in.text.size()), f);
        if (n == 0) break;
        in.text.append(buf, n);
    }
    if (std::ferror(f)) {
        error = "cannot read '" + std::string(path) + "'";
        return std::nullopt;
    }
    in.truncated = in.text.size() > bound;
    return in;
}

std::optional<std::size_t> parse_size(std::string_view text) {
    std::size_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

}  // namespace candor::cli
