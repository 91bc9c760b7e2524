// SPDX-License-Identifier: BSL-1.0
#pragma once
// Runs a built command-line program and captures its stdout and exit status.

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace candor::test {

struct run_result {
    int status = -1;
    std::string out;
};

/// Run `command` through /bin/sh with `input` on stdin (written to a temp file first).
inline run_result run(const std::string& command, const std::string& input = {}) {
    char path[] = "/tmp/candor-cli-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return {};
    if (!input.empty() && ::write(fd, input.data(), input.size()) != static_cast<ssize_t>(input.size())) return {};
    ::close(fd);
    run_result r;
    std::FILE* p = ::popen((command + " < " + path + " 2>/dev/null").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int st = ::pclose(p);
    ::unlink(path);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline std::string candor_cli() { return std::string(CANDOR_BINARY_DIR) + "/tools/candor/candor"; }

}  // namespace candor::test
