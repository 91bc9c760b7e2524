#pragma once
// Blocking write of all of `s` to `fd` for the load benchmark's stand-in servers (stdio-floor,
// stdio-direct); false if the reader went away.
#include <cerrno>
#include <string_view>

#include <unistd.h>

inline bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}
