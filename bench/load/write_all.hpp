// SPDX-License-Identifier: BSL-1.0
#pragma once
// Output helpers for the load benchmark's stand-in servers (stdio-floor, stdio-direct).
#include <cerrno>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

// The output pipe Candor's stdio transport asks for (`stdio_options::output_pipe_bytes`, 256 KiB),
// so that what the stand-ins measure differs from bench-server in the work, not in the pipe.
inline void grow_output_pipe(int fd = 1) {
    constexpr int bytes = 256 << 10;
    if (const int now = ::fcntl(fd, F_GETPIPE_SZ); now > 0 && now < bytes) ::fcntl(fd, F_SETPIPE_SZ, bytes);
}

// Blocking write of all of `s` to `fd`; false if the reader went away.

inline bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}
