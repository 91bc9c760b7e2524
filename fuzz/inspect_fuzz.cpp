// SPDX-License-Identifier: BSL-1.0
// Fuzzes `candor inspect` reading a call journal: the input is the journal's bytes (any lines,
// any length, cut anywhere), read from a file as the command reads one; the first byte chooses
// the summary tables or `--json` and a `--tool` filter. Checked on every input: no crash, no
// hang, exit status 0 (a line that is not a record is counted as skipped, never fatal), and
// with `--json` the output is one JSON object.
#include "commands/inspect.hpp"

#include <boost/json/parse.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

// The journal the command reads, and where its standard output goes: two memory files.
struct files {
    int journal = memfd_create("journal", 0);
    int out = memfd_create("out", 0);
    std::string journal_path = "/proc/self/fd/" + std::to_string(journal);
    files() {
        check(journal >= 0 && out >= 0);
        check(dup2(out, STDOUT_FILENO) >= 0);
    }
};

files& io() {
    static files f;
    return f;
}

void reset(int fd) {
    check(ftruncate(fd, 0) == 0);
    check(lseek(fd, 0, SEEK_SET) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    auto& f = io();
    reset(f.journal);
    for (std::size_t done = 1; done < size;) {
        const auto n = write(f.journal, data + done, size - done);
        check(n > 0);
        done += static_cast<std::size_t>(n);
    }
    std::cout.flush();
    std::fflush(stdout);
    reset(f.out);
    const bool as_json = data[0] & 1;
    std::string program = "inspect", path = f.journal_path, json = "--json", tool_flag = "--tool", tool = "search";
    char* argv[6] = {program.data(), path.data()};
    int argc = 2;
    if (as_json) argv[argc++] = json.data();
    if (data[0] & 2) {
        argv[argc++] = tool_flag.data();
        argv[argc++] = tool.data();
    }
    argv[argc] = nullptr;
    check(candor::cli::run_inspect(argc, argv) == 0);
    std::cout.flush();
    std::fflush(stdout);
    if (as_json) {
        std::string text;
        check(lseek(f.out, 0, SEEK_SET) == 0);
        char buf[4096];
        for (ssize_t n; (n = read(f.out, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
        boost::system::error_code ec;
        const auto v = boost::json::parse(text, ec);
        check(!ec && v.is_object());
    }
    return 0;
}
